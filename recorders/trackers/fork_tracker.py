"""ForkTracker: which branches belong to which fork, and when all have exited."""

from __future__ import annotations

from typing import NamedTuple


class MergeReady(NamedTuple):
    """Every branch of a fork has exited; ``branches`` in registration order."""

    branches: tuple[str, ...]


class ForkTracker:
    """Owns parallel-fork bookkeeping for the RunStep recorder.

    Owns: the set of fork keys already seen (``parent@runtimeStageId``), so a
    repeated fork announcement is suppressed; each parent's registered branch
    list; the reverse index from branch to parent; the branches that exited.

    Does not own: the steps (the recorder stores them), run boundaries (the
    recorder calls :meth:`clear` on a new run), or any ordering of exits
    relative to entries.

    Faithful to the reference, including its limits: branches are keyed by
    parent id alone, so a later fork under the same parent replaces the earlier
    branch list, and a branch exit counts once however often it happens.
    """

    def __init__(self) -> None:
        self._branches: dict[str, tuple[str, ...]] = {}
        self._exited: dict[str, set[str]] = {}
        self._parent_of: dict[str, str] = {}
        self._seen_keys: set[str] = set()

    def register_fork(self, parent: str, runtime_stage_id: str, children: list[str] | tuple[str, ...]) -> bool:
        """Record a fork; False when this parent@stage was already registered."""
        key = f"{parent}@{runtime_stage_id}"
        if key in self._seen_keys:
            return False
        self._seen_keys.add(key)
        branch_list = tuple(children)
        self._branches[parent] = branch_list
        for child in branch_list:
            self._parent_of[child] = parent
        return True

    def is_fork_child(self, subflow_id: str) -> bool:
        return subflow_id in self._parent_of

    def record_child_exit(self, subflow_id: str) -> MergeReady | None:
        """Tally a branch exit; return MergeReady when the fork's last branch exits."""
        parent = self._parent_of.get(subflow_id)
        if parent is None:
            return None
        exited = self._exited.get(parent)
        if exited is None:
            exited = self._exited[parent] = set()
        exited.add(subflow_id)
        expected = self._branches.get(parent, ())
        if len(exited) == len(expected):
            return MergeReady(expected)
        return None

    def clear(self) -> None:
        self._branches.clear()
        self._exited.clear()
        self._parent_of.clear()
        self._seen_keys.clear()

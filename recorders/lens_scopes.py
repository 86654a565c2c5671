"""Scopes: the run's composition tree as the boundary log reveals it.

A *scope* is something a person can drill into and that has its own row in
the step contract: the run's root, and every subflow that is a user-level
primitive (Agent, LLMCall, Sequence, Parallel, Conditional, Loop) rather than
one of an Agent's or LLMCall's own internals (``isAgentInternal``). Slot
subflows, the injection engine, cache gates and ``sf-llm-call`` wrappers are
internals: their events belong to the nearest enclosing scope.

This module owns which scopes exist, which are open, what kind each is, and
which scope an event belongs to. It does not build steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from recorders.values import ROOT_PATH
from recorders.trackers.actor_arrows import ActorArrowClassifier


# Scope kinds, lower-case as the reference spells root kinds.
AGENT = "agent"
LLMCALL = "llmcall"
SEQUENCE = "sequence"
PARALLEL = "parallel"
CONDITIONAL = "conditional"
LOOP = "loop"
LEAF_KINDS = frozenset({AGENT, LLMCALL})
_KIND_OF_PRIMITIVE = {"Agent": AGENT, "LLMCall": LLMCALL, "Sequence": SEQUENCE,
                      "Parallel": PARALLEL, "Conditional": CONDITIONAL, "Loop": LOOP}


def scope_kind_of(primitive_kind: object) -> str | None:
    return _KIND_OF_PRIMITIVE.get(primitive_kind) if isinstance(primitive_kind, str) else None


@dataclass(slots=True)
class ScopeInfo:
    """What is known about a scope path across all its executions."""

    path: tuple[str, ...]
    kind: str | None
    subflow_id: str | None  # None for the root
    name: str | None
    parent: tuple[str, ...] | None
    children: list[tuple[str, ...]] = field(default_factory=list)
    executions: int = 0


@dataclass(slots=True)
class ChildRecord:
    """One finished or running execution of a child scope, as its parent saw it."""

    subflow_id: str
    path: tuple[str, ...]
    entry_stage: str
    exit_stage: str | None = None
    exit_ts: float | None = None


@dataclass(slots=True)
class ScopeRun:
    """One execution of a scope: the per-execution state its step maker needs."""

    info: ScopeInfo
    subflow_id: str | None
    entry_stage: str
    arrows: ActorArrowClassifier = field(default_factory=ActorArrowClassifier)
    children: list[ChildRecord] = field(default_factory=list)
    # The children still running, by subflow id, latest last: an exit finds
    # its record here without walking the children.
    running_children: dict[str, list[ChildRecord]] = field(default_factory=dict)
    last_exited: ChildRecord | None = None
    # Parallel: branch ids the fork announced, and those that exited.
    expected_branches: tuple[str, ...] = ()
    exited_branches: list[str] = field(default_factory=list)
    merged: bool = False
    forked: bool = False
    # Agent: the llm→tool step waiting for its tool names, and tools since.
    pending_tool_step: int | None = None
    tools_since_call: list[str] = field(default_factory=list)
    failed_tools_since_call: list[str] = field(default_factory=list)
    tool_names_by_call: dict[str, str] = field(default_factory=dict)
    # This execution's latest step, and the start step of a model call that
    # has not ended: where a crash that unwinds the run is shown.
    last_step: int | None = None
    open_call_step: int | None = None
    ended: bool = False

    @property
    def kind(self) -> str | None:
        return self.info.kind

    @property
    def path(self) -> tuple[str, ...]:
        return self.info.path


class ScopeTracker:
    """Owns the scope tree and the open executions; resolves event owners.

    Exits are matched to the open execution with the same subflow id (the
    innermost one when an id is open twice), never to whatever is on top of a
    stack. Resolving an owner walks up the event's path to the nearest open
    scope: a cost bounded by nesting depth, not by the log.

    Does not own steps, arrows or route state; it hands ScopeRun objects to
    whoever builds steps.
    """

    def __init__(self) -> None:
        self.infos: dict[tuple[str, ...], ScopeInfo] = {}
        self._open_by_path: dict[tuple[str, ...], list[ScopeRun]] = {}
        self._open_by_id: dict[str, list[ScopeRun]] = {}
        self.root: ScopeRun | None = None

    def clear(self) -> None:
        self.infos.clear()
        self._open_by_path.clear()
        self._open_by_id.clear()
        self.root = None

    def open_root(self, entry_stage: str) -> ScopeRun:
        info = self._info(ROOT_PATH, None, None, None, None)
        run = ScopeRun(info, None, entry_stage)
        self.root = run
        self._open_by_path.setdefault(ROOT_PATH, []).append(run)
        return run

    def ensure_root(self) -> ScopeRun:
        """A log without ``run.entry`` (a cut recording) still has a root."""
        return self.root if self.root is not None else self.open_root("")

    def open_child(self, path: tuple[str, ...], subflow_id: str, kind: str | None,
                   name: str | None, entry_stage: str) -> tuple[ScopeRun, ScopeRun]:
        """Open a child scope; returns (child, parent)."""
        parent = self.owner_of(path[:-1])
        info = self._info(path, kind, subflow_id, name, parent.path)
        if path not in self.infos[parent.path].children:
            self.infos[parent.path].children.append(path)
        run = ScopeRun(info, subflow_id, entry_stage)
        self._open_by_path.setdefault(path, []).append(run)
        self._open_by_id.setdefault(subflow_id, []).append(run)
        return run, parent

    def close(self, subflow_id: str) -> ScopeRun | None:
        """Close the innermost open execution with this subflow id, if any."""
        runs = self._open_by_id.get(subflow_id)
        if not runs:
            return None
        run = runs.pop()
        path_runs = self._open_by_path.get(run.path)
        if path_runs and run in path_runs:
            path_runs.remove(run)
            if not path_runs:  # only open paths stay (owner_of_stage reads them all)
                del self._open_by_path[run.path]
        return run

    def open_at(self, path: tuple[str, ...]) -> ScopeRun | None:
        runs = self._open_by_path.get(path)
        return runs[-1] if runs else None

    def open_runs(self) -> list[ScopeRun]:
        """Every execution still open, the deepest first (read once, when a run crashes)."""
        runs = [run for path_runs in self._open_by_path.values() for run in path_runs]
        return sorted(runs, key=lambda run: len(run.path), reverse=True)

    def parent_of(self, run: ScopeRun) -> ScopeRun | None:
        parent_path = run.info.parent
        return None if parent_path is None else self.owner_of(parent_path)

    def owner_of(self, path: tuple[str, ...]) -> ScopeRun:
        """The nearest open scope at or above ``path`` (the root at worst)."""
        for end in range(len(path), 0, -1):
            runs = self._open_by_path.get(path[:end])
            if runs:
                return runs[-1]
        return self.ensure_root()

    def owner_of_stage(self, runtime_stage_id: str) -> ScopeRun:
        """Owner of a flow event, from its path-prefixed runtimeStageId.

        Fork, decision and loop events often carry a root ``subflowPath`` even
        when they fire deep inside; their stage id keeps the real prefix. That
        prefix is the subflow ids joined with "/", and an id may hold "/"
        itself, so it is matched against the open scopes' own paths (the
        longest whose ids, joined, begin it), never split into segments.
        """
        stage = runtime_stage_id.split("#", 1)[0]
        prefix = stage.rpartition("/")[0]
        best, best_chars = None, -1
        for path, runs in self._open_by_path.items():
            if not runs or path[:1] != ROOT_PATH:
                continue
            text = "/".join(segment for segment in path[1:] if segment)
            if len(text) > best_chars and (not text or prefix == text
                                           or prefix.startswith(text + "/")):
                best, best_chars = runs[-1], len(text)
        return best if best is not None else self.ensure_root()

    def _info(self, path: tuple[str, ...], kind: str | None, subflow_id: str | None,
              name: str | None, parent: tuple[str, ...] | None) -> ScopeInfo:
        info = self.infos.get(path)
        if info is None:
            info = ScopeInfo(path, kind, subflow_id, name, parent)
            self.infos[path] = info
        elif info.kind is None and kind is not None:
            info.kind = kind
        info.executions += 1
        return info

"""SequenceSiblingTracker: the last leaf that exited at each depth."""

from __future__ import annotations


class SequenceSiblingTracker:
    """Owns the most recent leaf exit per depth, for ``forwards`` handoffs.

    When a leaf (Agent or LLMCall) enters at a depth where another leaf already
    exited, the recorder draws a ``forwards`` arrow from that earlier leaf.

    Does not own: which subflows are leaves (the recorder decides), the
    ``asks``/``answers`` steps, or run boundaries (cleared by the recorder).
    """

    def __init__(self) -> None:
        self._last_exit_at_depth: dict[int, str] = {}

    def peek_previous(self, depth: int) -> str | None:
        """The subflow id of the last leaf that exited at this depth, if any."""
        return self._last_exit_at_depth.get(depth)

    def record_exit(self, depth: int, subflow_id: str) -> None:
        self._last_exit_at_depth[depth] = subflow_id

    def clear(self) -> None:
        self._last_exit_at_depth.clear()

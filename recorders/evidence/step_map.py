"""Which steps of one step list show which model and tool calls.

A :class:`StepMap` is built once per step list (one pass over the steps);
its look-ups are O(1) or a bisect, and it keeps nothing it did not build up
front, so one map can be shared by every session showing that list. The app
keeps one per (run, profile, scope) in its own cache; the index keeps none.

A call's *exact* steps are the steps anchored at its ``runtimeStageId`` whose
time lies within the call (several runs can reuse one id; the time tells them
apart). When the step list hides model calls (the reference projection at an
Agent root), :meth:`StepMap.nearest_step` gives the last step at or before
the call.
"""

from __future__ import annotations

import bisect
from typing import Sequence

from recorders.evidence.records import EvidenceIndex
from recorders.run_step import RunStep


class StepMap:
    """Ties model calls and tool calls to positions in one step list."""

    def __init__(self, index: EvidenceIndex, steps: Sequence[RunStep]):
        self.index = index
        self.steps = steps
        by_stage: dict[str, list[int]] = {}
        times: list[tuple[float, int]] = []
        for position, step in enumerate(steps):
            by_stage.setdefault(step.runtime_stage_id, []).append(position)
            times.append((step.ts_ms, position))
        times.sort()
        self._by_stage = by_stage
        self._times = [t for t, _ in times]
        self._time_pos = [p for _, p in times]
        # Calls by start time, of the run the steps describe.
        starts = sorted((c.ts_start, c.id) for c in index.shown_calls() if c.ts_start is not None)
        self._call_starts = [t for t, _ in starts]
        self._call_ids = [i for _, i in starts]
        self._exact = {call.id: self._find_steps(call.id) for call in index.calls
                       if call.runtime_stage_id in by_stage}

    def _find_steps(self, call_id: int) -> tuple[int, ...]:
        call = self.index.calls[call_id]
        candidates = self._by_stage.get(call.runtime_stage_id or "", [])
        if not candidates:
            return ()
        lo = call.ts_start
        hi = call.ts_end if call.ts_end is not None else lo
        if lo is not None and hi is not None:
            in_window = tuple(p for p in candidates if lo <= self.steps[p].ts_ms <= hi)
            if in_window:
                return in_window
        if len(self.index.calls_for_runtime_stage(call.runtime_stage_id or "")) == 1:
            return tuple(candidates)  # one call has this id: the anchor decides
        return ()

    def steps_at_stage(self, runtime_stage_id: str) -> Sequence[int]:
        """Positions of the steps anchored at this stage, in list order; may be empty."""
        return self._by_stage.get(runtime_stage_id, ())

    def steps_for_call(self, call_id: int) -> tuple[int, ...]:
        """Positions of the steps that show this call (start and end), may be empty."""
        return self._exact.get(call_id, ())

    def start_step(self, call_id: int) -> int | None:
        found = self.steps_for_call(call_id)
        return found[0] if found else None

    def end_step(self, call_id: int) -> int | None:
        found = self.steps_for_call(call_id)
        return found[-1] if found else None

    def nearest_step(self, call_id: int) -> int | None:
        """The call's first exact step, else the last step at or before its start."""
        exact = self.start_step(call_id)
        if exact is not None:
            return exact
        return self.step_at_time(self.index.calls[call_id].ts_start)

    def step_for_tool(self, tool_id: int) -> tuple[int | None, bool]:
        """(step position, exact?) for a tool call: the asking call's end step when
        the list shows it, else the last step at or before the tool started."""
        tool = self.index.tool_calls[tool_id]
        if tool.requested_by is not None:
            end = self.end_step(tool.requested_by)
            if end is not None:
                return end, True
        return self.step_at_time(tool.ts_start), False

    def call_at(self, position: int, nearest: bool = True) -> tuple[int | None, bool]:
        """(call id, exact?) for a step: the call the step shows; with ``nearest``,
        for a step that shows no call, the last call in the run that started at
        or before the step."""
        if not 0 <= position < len(self.steps):
            return None, False
        step = self.steps[position]
        for call_id in self.index.calls_for_runtime_stage(step.runtime_stage_id):
            if position in self.steps_for_call(call_id):
                return call_id, True
        if not nearest:
            return None, False
        at = bisect.bisect_right(self._call_starts, step.ts_ms)
        return (self._call_ids[at - 1], False) if at else (None, False)

    def step_at_time(self, ts: float | None) -> int | None:
        """The last step at or before ``ts`` (wall-clock ms), if any."""
        if ts is None or not self._times:
            return None
        at = bisect.bisect_right(self._times, ts)
        return self._time_pos[at - 1] if at else None

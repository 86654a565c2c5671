"""Which recorded events carry each stage, and when the run started and ended.

A step names the stage it shows by ``runtimeStageId``; the step detail lists
the events behind it and reads some of them (a decision's branch event, a
handoff's subflow payload). :class:`StageEvents` answers "which events carry
this id" by position, in O(1), for both streams: the boundary log, and the
typed stream restricted to the run the boundary log covers (the last run,
when the typed stream holds several).

It is filled by :mod:`recorders.evidence.build` in the same passes that build
the rest of the index (``add_boundary`` / ``add_typed`` per event, then
``finish``); after that it is only read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from recorders.values import number_or_none


@dataclass(frozen=True)
class StageEvents:
    """Positions of the events at each ``runtimeStageId``, and the run's span."""

    boundary_events: list[dict]
    typed_events: list[dict]
    boundary_at: dict[str, tuple[int, ...]] = field(default_factory=dict, repr=False)
    typed_at: dict[str, tuple[int, ...]] = field(default_factory=dict, repr=False)
    first_ts: dict[str, float] = field(default_factory=dict, repr=False)
    run_started_ms: float | None = None  # the first run.entry
    run_ended_ms: float | None = None    # the last run.exit

    def boundary_indexes(self, runtime_stage_id: str) -> tuple[int, ...]:
        return self.boundary_at.get(runtime_stage_id, ())

    def typed_indexes(self, runtime_stage_id: str) -> tuple[int, ...]:
        return self.typed_at.get(runtime_stage_id, ())

    def boundary_events_at(self, runtime_stage_id: str, kind: str | None = None) -> list[dict]:
        """The boundary events at this stage (of type ``kind`` when given), in order."""
        events = (self.boundary_events[i] for i in self.boundary_indexes(runtime_stage_id))
        return [e for e in events if kind is None or e.get("type") == kind]


class StageEventsBuilder:
    """Collects :class:`StageEvents` one event at a time."""

    def __init__(self, boundary_events: list, typed_events: list) -> None:
        self._boundary_events = boundary_events
        self._typed_events = typed_events
        self._boundary_at: dict[str, list[int]] = {}
        self._boundary_first_ts: dict[str, float] = {}
        # runtimeStageId -> [(runId, position, wall-clock ms)]; the run is chosen at the end.
        self._typed_at: dict[str, list[tuple[Any, int, float | None]]] = {}
        self._run_started_ms: float | None = None
        self._run_ended_ms: float | None = None

    def add_boundary(self, position: int, event: dict) -> None:
        rid = event.get("runtimeStageId")
        if not isinstance(rid, str):
            return
        positions = self._boundary_at.get(rid)
        if positions is None:
            self._boundary_at[rid] = [position]
        else:
            positions.append(position)
        ts = number_or_none(event.get("ts"))
        if ts is None:
            return
        self._boundary_first_ts.setdefault(rid, ts)
        kind = event.get("type")
        if kind == "run.entry" and self._run_started_ms is None:
            self._run_started_ms = ts
        elif kind == "run.exit":
            self._run_ended_ms = ts

    def add_typed(self, position: int, run_id: Any, meta: dict) -> None:
        rid = meta.get("runtimeStageId")
        if not isinstance(rid, str):
            return
        entry = (run_id, position, number_or_none(meta.get("wallClockMs")))
        positions = self._typed_at.get(rid)
        if positions is None:
            self._typed_at[rid] = [entry]
        else:
            positions.append(entry)

    def finish(self, shown_run: Any, several_runs: bool) -> StageEvents:
        """The finished index; with ``several_runs``, typed events of ``shown_run`` only."""
        typed_at: dict[str, tuple[int, ...]] = {}
        first_ts = dict(self._boundary_first_ts)
        for rid, entries in self._typed_at.items():
            kept = [e for e in entries if not several_runs or e[0] == shown_run]
            if not kept:
                continue
            typed_at[rid] = tuple(position for _, position, _ in kept)
            if rid not in first_ts:
                ts = next((ts for _, _, ts in kept if ts is not None), None)
                if ts is not None:
                    first_ts[rid] = ts
        return StageEvents(
            self._boundary_events, self._typed_events,
            boundary_at={rid: tuple(p) for rid, p in self._boundary_at.items()},
            typed_at=typed_at, first_ts=first_ts,
            run_started_ms=self._run_started_ms, run_ended_ms=self._run_ended_ms)

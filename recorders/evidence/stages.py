"""Which recorded events carry each stage, and when the run started and ended.

A step names the stage it shows by ``runtimeStageId``; the step detail lists
the events behind it and reads some of them (a decision's branch event, a
handoff's subflow payload). :class:`StageEvents` answers "which events carry
this id" by position, in O(1), for both streams: the boundary log, and the
typed stream restricted to the run the boundary log covers (the last run,
when the typed stream holds several).

:func:`stage_events` builds it in one tight pass over each stream, when
:mod:`recorders.evidence.build` builds the rest of the index; after that it
is only read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from recorders import boundary_names
from recorders.values import is_number as _is_number, number_or_none


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


def stage_events(boundary_events: list, typed_events: list, shown_run: Any, *,
                 several_runs: bool, shown_run_ids: tuple = ()) -> StageEvents:
    """Index both streams by ``runtimeStageId``, one tight pass each; with
    ``several_runs``, keep the typed events of ``shown_run`` only, or of
    ``shown_run_ids`` when given (every part of a run paused and resumed)."""
    shown_ids = tuple(shown_run_ids) or (shown_run,)
    boundary_at: dict[str, list[int]] = {}
    first_ts: dict[str, float] = {}
    started = ended = None
    # Inlined checks: this runs once per event of both streams.
    for position, event in enumerate(boundary_events):
        if event.__class__ is not dict and not isinstance(event, dict):
            continue
        rid = event.get("runtimeStageId")
        if rid.__class__ is not str and not isinstance(rid, str):
            continue
        positions = boundary_at.get(rid)
        if positions is None:
            boundary_at[rid] = [position]
        else:
            positions.append(position)
        ts = event.get("ts")
        if ts.__class__ is not int and ts.__class__ is not float and not _is_number(ts):
            continue
        if rid not in first_ts:
            first_ts[rid] = ts
        kind = event.get("type")
        if kind == boundary_names.RUN_ENTRY:
            if started is None:
                started = ts
        elif kind == boundary_names.RUN_EXIT:
            ended = ts
    typed_at: dict[str, list[int]] = {}
    for position, event in enumerate(typed_events):
        meta = event.get("meta") if isinstance(event, dict) else None
        if meta.__class__ is not dict and not isinstance(meta, dict):
            continue
        rid = meta.get("runtimeStageId")
        if (rid.__class__ is not str and not isinstance(rid, str)) or (
                several_runs and meta.get("runId") not in shown_ids):
            continue
        positions = typed_at.get(rid)
        if positions is None:
            typed_at[rid] = [position]
        else:
            positions.append(position)
        if rid not in first_ts:
            ts = number_or_none(meta.get("wallClockMs"))
            if ts is not None:
                first_ts[rid] = ts
    return StageEvents(
        boundary_events, typed_events,
        boundary_at={rid: tuple(p) for rid, p in boundary_at.items()},
        typed_at={rid: tuple(p) for rid, p in typed_at.items()},
        first_ts=first_ts, run_started_ms=started, run_ended_ms=ended)

"""Compare two open runs: a pure function of two :class:`lens.run.OpenRun`.

:func:`compare_runs` answers, in one pass over each typed stream (stopping at
the first difference) plus the projections both runs already build:

- whether the runs are the same in substance (:mod:`lens.compare.events`
  says what is volatile);
- the first typed event where they part, the differing field, and the step
  of each run's lens projection that holds it (:mod:`lens.placement`);
- the first model call served differently, its slots and the pieces added,
  removed or changed (:mod:`lens.compare.served`, :mod:`lens.compare.pieces`);
- both step lists aligned (:mod:`lens.compare.alignment`; the rows it had to
  pair by position instead, if any, in ``alignment_fallback``), both route
  paths, and how each run ended (:mod:`lens.compare.outcome`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recorders.deep_parse import parsing
from recorders.loading import PARSE_RECURSION_LIMIT
from lens.compare.alignment import AlignedRow, PairedByPosition, align_steps
from lens.compare.events import (EventComparer, EventDifference, ProviderIds,
                                 first_event_difference)
from lens.compare.evidence_adapter import served_pieces
from lens.compare.outcome import RunEnding, run_ending
from lens.compare.pieces import SlotPieces, diff_pieces
from lens.placement import StepLocator
from lens.plain_words import step_sentence
from lens.compare.served import ServedCalls, ServedDifference, first_served_difference

PROFILE = "lens"


@dataclass(frozen=True)
class EventSide:
    """One run's side of the first difference (all None past the end of its stream)."""

    typed_index: int | None
    type: str | None
    runtime_stage_id: str | None
    subflow_path: tuple[str, ...] | None
    step: tuple[tuple[str, ...], int] | None  # (scope path, index) in the lens projection
    # What happened at that step, in plain words (lens.plain_words), and how many steps its
    # scope has; None where there is no step.
    step_words: str | None = None
    scope_steps: int | None = None


@dataclass(frozen=True)
class FirstDifference:
    field: str
    a: EventSide
    b: EventSide


@dataclass(frozen=True)
class ServedContextDifference:
    call_index_a: int | None
    call_index_b: int | None
    start_index_a: int | None
    start_index_b: int | None
    slots: tuple[str, ...]
    pieces: tuple[SlotPieces, ...]     # per differing slot, when the evidence index has them
    step_a: tuple[tuple[str, ...], int] | None
    step_b: tuple[tuple[str, ...], int] | None


@dataclass(frozen=True)
class RunComparison:
    identical: bool
    first_difference: FirstDifference | None
    served_difference: ServedContextDifference | None
    ending_a: RunEnding
    ending_b: RunEnding
    route_a: tuple[str, ...]
    route_b: tuple[str, ...]
    alignment: tuple[AlignedRow, ...]
    alignment_fallback: PairedByPosition | None  # rows paired by position, not aligned
    first_difference_row: int | None   # the alignment row holding the first difference
    typed_events: tuple[int, int]
    model_calls: tuple[int, int]
    notes: tuple[str, ...]


class _Side:
    """What the comparison reads of one run, built once per comparison."""

    def __init__(self, run: Any) -> None:
        self.run = run
        self.events = run.recording.typed_events
        self.has_typed = run.recording.has_typed_stream
        self.ids = ProviderIds.collect(self.events)
        self.served = ServedCalls(self.events, run.evidence)
        run_ids = run.recording.typed_run_ids
        self.locator = StepLocator(run.scopes(PROFILE), self.events, self.served.served_to,
                                   run_ids[-1] if len(run_ids) > 1 else None)

    def event_side(self, index: int | None) -> EventSide:
        if index is None:
            return EventSide(None, None, None, None, None)
        event = self.events[index]
        meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
        path = meta.get("subflowPath")
        step = self.locator.step_of(index)
        words, count = self._step_words(step)
        return EventSide(index, _str(event.get("type")), _str(meta.get("runtimeStageId")),
                         tuple(path) if isinstance(path, list) else None, step, words, count)

    def _step_words(self, step: tuple[tuple[str, ...], int] | None
                    ) -> tuple[str | None, int | None]:
        scope = None if step is None else self.run.scopes(PROFILE).get(step[0])
        if scope is None or not 0 <= step[1] < len(scope.steps):
            return None, None
        return step_sentence(scope.steps[step[1]], self.run.evidence).text, len(scope.steps)

    def route(self) -> tuple[str, ...]:
        return tuple(str(skill) for skill in self.run.projection(PROFILE).route.get_path())


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def compare_runs(run_a: Any, run_b: Any) -> RunComparison:
    """Compare two open runs (A first). Pure: reads the runs, changes nothing."""
    with parsing(PARSE_RECURSION_LIMIT):  # payloads may nest as deep as the loader allows
        return _compare(_Side(run_a), _Side(run_b))


def _compare(a: _Side, b: _Side) -> RunComparison:
    notes = [f"run {name} has no typed event stream (a bare boundary-event list): "
             "its events cannot be compared" for name, side in (("A", a), ("B", b))
             if not side.has_typed]
    comparer = EventComparer(a.ids, b.ids)
    difference = first_event_difference(a.events, b.events, comparer)
    first = _first_difference(difference, a, b)
    served = first_served_difference(a.served, b.served, comparer)
    served_view = _served_view(served, a, b) if served is not None else None
    steps = align_steps(a.locator.rows, b.locator.rows)
    alignment = steps.rows
    identical = not notes and first is None and served is None
    return RunComparison(
        identical=identical,
        first_difference=first,
        served_difference=served_view,
        ending_a=run_ending(a.run),
        ending_b=run_ending(b.run),
        route_a=a.route(),
        route_b=b.route(),
        alignment=alignment,
        alignment_fallback=steps.paired_by_position,
        first_difference_row=_row_of(alignment, first),
        typed_events=(len(a.events), len(b.events)),
        model_calls=(len(a.served), len(b.served)),
        notes=tuple(notes),
    )


def _first_difference(difference: EventDifference | None, a: _Side, b: _Side
                      ) -> FirstDifference | None:
    if difference is None:
        return None
    return FirstDifference(difference.field, a.event_side(difference.index_a),
                           b.event_side(difference.index_b))


def _served_view(served: ServedDifference, a: _Side, b: _Side) -> ServedContextDifference:
    pieces: list[SlotPieces] = []
    by_slot_a = (served_pieces(a.run.evidence, served.start_index_a)
                 if served.start_index_a is not None else {})
    by_slot_b = (served_pieces(b.run.evidence, served.start_index_b)
                 if served.start_index_b is not None else {})
    if by_slot_a is not None and by_slot_b is not None:
        pieces = [diff_pieces(slot, by_slot_a.get(slot, []), by_slot_b.get(slot, []))
                  for slot in served.slots]
    return ServedContextDifference(
        served.call_index_a, served.call_index_b, served.start_index_a, served.start_index_b,
        served.slots, tuple(pieces),
        a.locator.step_of(served.start_index_a) if served.start_index_a is not None else None,
        b.locator.step_of(served.start_index_b) if served.start_index_b is not None else None)


def _row_of(alignment: tuple[AlignedRow, ...], first: FirstDifference | None) -> int | None:
    if first is None:
        return None
    for position, row in enumerate(alignment):
        if ((first.a.step is not None and row.a is not None
             and (row.a.path, row.a.index) == first.a.step)
                or (first.b.step is not None and row.b is not None
                    and (row.b.path, row.b.index) == first.b.step)):
            return position
    return None

"""Which step holds each raw event of an open run, for the raw events page.

Both streams are placed by the one rule of :mod:`lens.placement`. A typed
context event served to a model call is placed with that call (the evidence
index knows which call each piece and slot composition was served to). A
boundary event carries its stage and subflow path at the top level and
describes the steps' own run, so it is placed as a typed event of that run
would be.
"""

from __future__ import annotations

from typing import Any, Mapping

from recorders.evidence import EvidenceIndex
from lens.placement import StepLocator
from recorders.values import ROOT_PATH as ROOT
from lens.scopes import ScopeIndex

TYPED, BOUNDARY = "typed", "boundary"


class EventPlaces:
    """(scope path, step index) of the step holding any event of either stream."""

    def __init__(self, scopes: ScopeIndex, evidence: EvidenceIndex,
                 typed_events: list[Any], boundary_events: list[Any],
                 typed_run_ids: tuple[Any, ...] | list[Any] = ()) -> None:
        last_run = typed_run_ids[-1] if len(typed_run_ids) > 1 else None
        self._typed = StepLocator(scopes, typed_events, served_to(evidence), last_run)
        self._boundary = StepLocator(scopes, [_as_typed(e) for e in boundary_events], {})

    def step_of(self, stream: str, event_index: int) -> tuple[tuple[str, ...], int] | None:
        locator = self._typed if stream == TYPED else self._boundary
        return locator.step_of(event_index)


def served_to(evidence: EvidenceIndex) -> Mapping[int, int]:
    """Typed context event index → the ``llm_start`` index of the call first
    served it (a slot carried over to a later call stays with the first)."""
    found: dict[int, int] = {}
    for call in evidence.calls:
        for slot in call.slots.values():
            if slot.origin != "fresh":
                continue
            if slot.composed_event_index is not None:
                found.setdefault(slot.composed_event_index, call.start_event_index)
            for piece in slot.pieces:
                found.setdefault(piece.event_index, call.start_event_index)
    return found


def _as_typed(event: Any) -> dict:
    """A boundary event in the shape the locator reads (``type`` and ``meta``)."""
    if not isinstance(event, dict):
        return {}
    path = event.get("subflowPath")
    segments = list(path) if isinstance(path, list) else []
    if segments[:1] == list(ROOT):
        segments = segments[1:]
    # The payload says whether a run.exit reports a crash (placed where it happened).
    return {"type": event.get("type"), "payload": event.get("payload"),
            "meta": {"runtimeStageId": event.get("runtimeStageId"), "subflowPath": segments}}

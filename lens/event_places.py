"""The step of any event of either stream, for the raw events page.

Typed events are placed by the one rule of :mod:`lens.evidence.event_nav`
(Search, Backtrack, the likely causes and the HTML export use it too); raw
events of the boundary log, where the steps come from, by the boundary order
of :mod:`lens.placement`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from recorders.evidence import EvidenceIndex, StepMap
from recorders.values import ROOT_PATH as ROOT
from lens.evidence.event_nav import nav_for_event
from lens.placement import StepLocator
from lens.run import OpenRun
from lens.scopes import ScopeIndex
from lens.step_places import ScopedSteps, StepPlace

TYPED, BOUNDARY = "typed", "boundary"


@dataclass(frozen=True)
class EventPlace:
    """The step an event is shown at, and whether exactly (else it happened
    after it; or, ``before``, before it)."""

    place: StepPlace
    exact: bool
    before: bool = False


class EventPlaces:
    """The step of any event of either stream, for the raw events page: typed
    events by :func:`nav_for_event` over the root's step list (``everywhere``,
    which reaches every scope), boundary events by their order."""

    def __init__(self, scopes: ScopeIndex, evidence: EvidenceIndex, typed_events: list[Any],
                 boundary_events: list[Any], everywhere: ScopedSteps,
                 step_map: StepMap) -> None:
        self._scopes = scopes
        self._evidence = evidence
        self._typed = typed_events
        self._everywhere = everywhere
        self._step_map = step_map
        self._boundary = StepLocator(scopes, [_as_typed(e) for e in boundary_events], {})

    @classmethod
    def for_run(cls, run: OpenRun, profile: str) -> EventPlaces:
        """Every event of ``run`` placed on ``profile``'s steps."""
        recording = run.recording
        return cls(run.scopes(profile), run.evidence, recording.typed_events,
                   recording.boundary_events, run.scoped_steps(profile, ROOT),
                   run.step_map(profile, ROOT))

    def step_of(self, stream: str, event_index: int) -> EventPlace | None:
        if stream != TYPED:
            found = self._boundary.step_of(event_index)
            if found is None:
                return None
            path, index = found
            return EventPlace(StepPlace(path, index, len(self._scopes.get(path).steps)), True)
        if not 0 <= event_index < len(self._typed):
            return None
        nav = nav_for_event(self._evidence, self._step_map, event_index)
        place = self._everywhere.place(nav.step) if nav is not None else None
        return None if place is None else EventPlace(place, nav.exact, nav.before)

    def latest_typed(self, event_indexes: Iterable[int]) -> EventPlace | None:
        """Of these typed events' steps, the latest in run order (the root's list
        is in run order and reaches every scope); None when none has a step."""
        best = None
        for event_index in event_indexes:
            if not 0 <= event_index < len(self._typed):
                continue
            nav = nav_for_event(self._evidence, self._step_map, event_index)
            # What came before every step leads to the first step, but no step
            # shows it: a stage that ran only then (Initialize) has no step.
            if nav is None or nav.before or self._everywhere.place(nav.step) is None:
                continue
            if best is None or nav.step >= best.step:
                best = nav
        return None if best is None else EventPlace(self._everywhere.place(best.step), best.exact)


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

"""Which step shows a typed event: one rule for every surface.

Search, Backtrack, the likely causes, the raw events page and the HTML export
each link an event to a step. They used to place it each their own way (the
raw events page by execution order, the others by the call the event belongs
to and by time), so one event could be "step 5 of 6" in one panel and "6 of 6"
in another. :func:`nav_for_event` is the one rule, the evidence links' own,
keyed by what the event belongs to, first match wins:

1. a framework finding (a verdict or warning) is placed as its cause is: at
   its tool call, its model call, or the step at its time;
2. a tool call's start or end: at the step that shows the tool call (the
   asking call's end, else the last step at or before the tool started);
3. a model call's start or end: at the step that shows that end of the call;
4. a searchable text tied to a call or tool (a model output is the call's
   end; anything else its start), or a context event: at the call first
   served it;
5. anything else: the last step at or before its time, which means it
   happened between that step and the next.

Raw events of the boundary log are where the steps come from: they are placed
by the boundary order of :mod:`lens.placement`.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from recorders.evidence import EvidenceIndex, StepMap
from recorders.evidence.records import BY_FINAL_ANSWER, BY_LAST_CALL, CONSUMER_SCOPE
from recorders.run_step import RunStep
from recorders.values import ROOT_PATH as ROOT
from recorders.values import number_or_none
from lens.evidence.nav import Nav, nav_for_call, nav_for_tool
from lens.placement import StepLocator, execution_index
from lens.run import OpenRun
from lens.scopes import ScopeIndex
from lens.step_places import ScopedSteps, StepPlace

TYPED, BOUNDARY = "typed", "boundary"

# What an event belongs to, by its typed index: ("finding", finding),
# ("tool", tool id), ("call", (call id, at its end?)).
Owner = tuple[str, Any]
_OWNERS: dict[int, dict[int, Owner]] = {}  # id(index) → its owners, dropped with the index


def event_owners(index: EvidenceIndex) -> Mapping[int, Owner]:
    """Typed event index → what it belongs to, by the rule's order (built once per index)."""
    key = id(index)
    owners = _OWNERS.get(key)
    if owners is not None:
        return owners
    owners = {}
    for finding in index.findings:
        owners.setdefault(finding.event_index, ("finding", finding))
    for tool in index.tool_calls:
        for position in (tool.start_event_index, tool.end_event_index):
            if position is not None:
                owners.setdefault(position, ("tool", tool.id))
    for call in index.calls:
        owners.setdefault(call.start_event_index, ("call", (call.id, False)))
        if call.end_event_index is not None:
            owners.setdefault(call.end_event_index, ("call", (call.id, True)))
    for entry in index.search_entries:
        if entry.event_index is None:
            continue
        if entry.tool is not None:
            owners.setdefault(entry.event_index, ("tool", entry.tool))
        elif entry.call is not None:
            owners.setdefault(entry.event_index,
                              ("call", (entry.call, entry.kind == "model output")))
    for position, call_id in first_served_call(index).items():
        owners.setdefault(position, ("call", (call_id, False)))
    _OWNERS[key] = owners
    weakref.finalize(index, _OWNERS.pop, key, None)
    return owners


def nav_for_event(index: EvidenceIndex, step_map: StepMap | None,
                  event_index: int) -> Nav | None:
    """Where typed event ``event_index`` is shown, as a position in
    ``step_map``'s steps (see the module doc for the rule)."""
    if step_map is None:
        return None
    kind, owner = event_owners(index).get(event_index, ("time", None))
    if kind == "finding" and owner.tool is not None:
        return nav_for_tool(index, step_map, owner.tool)
    if kind == "finding" and owner.call is not None:
        return nav_for_call(index, step_map, owner.call,
                            end=owner.placed_by in (BY_LAST_CALL, BY_FINAL_ANSWER))
    if kind == "tool":
        return nav_for_tool(index, step_map, owner)
    if kind == "call":
        call_id, end = owner
        return nav_for_call(index, step_map, call_id, end=end)
    if not step_map.steps:
        return Nav(None, False, why_no_step="the run has no steps")
    events = index.stages.typed_events
    event = events[event_index] if 0 <= event_index < len(events) else None
    meta = event.get("meta") if isinstance(event, dict) else None
    meta = meta if isinstance(meta, dict) else {}
    run_id = meta.get("runId")
    if run_id not in (None, CONSUMER_SCOPE) and not index.in_shown_run(run_id):
        return Nav(None, False, why_no_step="this event belongs to an earlier run, which has "
                                            "no steps")
    step = _step_at_its_time(step_map.steps, number_or_none(meta.get("wallClockMs")),
                             meta.get("subflowPath"))
    if step is None:
        return Nav(None, False, why_no_step="no step at or before this event")
    return Nav(step, False, why_no_step="no call is tied to this event; the step at its time")


def _step_at_its_time(steps: Sequence[RunStep], at: float | None,
                      subflow_path: Any) -> int | None:
    """The last step at or before ``at`` among the steps of the event's own
    scope (anchored at the deepest path enclosing its subflow path), else of
    the scopes around it, else of any scope; ties in time in run order. Without a time, the
    scope's last step. Which steps are candidates and their order never
    depend on the list's order, so every scope on screen gets the same step."""
    segments = subflow_path if isinstance(subflow_path, list) else []
    path = ROOT + tuple(s for s in segments if isinstance(s, str))
    by_depth: dict[int, list[int]] = {}
    for position, step in enumerate(steps):
        anchored = tuple(step.anchor.subflow_path)
        if path[:len(anchored)] == anchored:
            by_depth.setdefault(len(anchored), []).append(position)
    # Last, every step: a composition's own events may sit above every step's anchor.
    by_depth[-1] = list(range(len(steps)))
    for depth in sorted(by_depth, reverse=True):
        earlier = [p for p in by_depth[depth] if at is None or steps[p].ts_ms <= at]
        if earlier:
            return max(earlier, key=lambda p: _run_order(steps[p]))
    return None


def _run_order(step: RunStep) -> tuple:
    """A step's place in the run whatever list holds it: its time, then the
    engine's count of stages run, then whether it closes its stage (a model
    call's end after its start, both at one stage and one millisecond)."""
    execution = execution_index(step.anchor.runtime_stage_id)
    return (step.ts_ms, execution if execution is not None else -1, step.kind, step.label)


@dataclass(frozen=True)
class EventPlace:
    """The step an event is shown at, and whether exactly (else it happened after it)."""

    place: StepPlace
    exact: bool


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
        return None if place is None else EventPlace(place, nav.exact)


def first_served_call(evidence: EvidenceIndex) -> Mapping[int, int]:
    """Typed context event index → the id of the model call first served it
    (a slot carried over to a later call stays with the first)."""
    found: dict[int, int] = {}
    for call in evidence.calls:
        for slot in call.slots.values():
            if slot.origin != "fresh":
                continue
            if slot.composed_event_index is not None:
                found.setdefault(slot.composed_event_index, call.id)
            for piece in slot.pieces:
                found.setdefault(piece.event_index, call.id)
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

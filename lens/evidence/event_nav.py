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
4. a searchable text tied to a call or tool (a model output, and the route
   decided on it, is the call's end; anything else its start), or a context
   event: at the call first served it;
5. a note the evidence keeps on a tool call or a model call (a permission
   check, a memory strategy's pass, a skill graph moving the turn, an
   eviction): at that tool call, or at the start of the call it came before;
   a finding that fired between two calls is placed this way too, when it
   is such a note (else at the end of the call before it);
6. an event at a stage a step is anchored at: that step (the first in run order);
7. anything else: the last step at or before its time, which means it
   happened between that step and the next; an event before every step
   (a guard reading the user's message before the first model call) leads to
   the run's first step, said to come before it.
"""

from __future__ import annotations

import weakref
from typing import Any, Mapping, Sequence

from recorders.evidence import EvidenceIndex, StepMap
from recorders.evidence.records import BY_FINAL_ANSWER, BY_LAST_CALL
from recorders.run_step import RunStep
from recorders.values import ROOT_PATH as ROOT
from recorders.values import number_or_none
from lens.evidence.nav import (BEFORE_THE_FIRST_STEP, Nav, before_the_steps, nav_for_call,
                               nav_for_tool, unshown_part)
from lens.placement import execution_index
from lens.step_detail import LLM_TO_TOOL, LLM_TO_USER, actor_arrow

# What an event belongs to, by its typed index: ("finding", finding),
# ("tool", tool id), ("call", (call id, at its end?)).
Owner = tuple[str, Any]
AT_CALL_END = frozenset({"model output", "route reason"})  # search kinds shown at a call's end
_OWNERS: dict[int, dict[int, Owner]] = {}  # id(index) → its owners, dropped with the index


def event_owners(index: EvidenceIndex) -> Mapping[int, Owner]:
    """Typed event index → what it belongs to, by the rule's order (built once per index)."""
    key = id(index)
    owners = _OWNERS.get(key)
    if owners is not None:
        return owners
    owners = {}
    # A finding tied only to the call that had just ended (it fired between
    # two calls) yields to a closer tie: the call its context was composed for.
    between_calls = []
    for finding in index.findings:
        if finding.tool is None and finding.placed_by == BY_LAST_CALL:
            between_calls.append(finding)
        else:
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
            # A model output, and the route taken on it, come at the call's end.
            owners.setdefault(entry.event_index,
                              ("call", (entry.call, entry.kind in AT_CALL_END)))
    for position, call_id in first_served_call(index).items():
        owners.setdefault(position, ("call", (call_id, False)))
    for tool in index.tool_calls:
        for note in tool.notes:
            owners.setdefault(note.event_index, ("tool", tool.id))
    for call in index.calls:
        for position in [note.event_index for note in call.notes] + \
                [eviction.event_index for eviction in call.evictions]:
            owners.setdefault(position, ("call", (call.id, False)))
    for finding in between_calls:
        owners.setdefault(finding.event_index, ("finding", finding))
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
    unshown = unshown_part(index, run_id, "this event", step_map,
                           number_or_none(meta.get("wallClockMs")))
    # Before the first step of a part the steps show: placed as any such event, below.
    if unshown is not None and unshown != BEFORE_THE_FIRST_STEP:
        return Nav(None, False, why_no_step=unshown)
    stage = meta.get("runtimeStageId")
    # A step anchored at the event's own stage shows it (a router's decision at its step).
    at_stage = step_map.steps_at_stage(stage) if isinstance(stage, str) else ()
    if at_stage:
        return Nav(min(at_stage, key=lambda p: _run_order(step_map.steps[p])), True)
    step = _step_at_its_time(step_map.steps, number_or_none(meta.get("wallClockMs")),
                             meta.get("subflowPath"))
    if step is None:
        why = before_the_steps(index, step_map)
        if why != BEFORE_THE_FIRST_STEP:  # the steps begin after a resume: not this part's
            return Nav(None, False, why_no_step=why)
        first = min(range(len(step_map.steps)), key=lambda p: _run_order(step_map.steps[p]))
        return Nav(first, False, why_no_step=why, before=True)
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
    call's end after its start, both at one stage and often one millisecond:
    both are react steps, so only the arrow tells them apart), then kind and label."""
    execution = execution_index(step.anchor.runtime_stage_id)
    closes = actor_arrow(step) in (LLM_TO_TOOL, LLM_TO_USER)
    return (step.ts_ms, execution if execution is not None else -1, closes, step.kind,
            step.label)


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

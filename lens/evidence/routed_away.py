"""Routed away: a route sent the request where it could not be answered.

Two routes decide where a request goes before any model reads it, and both
are recorded as context, not as a fault, so no verdict tells when they went
wrong:

- a Conditional runs the first branch whose predicate holds
  (``composition.route_decided``); when a tool of the chosen branch then
  reports an honest absence (found nothing), the request may well have
  belonged to another branch;
- a skill graph decides at each turn where the turn begins
  (``skill.turn_routed``); when it moves a turn from one skill to another,
  the first skill's instructions leave the prompt, and what they asked for
  with them.

Owns finding those two, in a person's words, from the events' structure.
Does not own: rejected skill routes and governor trips (those are
:mod:`lens.evidence.causes`'s route causes), the record (:mod:`lens.evidence.cause_record`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any, Sequence

from recorders.catalogue import COMPOSITION_ENTER, COMPOSITION_ROUTE_DECIDED, \
    SKILL_TURN_ROUTED, TOOL_END, TOOLS_ABSENT, short_name
from recorders.evidence import SYSTEM_PROMPT, EvidenceIndex, ModelCall, StepMap, ToolCall
from recorders.values import is_number
from lens.evidence.cause_record import WARNING, LikelyCause, event_detail
from lens.evidence.event_nav import nav_for_event
from lens.evidence.nav import call_in_words, nav_for_call
from lens.text import one_line
from lens.wording import and_words, number, plural, quoted, times

MISROUTE_KIND = "routed to a branch that found nothing"
TURN_ROUTED_KIND = "turn moved to another skill"
NAME_CHARS = 60
_TURN_ROUTED_NOTE = short_name(SKILL_TURN_ROUTED)
_ABSENT = "absent"  # a tool_end status: the tool ran and honestly found nothing
_ABSENT_NOTE = short_name(TOOLS_ABSENT)
# Both spellings a recording may use (with or without the prefix): a set look-up per event.
_ENTER, _ROUTE, _TOOL_END = (frozenset({t, short_name(t)}) for t in
                             (COMPOSITION_ENTER, COMPOSITION_ROUTE_DECIDED, TOOL_END))


def routed_away(index: EvidenceIndex, step_map: StepMap | None) -> list[LikelyCause]:
    """Misroutes of a Conditional, then turns a skill graph moved, in event order."""
    return _misroutes(index, step_map) + _turns_moved(index, step_map)


def _name(value: object) -> str:
    return one_line(value if isinstance(value, str) else "(no name recorded)", NAME_CHARS)


def _type(event: Any) -> str | None:
    kind = event.get("type") if isinstance(event, dict) else None
    return kind if isinstance(kind, str) else None


def _payload(event: Any) -> dict:
    payload = event.get("payload") if isinstance(event, dict) else None
    return payload if isinstance(payload, dict) else {}


def _meta(event: Any) -> dict:
    meta = event.get("meta") if isinstance(event, dict) else None
    return meta if isinstance(meta, dict) else {}


def _path(event: Any) -> tuple[str, ...]:
    path = _meta(event).get("subflowPath")
    return tuple(str(part) for part in path if part != "__root__") \
        if isinstance(path, list) else ()


# ─── A Conditional's branch that found nothing ─────────────────────────


def _misroutes(index: EvidenceIndex, step_map: StepMap | None) -> list[LikelyCause]:
    """One cause per router and branch: a Conditional in a loop that picks the
    same branch on every pass, to the same honest absence, is one finding."""
    events = index.stages.typed_events
    children: dict[str, object] = {}  # conditional id → its child count (composition.enter)
    routes: list[tuple[int, dict, tuple]] = []  # (position, event, the router's key)
    for position, event in enumerate(events):
        kind = _type(event)
        payload = _payload(event)
        if kind in _ENTER and isinstance(payload.get("id"), str):
            children[payload["id"]] = payload.get("childCount")
        elif kind in _ROUTE and isinstance(payload.get("chosen"), str):
            router = payload.get("conditionalId")
            key = (_meta(event).get("runId"), _path(event),
                   router if isinstance(router, str) else None)
            routes.append((position, event, key))
    tools = sorted((t for t in index.tool_calls if t.start_event_index is not None),
                   key=lambda t: t.start_event_index)
    starts = [t.start_event_index for t in tools]
    found: dict[tuple, list[tuple[int, dict, list[ToolCall]]]] = {}
    for number_, (position, event, key) in enumerate(routes):
        # The branch's tools are those that started before the router's next decision.
        until = next((p for p, _, k in routes[number_ + 1:] if k == key), len(events))
        branch = key[1] + (_payload(event)["chosen"],)
        absent = [tool for tool in tools[bisect_right(starts, position):
                                         bisect_left(starts, until)]
                  if tool.run_id == key[0] and tool.scope[:len(branch)] == branch
                  and _found_nothing(events, tool)]
        if absent:
            found.setdefault(key + (branch,), []).append((position, event, absent))
    return [_misroute(index, step_map, decisions, branch, children.get(key[2]))
            for (*key, branch), decisions in found.items()]


def _found_nothing(events: Sequence[dict], tool: ToolCall) -> bool:
    """Whether the tool ran and reported an absence: its end's status, or a
    ``tools.absent`` note when the agent's own events were recorded."""
    if any(note.type == _ABSENT_NOTE for note in tool.notes):
        return True
    if tool.end_event_index is None or _type(events[tool.end_event_index]) not in _TOOL_END:
        return False
    return _payload(events[tool.end_event_index]).get("status") == _ABSENT


def _misroute(index: EvidenceIndex, step_map: StepMap | None,
              decisions: list[tuple[int, dict, list[ToolCall]]], branch: tuple[str, ...],
              child_count: object) -> LikelyCause:
    position, event, absent = decisions[0]
    payload = _payload(event)
    chosen, router = payload["chosen"], payload.get("conditionalId")
    first = absent[0]
    prompt = next((turn.user_prompt for turn in index.turns
                   if turn.run_id == first.run_id and turn.scope[:len(branch)] == branch
                   and isinstance(turn.user_prompt, str)), None)
    request = f" {quoted(prompt)}" if prompt else " the request"
    headline = (f"Router {_name(router)} sent{request} to {_name(chosen)}, where "
                f"{_name(first.name)} found nothing")
    rationale = payload.get("rationale")
    others = sum(len(tools) for _, _, tools in decisions) - 1
    why = ("The router runs the first branch whose condition holds"
           + (f" (its words: {quoted(rationale)})" if isinstance(rationale, str) else "")
           + ", so the request never reached "
           + _other_branches(child_count)
           + f". In {_name(chosen)}, {_absence_words(first)}"
           + (f"; {plural(others, 'more tool call')} there found nothing too" if others else "")
           + (f"; the router chose {_name(chosen)} this way {times(len(decisions))}"
              if len(decisions) > 1 else "")
           + ". A branch whose tools honestly find nothing for the request is often the "
             "wrong branch for it.")
    rests_on = [p for p, _, _ in decisions] + [t.end_event_index for _, _, tools in decisions
                                               for t in tools if t.end_event_index is not None]
    return LikelyCause(MISROUTE_KIND, WARNING, headline, one_line(why), event_detail(event),
                       nav_for_event(index, step_map, position), tuple(rests_on), chosen)


def _other_branches(child_count: object) -> str:
    """``its other branch``, ``its other 2 branches``: the children of the
    router (``composition.enter``'s count) but the one it chose."""
    if not is_number(child_count) or child_count < 2:
        return "its other branches"
    if child_count == 2:
        return "its other branch"
    return f"its other {plural(child_count - 1, 'branch')}"


def _absence_words(tool: ToolCall) -> str:
    """``find_invoices looked for “invoices matching "charger"” and found nothing; it did
    not check marketplace orders``: the absence's own words where it recorded them."""
    result = tool.result if isinstance(tool.result, dict) else {}
    looked = result.get("looked_for")
    words = (f"{_name(tool.name)} looked for {quoted(looked)} and found nothing"
             if isinstance(looked, str) else
             f"{_name(tool.name)} found nothing"
             + (f": {quoted(tool.result)}" if isinstance(tool.result, str) and tool.result
                else ""))
    listed = result.get("not_checked")
    unchecked = [item.get("what") for item in (listed if isinstance(listed, list) else ())
                 if isinstance(item, dict) and isinstance(item.get("what"), str)]
    if unchecked:
        words += f"; it did not check {and_words([quoted(what) for what in unchecked[:3]])}"
    return words


# ─── A turn a skill graph moved to another skill ───────────────────────


def _turns_moved(index: EvidenceIndex, step_map: StepMap | None) -> list[LikelyCause]:
    causes = []
    for call in index.calls:
        for note in call.notes:
            payload = note.payload if isinstance(note.payload, dict) else {}
            left, to = payload.get("from"), payload.get("to")
            if note.type != _TURN_ROUTED_NOTE or not isinstance(left, str) \
                    or not isinstance(to, str) or left == to:
                continue
            before = _instructions_of(index.calls[:call.id], left, call.scope)
            if before is None or _instructions_of([call], left, call.scope) is not None:
                continue  # the skill left nothing in the prompt, or it is still there
            causes.append(_turn_moved(index, step_map, call, note.event_index, payload, before))
    return causes


def _instructions_of(calls: Sequence[ModelCall], skill: str,
                     scope: tuple[str, ...]) -> tuple[str, ModelCall] | None:
    """The last text skill ``skill`` put in the system prompt of these calls of
    ``scope``, and the call it was served to."""
    found = None
    for call in calls:
        if call.scope != scope or SYSTEM_PROMPT not in call.slots:
            continue
        for piece in call.slots[SYSTEM_PROMPT].pieces:
            if piece.source == "skill" and piece.source_id == skill:
                found = (piece.content or "", call)
    return found


def _turn_moved(index: EvidenceIndex, step_map: StepMap | None, call: ModelCall,
                position: int, payload: dict,
                instructions: tuple[str, ModelCall]) -> LikelyCause:
    left, to = payload["from"], payload["to"]
    text, served = instructions
    turns = [turn for turn in index.turns if turn.scope == call.scope]
    number_of = next((n for n, turn in enumerate(turns, 1) if turn.run_id == call.run_id), None)
    which = f"Turn {number_of}" if number_of is not None else "A turn"
    prompt = f" ({quoted(call.user_prompt)})" if isinstance(call.user_prompt, str) else ""
    headline = (f"{which}{prompt} was moved from {_name(left)} to {_name(to)}, and "
                f"{_name(left)}'s instructions left the prompt")
    by, scorer = payload.get("by"), payload.get("scorer")
    why = ("The skill graph decided where the turn begins"
           + (f" by {_name(by)}" if isinstance(by, str) else "")
           + (f", with its {_name(scorer)} scorer" if isinstance(scorer, str) else "")
           + _scores(payload, (to, left))
           + (", a decisive margin" if payload.get("decisive") is True else "")
           + f". {call_in_words(call).capitalize()} was no longer served {_name(left)}'s "
             f"{quoted(text)}"
           + (f", and it answered {quoted(call.output)}" if call.output else "")
           + (f". The request {_name(left)} had been serving ({quoted(served.user_prompt)}) "
              "was left with no instructions for it" if isinstance(served.user_prompt, str)
              and served.user_prompt != call.user_prompt else "")
           + ".")
    return LikelyCause(TURN_ROUTED_KIND, WARNING, headline, one_line(why),
                       event_detail(index.stages.typed_events[position]),
                       nav_for_call(index, step_map, call.id), (position,), to)


def _scores(payload: dict, skills: tuple[str, str]) -> str:
    """`` (shipping 0.62, billing 0.17)``: the scorer's figures for the two skills."""
    listed = payload.get("scores")
    scores = {entry.get("id"): entry.get("score")
              for entry in (listed if isinstance(listed, list) else ())
              if isinstance(entry, dict) and isinstance(entry.get("id"), str)}
    shown = [f"{_name(skill)} {number(scores[skill])}" for skill in skills
             if is_number(scores.get(skill))]
    return f" ({', '.join(shown)})" if shown else ""

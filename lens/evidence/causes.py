"""Likely causes: what most often explains a wrong answer, found before any walk.

A person debugging a run asks first "what went wrong?", not "what fed the
answer?". This lists, in that order of likelihood, the facts of the recording
that usually explain a wrong or missing answer:

1. failed tools (with their error text), tool calls that never ended, and
   calls whose own result says they were denied when no verdict tells it;
2. provider errors: a model call that failed, or never ended;
3. rejected routes and governor trips of a skill graph;
4. context that was cut: pieces evicted or dropped from a slot, budget
   pressure, events the recorder dropped or a run that did not complete;
5. a tool result no later model call in its scope was served;
6. beside those, routes that sent a request where it could not be answered
   (:mod:`lens.evidence.routed_away`), memory a strategy left out
   (:mod:`lens.evidence.memory_folded`) and, in a run with an error, the
   model's recorded reasoning (:mod:`lens.evidence.reasoning`).

Before all of these come the framework's own verdicts (an unmet output
contract, a denied or halted permission check, a fail-fast, a canned answer,
an integrity finding, ...: whatever :mod:`recorders.catalogue` calls a
verdict), one cause each in the order they happened, the first being most
often the root and the later ones its consequences; after them its warnings
(retries, fallbacks, evictions, shadowed tools, ...), one cause per type. A
verdict already told by one of the five (a failed tool's ``tool_end``, the
``error.fatal`` of a failed model call) is not told twice.

Each cause has one line of why, built only from recorded facts (for the
framework's verdicts: the catalogue's meaning and the event's own words, its
explaining fields), the typed indices of the events it rests on (positions in
the recording's ``events``), and a link to the step that shows it. Pure
functions over the evidence index, a step map and (optionally) the
projection's route and the recording's gaps.

Does not own: what counts as a verdict (the catalogue), tying an event to its
call (the evidence index), how the run ended (:mod:`lens.evidence.outcome`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Iterable, Sequence

from recorders.catalogue import CONTEXT_BUDGET_PRESSURE, SKILL_REJECTED, VERDICT, \
    WARNING as WARNING_KIND, short_name
from recorders.evidence import MESSAGES, EvidenceIndex, Finding, ModelCall, StepMap
from recorders.evidence.records import BY_FINAL_ANSWER
from recorders.audit import is_bounded_result
from recorders.gaps import Gap
from recorders.route_recorder import RouteHop, RouteTrip, format_route_hop
from recorders.values import is_number
from lens.evidence.cause_record import ERROR, WARNING, LikelyCause
from lens.evidence.event_nav import event_owners, nav_for_event
from lens.evidence.memory_folded import folded_memories
from lens.evidence.memory_repeated import repeated_memories
from lens.evidence.nav import Nav, call_in_words, call_title, nav_for_call, nav_for_tool
from lens.evidence.plain_headlines import finding_headline
from lens.evidence.reasoning import reasoning_causes
from lens.evidence.routed_away import routed_away
from lens.evidence.ungrounded import ungrounded_answers
from lens.wording import number, plural, quoted, value_words
from lens.route_view import hop_step_index, trip_marks
from lens.text import display_text, format_ms, one_line

# A result in the framework's bracketed refusal form: "[permission denied: why]".
_DENIAL = re.compile(r"\s*\[\s*(?:permission\s+)?denied\b\s*(?::\s*(?P<reason>[^\]]*))?",
                     re.IGNORECASE)
# Gap codes that mean part of the run is missing from the file.
_LOST_EVENT_GAPS = frozenset({"dropped", "incomplete"})
# The type of the notes the evidence index keeps of a context.budget_pressure event.
_BUDGET_PRESSURE_NOTE = short_name(CONTEXT_BUDGET_PRESSURE)
NAME_CHARS = 60
# A framework finding's own words: each explaining field is cut to this many
# characters in its cause's why (the whole payload is the cause's detail).
WORD_CHARS = 240
EVICTED_QUOTE_CHARS = 60
# The growth of a context is told over at most this many calls of its scope.
GROWTH_CALLS = 8


def likely_causes(index: EvidenceIndex, step_map: StepMap | None = None, *,
                  hops: Sequence[RouteHop] = (), trips: Sequence[RouteTrip] = (),
                  gaps: Sequence[Gap] = ()) -> tuple[LikelyCause, ...]:
    """Every likely cause in the run the steps describe, most likely first."""
    served = _served_tool_ids(index)
    found: list[LikelyCause] = []
    found += _tool_failures(index, step_map, served)
    found += _denied_by_result(index, step_map)
    found += _provider_errors(index, step_map)
    found += _route_causes(index, step_map, hops, trips)
    found += routed_away(index, step_map)
    found += _context_cuts(index, step_map, gaps)
    found += folded_memories(index, step_map)
    found += _results_never_served(index, step_map, served)
    answers = ungrounded_answers(index, step_map)  # may tell an evidence-gate verdict
    answers += repeated_memories(index, step_map)
    told = {position for cause in found + answers for position in cause.events}
    verdicts, warnings = _framework_causes(index, step_map, told)
    errors = sorted(verdicts + [c for c in answers if c.is_error], key=lambda c: min(c.events))
    # The model's reasoning is a cause only beside a failure: a run that went
    # well needs no account of what the model thought.
    failed = any(cause.is_error for cause in errors + found)
    reasoning = reasoning_causes(index, step_map) if failed else []
    return tuple(errors + found + [c for c in answers if not c.is_error] + reasoning + warnings)


def _name(value: object) -> str:
    return one_line(value if isinstance(value, str) else "(no name recorded)", NAME_CHARS)


# ─── 1. Tools ──────────────────────────────────────────────────────────


def _tool_failures(index: EvidenceIndex, step_map: StepMap | None,
                   served: frozenset[int]) -> list[LikelyCause]:
    causes = []
    # Every run of the file: a tool that failed before a pause is still why the
    # run went as it did (its link says no step shows it), as for the verdicts.
    for tool in index.tool_calls:
        if not tool.failed and tool.ended:
            continue
        nav = nav_for_tool(index, step_map, tool.id)
        asker = index.asked_by(tool.id)
        asked = f", asked for by {call_in_words(asker)}" if asker is not None else ""
        if tool.failed:
            took = f" after {format_ms(tool.duration_ms)}" if tool.duration_ms is not None else ""
            causes.append(LikelyCause(
                "failed tool", ERROR, f"Tool {_name(tool.name)} failed{took}"
                + (f": {quoted(tool.result)}" if _said(tool.result) else ""),
                f"The tool returned an error{asked}; the model was served this error text "
                "instead of a result." if tool.id in served else
                f"The tool returned an error{asked}.",
                display_text(tool.result) if tool.has_result else None, nav,
                _positions(tool.start_event_index, tool.end_event_index), _recorded(tool.name)))
        elif not tool.ended:
            causes.append(LikelyCause(
                "tool did not end", ERROR, f"Tool {_name(tool.name)} never returned",
                f"The recording has the tool call's start but no end{asked}.", None, nav,
                _positions(tool.start_event_index), _recorded(tool.name)))
    return causes


def _denied_by_result(index: EvidenceIndex, step_map: StepMap | None) -> list[LikelyCause]:
    """Tool calls whose own result says they were refused (9.62's bracketed
    ``[permission denied: …]``) and that no recorded verdict tells: inside a
    composition the permission events never reach the recording, and the
    result is then the only account of the refusal."""
    told = {finding.tool for finding in index.findings
            if finding.kind == VERDICT and finding.tool is not None}
    causes = []
    for tool in index.tool_calls:
        if tool.id in told or not isinstance(tool.result, str):
            continue
        denial = _DENIAL.match(tool.result)
        if denial is None:
            continue
        reason = (denial.group("reason") or "").strip()
        causes.append(LikelyCause(
            "denied tool call", ERROR,
            f"The call to {_name(tool.name)} was refused"
            + (f": {quoted(reason)}" if reason else ""),
            "The tool's own result says the call was denied; the recording holds no permission "
            "or middleware event for it, so these words are its only account.",
            display_text(tool.result), nav_for_tool(index, step_map, tool.id),
            _positions(tool.start_event_index, tool.end_event_index), _recorded(tool.name)))
    return causes


def _carries(call: ModelCall, tool_id: int) -> bool:
    """Whether ``call`` was served the result of tool call ``tool_id`` (a piece
    with no text at all is in no search entry, so it is looked for here)."""
    return any(piece.tool_call == tool_id for piece in call.slots[MESSAGES].pieces)


def _served_tool_ids(index: EvidenceIndex) -> frozenset[int]:
    """Tool calls whose result some model call was served: the index stores each
    served text once with the calls it was served to."""
    return frozenset(entry.tool for entry in index.search_entries
                     if entry.kind == "message" and entry.tool is not None and entry.served_in)


# ─── 2. Provider ───────────────────────────────────────────────────────


def _provider_errors(index: EvidenceIndex, step_map: StepMap | None) -> list[LikelyCause]:
    causes = []
    for call in index.shown_calls():
        nav = nav_for_call(index, step_map, call.id)
        provider = f" ({_name(call.provider)})" if isinstance(call.provider, str) else ""
        if call.failure is not None:
            causes.append(LikelyCause(
                "provider error", ERROR, f"{_call_name(call).capitalize()} failed"
                + (f": {quoted(call.failure)}" if _said(call.failure) else ""),
                f"A fatal error was recorded while this model call{provider} was open, so it "
                "gave no answer.", display_text(call.failure), nav,
                _positions(call.start_event_index, call.failure_event_index),
                _recorded(call.provider) or _recorded(call.model)))
        elif not call.ended:
            causes.append(LikelyCause(
                "model call did not end", ERROR, f"{_call_name(call).capitalize()} never ended",
                f"The recording has this model call's start{provider} but no end or error.",
                None, nav, _positions(call.start_event_index),
                _recorded(call.provider) or _recorded(call.model)))
    return causes


# ─── 3. Route ──────────────────────────────────────────────────────────


def _route_causes(index: EvidenceIndex, step_map: StepMap | None, hops: Sequence[RouteHop],
                  trips: Sequence[RouteTrip]) -> list[LikelyCause]:
    steps = step_map.steps if step_map is not None else ()
    # The skill.rejected event behind each rejected hop, in order, by skill
    # asked for: the cause rests on it, so it is not told again as a verdict.
    rejections: dict[object, list[int]] = {}
    for finding in index.findings:
        if finding.type == SKILL_REJECTED and index.in_shown_run(finding.run_id):
            rejections.setdefault(finding.word("requestedId"), []).append(finding.event_index)
    causes = []
    for hop in hops:
        if hop.outcome != "rejected":
            continue
        behind = rejections.get(hop.requested_skill)
        causes.append(LikelyCause(
            "rejected route", WARNING,
            f"Route to {_name(hop.requested_skill)} rejected",
            "The model asked to move to a skill the graph does not reach from here: "
            + one_line(format_route_hop(hop)), None, _hop_nav(hop, steps, index),
            (behind.pop(0),) if behind else (), _recorded(hop.requested_skill)))
    for trip in trips:
        marked = trip_marks(hops, [trip])  # the hop that tripped this governor
        nav = _hop_nav(hops[next(iter(marked))], steps, index) if marked else None
        skills = ", ".join(_name(s) for s in trip.skills) or "no skill named"
        causes.append(LikelyCause(
            "governor trip", WARNING, f"Route governor stopped a {trip.kind} loop",
            f"{one_line(trip.detail)} (skills: {skills}).", None, nav,
            subject=_recorded(trip.kind)))
    return causes


def _hop_nav(hop: RouteHop, steps: Sequence, index: EvidenceIndex) -> Nav | None:
    if not steps:
        return None
    # The step "Why this skill?" places the hop on: its own, or its model call's.
    position = hop_step_index(hop, steps, index)
    if position is None:
        return Nav(None, False, why_no_step="no step shows this hop")
    return Nav(position, True)


# ─── 4. Context cut ────────────────────────────────────────────────────


def _context_cuts(index: EvidenceIndex, step_map: StepMap | None,
                  gaps: Sequence[Gap]) -> list[LikelyCause]:
    """Evictions, drops and budget pressure, one cause per kind: a long run
    evicts before every call, and a hundred alike lines would bury the rest."""
    evicted: list[ModelCall] = []
    dropped: list[tuple[ModelCall, str, int]] = []
    pressed: list[tuple[ModelCall, object]] = []
    pressed_at: list[int] = []
    for call in index.shown_calls():
        if call.evictions:
            evicted.append(call)
        for slot in call.slots.values():
            if slot.origin == "fresh" and slot.dropped_count:
                dropped.append((call, slot.slot, slot.dropped_count))
        pressure = [note for note in call.notes if note.type == _BUDGET_PRESSURE_NOTE]
        pressed += [(call, note.payload) for note in pressure]
        pressed_at += [note.event_index for note in pressure]
    causes = []
    if evicted:
        pieces = sum(len(call.evictions) for call in evicted)
        causes.append(LikelyCause(
            "evicted context", WARNING,
            f"{plural(pieces, 'piece of context')} "
            f"{'was' if pieces == 1 else 'were'} evicted before {_calls_text(evicted)}"
            + _evicted_results(index, evicted),
            "The model was not served pieces it had seen before" + _last_text(evicted) + ".",
            None, nav_for_call(index, step_map, evicted[0].id),
            tuple(e.event_index for call in evicted for e in call.evictions),
            _one_of(e.slot for call in evicted for e in call.evictions)))
    if dropped:
        slots = ", ".join(sorted({_name(slot) for _, slot, _ in dropped}))
        causes.append(LikelyCause(
            "dropped context", WARNING,
            f"{plural(sum(n for _, _, n in dropped), 'piece')} dropped from the context of "
            f"{_calls_text([call for call, _, _ in dropped])}",
            f"The slot's budget did not hold everything (slot: {slots}), so some pieces were "
            "left out of what the model was served" + _last_text([c for c, _, _ in dropped])
            + ".", None, nav_for_call(index, step_map, dropped[0][0].id),
            _positions(*(call.slots[slot].composed_event_index for call, slot, _ in dropped)),
            _one_of(slot for _, slot, _ in dropped)))
    if pressed:
        first_call, first_pressure = pressed[0]
        causes.append(LikelyCause(
            "budget pressure", WARNING,
            _pressure_headline(first_pressure, [call for call, _ in pressed]),
            _growth(index, first_call, first_pressure)
            + "The context was over or near its budget when the call was composed"
            + _last_text([c for c, _ in pressed]) + ".", display_text(first_pressure),
            nav_for_call(index, step_map, pressed[0][0].id), tuple(pressed_at),
            _one_of(payload.get("slot") if isinstance(payload, dict) else None
                    for _, payload in pressed)))
    for gap in gaps:
        if gap.code in _LOST_EVENT_GAPS:
            causes.append(LikelyCause(
                "events missing", WARNING, "Part of the run is missing from the file",
                one_line(gap.message), None, None))
    return causes


def _evicted_results(index: EvidenceIndex, calls: Sequence[ModelCall]) -> str:
    """``, among them 2 tool results (the first from fetch_logs, “…”)``: the
    evicted pieces a tool returned, the evidence most often lost, with the first
    one's words."""
    results = [piece for call in calls for eviction in call.evictions
               for piece in eviction.pieces if piece.tool_call is not None]
    if not results:
        return ""
    tool = index.tool_calls[results[0].tool_call]
    return (f", among them {plural(len(results), 'tool result')} "
            f"(the first from {_name(tool.name)}, "
            f"{quoted(results[0].content, EVICTED_QUOTE_CHARS)})")


def _pressure_headline(pressure: object, calls: Sequence[ModelCall]) -> str:
    """``The messages slot outgrew its budget of 900 tokens (961 projected, 61
    over) before model call 4``, from the framework's own figures when it
    recorded them (the first time, when it happened before several calls)."""
    fields = pressure if isinstance(pressure, dict) else {}
    cap, projected, unit = fields.get("cap"), fields.get("projected"), fields.get("unit")
    slot = fields.get("slot")
    what = f"The {_name(slot)} slot" if isinstance(slot, str) and slot else "The context"
    if not is_number(cap) or not is_number(projected):
        return f"{what} was near or over its budget before {_calls_text(calls)}"
    units = f" {_name(unit)}" if isinstance(unit, str) and unit else ""
    over = projected - cap
    told = (f"{number(projected)} projected, {number(over)} over" if over > 0
            else f"{number(projected)} projected")
    return (f"{what} {'outgrew' if over > 0 else 'neared'} its budget of {number(cap)}{units} "
            f"({told}) before {_calls_text(calls)}")


def _growth(index: EvidenceIndex, call: ModelCall, pressure: object) -> str:
    """The input of each model call of the scope up to ``call``, when the
    budget counts tokens: how the context grew to the limit."""
    if not isinstance(pressure, dict) or pressure.get("unit") != "tokens":
        return ""
    chain = [call]
    while chain[-1].previous_in_scope is not None and len(chain) < GROWTH_CALLS:
        chain.append(index.calls[chain[-1].previous_in_scope])
    chain.reverse()
    figures = [call_.tokens[0] if call_.tokens else None for call_ in chain]
    if len(chain) < 2 or not all(is_number(value) for value in figures[:-1]):
        return ""
    shown = " → ".join(number(value) for value in figures[:-1])
    more = "" if chain[0].previous_in_scope is None else "… → "
    first, last = chain[0].id + 1, chain[-2].id + 1
    return (f"Input tokens per model call before it: {more}{shown} (model calls "
            f"{first}–{last}). ")


def _calls_text(calls: Sequence[ModelCall]) -> str:
    distinct = list(dict.fromkeys(call.id for call in calls))
    if len(distinct) == 1:
        return _call_name(calls[0])
    return f"{len(distinct)} model calls (from {_call_name(calls[0])})"


def _call_name(call: ModelCall) -> str:
    """``model call 4``: the call's place in the run, as its title numbers it."""
    return f"model call {call.id + 1}"


def _said(value: object) -> bool:
    """Whether a recorded result or error has words worth quoting (not the
    bounded audit export's ``[type: string]`` standing in for them)."""
    return isinstance(value, str) and bool(value.strip()) and not is_bounded_result(value)


def _last_text(calls: Sequence[ModelCall]) -> str:
    if len({call.id for call in calls}) == 1:
        return ""
    return f"; the last time before {call_in_words(calls[-1])}"


# ─── 5. Never served ───────────────────────────────────────────────────


def _results_never_served(index: EvidenceIndex, step_map: StepMap | None,
                          served: frozenset[int]) -> list[LikelyCause]:
    """Tool results that a later model call in the same scope should have been
    served (its messages slot was recorded) and was not."""
    later_with_messages: dict[int, ModelCall] = {}
    for call in index.calls:  # for each call, the next call of its scope that has messages
        if MESSAGES not in call.slots:
            continue
        previous = call.previous_in_scope
        while previous is not None and previous not in later_with_messages:
            later_with_messages[previous] = call
            previous = index.calls[previous].previous_in_scope
    unserved = [(tool, later_with_messages[tool.requested_by]) for tool in index.shown_tools()
                if tool.id not in served and tool.has_result and tool.requested_by is not None
                and tool.requested_by in later_with_messages
                and not _carries(later_with_messages[tool.requested_by], tool.id)]
    if not unserved:
        return []
    tool, later = unserved[0]
    if len(unserved) == 1:
        headline = f"Result of tool {_name(tool.name)} never reached the model"
        why = (f"{call_title(later)} came after it in the same scope, but no model call was "
               "served this result.")
    else:  # one line for many: a long run would bury every other cause
        headline = (f"{len(unserved)} tool results never reached the model (the first: "
                    f"{_name(tool.name)})")
        why = ("Later model calls in the same scopes were served none of these results; the "
               f"first came before {call_in_words(later)}.")
    return [LikelyCause("result never served", WARNING, headline, why,
                        display_text(tool.result), nav_for_tool(index, step_map, tool.id),
                        _positions(*(t.end_event_index for t, _ in unserved)),
                        _one_of(t.name for t, _ in unserved))]


def _positions(*positions: int | None) -> tuple[int, ...]:
    return tuple(p for p in positions if p is not None)


def _recorded(value: object) -> str | None:
    """A subject as recorded: a non-empty text, else None."""
    return value if isinstance(value, str) and value else None


def _one_of(values: Iterable[object]) -> str | None:
    """The subject shared by every value, or None when they name several (or none)."""
    named = {value for value in map(_recorded, values)}
    return named.pop() if len(named) == 1 else None


# ─── The framework's own verdicts and warnings ─────────────────────────


def _framework_causes(index: EvidenceIndex, step_map: StepMap | None, told: set[int]
                      ) -> tuple[list[LikelyCause], list[LikelyCause]]:
    """(verdicts, warnings) of every run in the file: a verdict of a run
    before a pause is still why the run went as it did (its link says that no
    step shows it). Warnings are one cause per type: a long run retries or
    evicts before every call, and a hundred alike lines would bury the rest."""
    verdicts: list[LikelyCause] = []
    warned: dict[str, list[Finding]] = {}
    for finding in index.findings:
        if finding.event_index in told:
            continue
        if finding.kind == VERDICT:
            verdicts.append(_verdict_cause(index, step_map, finding))
        elif finding.kind == WARNING_KIND:
            warned.setdefault(finding.type, []).append(finding)
    warnings = [_warning_cause(index, step_map, alike) for alike in warned.values()]
    return verdicts, warnings


def _verdict_cause(index: EvidenceIndex, step_map: StepMap | None,
                   finding: Finding) -> LikelyCause:
    return LikelyCause(finding.short, ERROR, finding_headline(index, [finding]),
                       _finding_why(index, finding), display_text(finding.payload),
                       nav_for_event(index, step_map, finding.event_index),
                       (finding.event_index,),
                       _finding_subject(index, finding))


def _warning_cause(index: EvidenceIndex, step_map: StepMap | None,
                   alike: list[Finding]) -> LikelyCause:
    first = alike[0]
    headline = finding_headline(index, alike)
    return LikelyCause(first.short, WARNING, headline, _finding_why(index, first),
                       display_text(first.payload),
                       nav_for_event(index, step_map, first.event_index),
                       tuple(f.event_index for f in alike), _finding_subject(index, first))


# The payload field that names what a verdict or warning is about, most
# specific first: the tool, the check's target, the skill, the metric, the
# service, the provider, the map, the rule, the slot, the kind of check.
SUBJECT_FIELDS = ("toolName", "tool", "target", "skillId", "requestedId", "metricId", "service",
                  "providerName", "providerId", "primary", "mapId", "checkerId",
                  "policyRuleId", "middleware", "memoryId", "branchId", "loopId", "slot",
                  "category", "kind", "stage")


def _finding_subject(index: EvidenceIndex, finding: Finding) -> str | None:
    if finding.tool is not None and _recorded(index.tool_calls[finding.tool].name):
        return index.tool_calls[finding.tool].name
    payload = finding.payload if isinstance(finding.payload, dict) else {}
    return next((payload[name] for name in SUBJECT_FIELDS if _recorded(payload.get(name))), None)


def _finding_why(index: EvidenceIndex, finding: Finding) -> str:
    """The catalogue's meaning, then the event's own words, field by field."""
    words = "; ".join(f"{name}: {one_line(value_words(value), WORD_CHARS)}"
                      for name, value in finding.explained)
    if words and not words.endswith((".", "…")):
        words += "."
    why = finding.meaning + (f" The event says {words}" if words else "")
    kind, owner = event_owners(index).get(finding.event_index, (None, None))
    if kind == "call" and owner[0] != finding.call:  # placed at the call composed after it
        why += f" It came before {call_in_words(index.calls[owner[0]])}."
    elif finding.call is not None:
        why += f" It belongs to {call_in_words(index.calls[finding.call])}"
        why += (", whose answer it speaks of (delivered after the run, without meta)."
                if finding.placed_by == BY_FINAL_ANSWER else ".")
    return one_line(why)


def integrity_line(index: EvidenceIndex) -> str | None:
    """The integrity disposition ledger of the run the steps describe, in one
    line ("Integrity checks: 3 of 4 checks ran; unsupported-claim found 1"),
    shown above the causes; None when the run has no ledger. Each finding
    itself is a cause. A paused and resumed run has a ledger per run id: the
    shown run's (the last), or the last of any when none is the shown run's."""
    ledgers = [ledger for ledger in index.integrity if index.in_shown_run(ledger.run_id)] \
        or list(index.integrity)
    if not ledgers:
        return None
    ledger = ledgers[-1]
    posture = f" (posture: {ledger.posture})" if ledger.posture else ""
    return f"Integrity checks{posture}: {ledger.summary}"


def verdicts_told(index: EvidenceIndex, causes: Sequence[LikelyCause]) -> tuple[Finding, ...]:
    """The framework verdicts that ``causes`` tell, in their order: what a
    step's headline names after what happened. ``index.findings`` is in
    event order, so each is found by bisection, not a scan."""
    findings = index.findings
    told: list[Finding] = []
    for cause in causes:
        if cause.severity != ERROR:
            continue
        for position in cause.events:
            at = bisect_left(findings, position, key=lambda finding: finding.event_index)
            if at < len(findings) and findings[at].event_index == position \
                    and findings[at].kind == VERDICT:
                told.append(findings[at])
    return tuple(told)


def causes_at_step(causes: Sequence[LikelyCause], position: int) -> tuple[LikelyCause, ...]:
    """The causes whose link leads to step ``position`` of the list they were
    linked into, in their order: what the step detail says happened there."""
    return tuple(cause for cause in causes
                 if cause.nav is not None and cause.nav.step == position)

"""How the run ended: one word, one sentence a person reads first, and the answer.

"complete" describes the recording; a person debugging asks how the *run*
ended: did it answer, and with what. :func:`run_outcome` decides that from the
framework's own verdicts as the evidence index folded them (a permission
halt, a crash, a budget that cut it short, a canned answer, an unmet output
contract, a provider fallback), a pause still waiting on a person, and how
the run's end is recorded (:mod:`lens.evidence.run_end`), checked in that
order: the first that holds is the outcome, because each explains the answer
(or its absence) better than the ones after it.

Every outcome says it three ways: ``ended``, one of :data:`ENDINGS` (answered,
stopped, crashed, paused, unfinished); ``kind``, the finer reading of
:data:`OUTCOME_KINDS` (answered *with a fallback*, *cut short by a budget*…)
with its ``headline`` and ``detail``; and ``sentence``, built from recorded
facts only, with the events' own words quoted and no event type names, field
lists or raw numbers (money as ``$0.27``, counts with their plural). ``nav``
is the step that shows it, placed as the likely causes place theirs
(:mod:`lens.evidence.nav`), given the step list.

Owns: the outcome kinds, the rule that picks one and its sentence. Does not
own: what counts as a verdict (:mod:`recorders.catalogue`), where a verdict is
placed (:mod:`recorders.evidence`), or how a page shows it. Pure; no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from recorders import catalogue as cat
from recorders.evidence import EvidenceIndex, Finding, StepMap
from recorders.evidence.records import CONSUMER_SCOPE
from recorders.loading import Recording
from recorders.values import finite_or_none
from lens.evidence.nav import Nav, nav_for_call, nav_for_tool
from lens.evidence.plain_headlines import finding_headline
from lens.evidence.run_end import PendingPause, RunEnd, read_run_end
from lens.text import format_ms, grouped, one_line

# How the run ended, in one word (``RunOutcome.ended``).
ENDED_ANSWERED = "answered"
ENDED_STOPPED = "stopped"
ENDED_CRASHED = "crashed"
ENDED_PAUSED = "paused"
ENDED_UNFINISHED = "unfinished"
ENDINGS = (ENDED_ANSWERED, ENDED_STOPPED, ENDED_CRASHED, ENDED_PAUSED, ENDED_UNFINISHED)

# The finer reading (``RunOutcome.kind``).
ANSWERED = "answered"
ANSWERED_WITH_FALLBACK = "answered with a fallback"
CONTRACT_UNMET = "contract unmet"
HALTED = "halted by a permission check"
CUT_SHORT = "cut short by a budget"
CRASHED = "crashed"
PAUSED = "paused for a person"
DID_NOT_FINISH = "did not finish"
OUTCOME_KINDS = (ANSWERED, ANSWERED_WITH_FALLBACK, CONTRACT_UNMET, HALTED, CUT_SHORT, CRASHED,
                 PAUSED, DID_NOT_FINISH)

# The words of an event quoted in a headline or a detail, at the most.
WORDS_CHARS = 200
# The answer quoted in a sentence, at the most (the whole answer is ``answer``).
ANSWER_CHARS = 160

# Verdicts outside the budget family that mean a limit ended the work: a loop
# that ran out of passes, a composition that ran out of budget.
_BUDGET_ENDINGS = {cat.COMPOSITION_ITERATION_EXIT: ("reason", "budget"),
                   cat.COMPOSITION_EXIT: ("status", "budget_exhausted")}
# agent.budget_exhausted is a warning when a wrap-up call still answered; this
# action says no call did.
_CUT_SHORT_ACTION = "cut-short"
_COST_LIMIT_WORDS = {"max_cost": "cost limit", "max_tokens": "token limit",
                     "max_iterations": "limit on iterations", "max_wallclock": "time limit"}


@dataclass(frozen=True)
class RunOutcome:
    """How the run ended (see the module doc). ``headline``, ``detail``,
    ``sentence`` and ``answer`` may hold recording text (show them as text);
    ``events`` are the typed indices (positions in ``events``) the outcome
    rests on; ``answer`` is the whole answer the run returned, None when it
    returned none (or the recording does not hold it)."""

    kind: str
    headline: str
    detail: str | None = None
    events: tuple[int, ...] = ()
    ended: str = ENDED_ANSWERED
    sentence: str = ""
    answer: str | None = None
    nav: Nav | None = None
    resumes: int = 0  # how many times the run paused for a person and was resumed


def run_outcome(index: EvidenceIndex, recording: Recording, step_map: StepMap | None = None,
                run_ids: Iterable[str] = ()) -> RunOutcome:
    """How the run of ``run_ids`` (the run the steps show; every run's events
    when empty) ended; ``nav`` indexes ``step_map``'s steps when given."""
    shown = frozenset(run_ids)
    findings = [f for f in index.findings if _in_run(f, shown)]
    verdicts = [f for f in findings if f.kind == cat.VERDICT]
    end = read_run_end(recording, index, shown)
    outcome = None
    for decide in (_halted, _crashed, _paused, _cut_short, _fallback_answer, _contract_unmet):
        outcome = decide(verdicts, findings, index, end)
        if outcome is not None:
            break
    else:
        outcome = _answered_or_not(index, recording, end, shown)
    return replace(outcome, sentence=_with_resumes(outcome.sentence, end.resumed),
                   nav=_nav(outcome, findings, index, step_map, end), resumes=len(end.resumed))


def _with_resumes(sentence: str, resumed: tuple[PendingPause, ...]) -> str:
    """The sentence, then that the run had paused for a person and was
    resumed (once or more): how it ended comes first, as the first screen
    may clip the sentence."""
    if not resumed or not sentence:
        return sentence
    return f"{sentence} It had {paused_words(resumed)}."


def paused_words(resumed: tuple[PendingPause, ...]) -> str:
    """``paused for a person's approval before approve_refund could run, and
    was resumed``: what the run's resumed pauses were, in words."""
    first = resumed[0]
    if first.check_in:
        why = "for a person's approval"
    elif first.question:
        why = "to ask a person"
    else:
        why = "for a person"
    tool = f" before {_name(first.tool)} could run" if first.tool else ""
    more = f" ({_count(len(resumed), 'pause')} in all)" if len(resumed) > 1 else ""
    return f"paused {why}{tool}, and was resumed{more}"


# ─── the outcomes, in the order they are tried ───────────────────────


def _halted(verdicts: list[Finding], findings: list[Finding], index: EvidenceIndex,
            end: RunEnd) -> RunOutcome | None:
    halts = _of(verdicts, cat.PERMISSION_HALT) or [
        f for f in _of(verdicts, cat.PERMISSION_CHECK) if f.word("result") == "halt"]
    if not halts:
        return None
    halt = halts[-1]
    target = halt.word("target")
    why = halt.word("reason") or halt.word("rationale")
    sentence = ("The run crashed: a permission check halted it"
                + (f" before {_name(target)} could run" if target else "")
                + (f" ({_quote(why)})" if why else "") + ", so it gave no answer.")
    told = halt.word("tellLLM")
    detail = finding_headline(index, [halt]) + (
        f"; the model was told {_quote(told)}" if told else "")
    return RunOutcome(HALTED, "Halted by a permission check"
                      + (f" at {one_line(target, WORDS_CHARS)}" if target else ""),
                      detail, tuple(f.event_index for f in halts), ENDED_CRASHED, sentence)


def _crashed(verdicts: list[Finding], findings: list[Finding], index: EvidenceIndex,
             end: RunEnd) -> RunOutcome | None:
    """An ``error.fatal``, the reliability rules giving up (9.62 then throws
    with no ``error.fatal``), or a run whose boundary exit is an error. The
    fatal error may restate an earlier, more exact verdict in other words:
    the detail and the sentence quote that verdict too."""
    enders = _of(verdicts, cat.ERROR_FATAL, cat.RELIABILITY_FAIL_FAST)
    if not enders:
        if end.thrown is None:
            return None
        return RunOutcome(CRASHED, "Crashed: " + one_line(end.thrown, WORDS_CHARS), None, (),
                          ENDED_CRASHED, f"The run crashed: {_quote(end.thrown)}.")
    first = enders[0]
    fail_fast = first.type == cat.RELIABILITY_FAIL_FAST
    said = first.word("label") if fail_fast else first.word("error")
    said = one_line(said, WORDS_CHARS) if said is not None else None
    earlier = [f for f in verdicts if f.event_index < first.event_index
               and f.type not in (cat.ERROR_FATAL, cat.RELIABILITY_FAIL_FAST)]
    # The detail tells the verdicts in their own words: the fail-fast's (what
    # it gave up on), then the earlier verdict the crash may restate.
    told = [finding_headline(index, [first])] if fail_fast else []
    if earlier:
        told.append("Before it, " + _lower_first(finding_headline(index, [earlier[-1]])))
    detail = ". ".join(told) if told else None
    sentence = (f"The run crashed{_at_call(first, index)}"
                + (" when its reliability rules gave up" if fail_fast else "")
                + (f" ({_quote(said)})" if said else "") + ".")
    if earlier:
        before = earlier[-1]
        text = _first_word(before)
        sentence += (f" Before it, {_lower_first(_clause(before.meaning))}"
                     + (f" ({_quote(text)})" if text else "") + ".")
    return RunOutcome(CRASHED, "Crashed: " + (_quote(said) if said else
                                              _lower_first(finding_headline(index, [first]))),
                      detail,
                      tuple(f.event_index for f in enders), ENDED_CRASHED,
                      sentence + " It gave no answer.")


def _paused(verdicts: list[Finding], findings: list[Finding], index: EvidenceIndex,
            end: RunEnd) -> RunOutcome | None:
    pause = end.pause
    if pause is None:
        return None
    tool = f" before {_name(pause.tool)} could run" if pause.tool else ""
    if pause.check_in:
        asked = f"it waits on a person to approve or decline the call{tool}"
    elif pause.question:
        asked = f"{tool.strip() + ', ' if tool else ''}it asked a person {_quote(pause.question)}"
    else:
        asked = f"it waits on a person{tool}"
    return RunOutcome(PAUSED, "Paused: waiting on a person", pause.question, (pause.event_index,),
                      ENDED_PAUSED, f"The run is paused: {asked}, and no answer is recorded "
                                    "after it.")


def _cut_short(verdicts: list[Finding], findings: list[Finding], index: EvidenceIndex,
               end: RunEnd) -> RunOutcome | None:
    limits = [f for f in findings if _is_limit(f)]
    if not limits:
        return None
    first = limits[0]
    sentence = f"The run stopped: {_limit_words(first)}{_at_call(first, index, after=True)}"
    pending = next((f.payload.get("pendingToolCalls") for f in limits
                    if f.type == cat.AGENT_BUDGET_EXHAUSTED and isinstance(f.payload, dict)), None)
    pending = finite_or_none(pending)
    if pending:
        tools = _count(pending, "pending tool call")
        sentence += f"; {'its' if pending > 1 else 'the'} {tools} never ran"
    answer = end.answer
    sentence += (f", so the answer is what it had written by then: {_quote(answer, ANSWER_CHARS)}"
                 if answer else ", and it gave no answer")
    return RunOutcome(CUT_SHORT, f"Cut short by a budget: {_limit_words(first)}",
                      finding_headline(index, [first]), tuple(f.event_index for f in limits),
                      ENDED_STOPPED, _finished(sentence), answer)


def _fallback_answer(verdicts: list[Finding], findings: list[Finding], index: EvidenceIndex,
                     end: RunEnd) -> RunOutcome | None:
    canned = _of(verdicts, cat.RESILIENCE_OUTPUT_CANNED_USED)
    if canned:
        failed = canned[-1].word("fallbackErrorMessage")
        return RunOutcome(ANSWERED_WITH_FALLBACK,
                          "Answered with the canned answer: the model's answer and the "
                          "fallback both failed",
                          finding_headline(index, [canned[-1]]) + _model_said(canned[-1]),
                          tuple(f.event_index for f in
                                _of(verdicts, cat.RESILIENCE_OUTPUT_FALLBACK_TRIGGERED,
                                    cat.RESILIENCE_OUTPUT_CANNED_USED)),
                          ENDED_ANSWERED,
                          "The run answered with the application's canned answer, which the "
                          "recording does not hold: the model's answer failed and so did the "
                          "application's fallback" + (f" ({_quote(failed)})" if failed else "")
                          + ".")
    replaced = _of(verdicts, cat.RESILIENCE_OUTPUT_FALLBACK_TRIGGERED)
    if replaced:
        failed = replaced[-1].word("primaryErrorMessage")
        return RunOutcome(ANSWERED_WITH_FALLBACK,
                          "Answered by the application's fallback: the model's answer failed "
                          "its schema",
                          finding_headline(index, [replaced[-1]]) + _model_said(replaced[-1]),
                          tuple(f.event_index for f in replaced), ENDED_ANSWERED,
                          "The run answered with the application's fallback answer, which the "
                          "recording does not hold: the model's answer failed its schema"
                          + (f" ({_quote(failed)})" if failed else "") + ".")
    return None


def _contract_unmet(verdicts: list[Finding], findings: list[Finding], index: EvidenceIndex,
                    end: RunEnd) -> RunOutcome | None:
    unmet = _of(verdicts, cat.AGENT_OUTPUT_CONTRACT_UNMET)
    if not unmet:
        return None
    error = unmet[-1].word("error")
    sentence = ("The run answered, but the answer does not meet its output contract"
                + (f" ({_quote(error)})" if error else "")
                + (f": {_quote(end.answer, ANSWER_CHARS)}" if end.answer else ""))
    return RunOutcome(CONTRACT_UNMET, "The answer does not meet its output contract",
                      finding_headline(index, [unmet[-1]]),
                      tuple(f.event_index for f in unmet), ENDED_ANSWERED, _finished(sentence),
                      end.answer)


def _answered_or_not(index: EvidenceIndex, recording: Recording, end: RunEnd,
                     shown: frozenset[str]) -> RunOutcome:
    final = index.final_call()
    unfinished = _unfinished_why(index, recording, end)
    if unfinished is not None:
        why, sentence = unfinished
        return RunOutcome(DID_NOT_FINISH, "Did not finish: " + why, None, (), ENDED_UNFINISHED,
                          sentence)
    answer = end.answer
    calls = len(index.calls_of_run(shown))
    switched = [f for f in index.findings if _in_run(f, shown)
                and f.type == cat.FALLBACK_TRIGGERED and f.word("kind") in (None, "provider")]
    said = (f": {_quote(answer, ANSWER_CHARS)}" if answer else
            ", but its answer is not recorded" + (" (a lean recording holds no payloads)"
                                                  if recording.is_lean else ""))
    if switched:
        served = len({f.call for f in switched if f.call is not None}) or len(switched)
        share = (f"all {_count(calls, 'model call')}" if served == calls
                 else f"{_count(served, 'model call')} of {calls}")
        return RunOutcome(ANSWERED_WITH_FALLBACK,
                          "Answered, by a fallback provider for "
                          f"{_count(len(switched), 'model call')}",
                          finding_headline(index, switched),
                          tuple(f.event_index for f in switched), ENDED_ANSWERED,
                          _finished(f"The run answered, with {share} served by a fallback "
                                    f"provider{said}"), answer)
    after = f" after {_count(calls, 'model call')}" if calls else ""
    return RunOutcome(ANSWERED, "Answered", _quote(answer) if answer else None,
                      (final.end_event_index,) if final is not None
                      and final.end_event_index is not None else (),
                      ENDED_ANSWERED, _finished(f"The run answered{after}{said}"), answer)


def _unfinished_why(index: EvidenceIndex, recording: Recording,
                    end: RunEnd) -> tuple[str, str] | None:
    """Why the recording ends mid-run, as (headline words, sentence); None
    when its end is recorded."""
    final = index.final_call()
    open_call = (f"model call {final.id + 1} started but its end is not recorded"
                 if final is not None and not final.ended else None)
    if recording.complete is False:
        return ("the recording is not complete",
                "The recording ends mid-run: the file says the run is not complete"
                + (f", {open_call}" if open_call else "") + ", and no crash is recorded.")
    if open_call:
        return ("its last model call has no recorded end",
                f"The recording ends mid-run: {open_call}, and no answer was recorded.")
    if end.root_started and not end.root_ended:
        return ("the run's end is not recorded",
                "The recording ends mid-run: the run started but its end is not recorded, "
                "and no answer was recorded.")
    if final is None and end.answer is None and not end.root_ended:
        return ("no model call gave an answer",
                "The recording ends before the run did anything: no model call and no end "
                "are recorded.")
    return None


# ─── where the outcome is seen ───────────────────────────────────────


def _nav(outcome: RunOutcome, findings: list[Finding], index: EvidenceIndex,
         step_map: StepMap | None, end: RunEnd) -> Nav | None:
    """The step that shows the outcome: its first event's call or tool (as
    the likely causes place a finding), else the final or last call."""
    if step_map is None:
        return None
    by_position = {f.event_index: f for f in findings}
    for position in outcome.events:
        finding = by_position.get(position)
        if finding is not None and finding.tool is not None:
            return nav_for_tool(index, step_map, finding.tool)
        if finding is not None and finding.call is not None:
            return nav_for_call(index, step_map, finding.call, end=True)
    if outcome.ended == ENDED_PAUSED and end.pause is not None:
        paused = _paused_tool(index, end.pause)
        if paused is not None:
            return nav_for_tool(index, step_map, paused)
    final = index.final_call()
    if final is not None:
        return nav_for_call(index, step_map, final.id, end=final.ended)
    if step_map.steps:
        return Nav(step_map.step_at_time(float("inf")), False,
                   why_no_step="no model call is recorded; the run's last step")
    return Nav(None, False, why_no_step="the run has no steps")


def _paused_tool(index: EvidenceIndex, pause: PendingPause) -> int | None:
    for tool in reversed(index.tool_calls):
        if pause.tool is not None and tool.name == pause.tool:
            return tool.id
    return None


# ─── words ───────────────────────────────────────────────────────────


def _in_run(finding: Finding, shown: frozenset[str]) -> bool:
    return not shown or finding.run_id in shown or finding.run_id in (None, CONSUMER_SCOPE)


def _is_limit(finding: Finding) -> bool:
    if finding.type == cat.AGENT_BUDGET_EXHAUSTED:
        return finding.word("action") == _CUT_SHORT_ACTION
    if finding.kind != cat.VERDICT:
        return False
    if finding.type in _BUDGET_ENDINGS:
        name, value = _BUDGET_ENDINGS[finding.type]
        return finding.word(name) == value
    return (finding.family == cat.BUDGET
            or (finding.type == cat.AGENT_TURN_END and finding.word("stoppedEarly") is not None))


def _limit_words(finding: Finding) -> str:
    """What limit was crossed, in words, from the limit's own payload."""
    payload = finding.payload if isinstance(finding.payload, dict) else {}
    if finding.type == cat.COST_LIMIT_HIT:
        kind = payload.get("kind")
        limit, actual = finite_or_none(payload.get("limit")), finite_or_none(payload.get("actual"))
        what = _COST_LIMIT_WORDS.get(kind, "limit") if isinstance(kind, str) else "limit"
        return (f"its {what}" + (f" of {_amount(limit, kind)}" if limit is not None else "")
                + " was crossed" + (f" at {_amount(actual, kind)}" if actual is not None else ""))
    if finding.type == cat.AGENT_BUDGET_EXHAUSTED:
        reason = payload.get("reason")
        limit = finite_or_none(payload.get("limit"))
        if reason == "cost-budget":
            return "it ran out of its cost budget" + (
                f" of {_money(limit)}" if limit is not None else "")
        if limit is not None:
            return f"it ran out of its {_count(limit, 'iteration')}"
        return "it ran out of iterations"
    if finding.type == cat.COMPOSITION_ITERATION_EXIT:
        loop = payload.get("loopId")
        passes = finite_or_none(payload.get("iteration"))
        return ("the loop" + (f" {_quote(_name(loop))}" if isinstance(loop, str) else "")
                + " ran out of passes" + (f" at pass {grouped(passes)}"
                                          if passes is not None else ""))
    if finding.type == cat.COMPOSITION_EXIT:
        name = payload.get("name") or payload.get("id")
        return (f"the composition {_name(name)}" if isinstance(name, str)
                else "a composition") + " ran out of its budget"
    if finding.type == cat.AGENT_TURN_END:
        return f"the agent's turn stopped early ({_quote(finding.word('stoppedEarly'))})"
    return _lower_first(_clause(finding.meaning)) or "a limit cut it short"


def _amount(value: float, kind: object) -> str:
    if kind == "max_cost":
        return _money(value)
    if kind == "max_wallclock":
        return format_ms(value)
    if kind == "max_tokens":
        return _count(value, "token")
    return grouped(value)


def _money(value: float) -> str:
    """US dollars for people: ``$0.27``; below a cent, to its first figures."""
    if 0 < abs(value) < 0.01:
        return f"${value:.4f}".rstrip("0")
    return f"${value:,.2f}"


def _count(value: float, noun: str) -> str:
    """``1 model call``, ``3 model calls``."""
    return f"{grouped(value)} {noun}{'' if value == 1 else 's'}"


def _at_call(finding: Finding, index: EvidenceIndex, after: bool = False) -> str:
    if finding.call is None or not 0 <= finding.call < len(index.calls):
        return ""
    return f" {'after' if after else 'at'} model call {finding.call + 1}"


def _quote(text: str | None, limit: int = WORDS_CHARS) -> str:
    """Recorded words, on one line, clipped, in quotation marks."""
    return f"“{one_line(text or '', limit)}”"


def _name(text: str) -> str:
    """A recorded name (a tool, a loop) on one line, clipped."""
    return one_line(text, WORDS_CHARS // 4)


def _first_word(finding: Finding) -> str | None:
    words = finding.words
    return words[0][1] if words else None


def _finished(sentence: str) -> str:
    """The sentence with its full stop, unless a quotation closing it ends one."""
    if sentence.endswith("”") and sentence[-2:-1] in (".", "!", "?", "…"):
        return sentence
    return sentence + "."


def _clause(sentence: str) -> str:
    return sentence.strip().rstrip(".")


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _of(findings: Iterable[Finding], *types: str) -> list[Finding]:
    return [f for f in findings if f.type in types]


def _model_said(finding: Finding) -> str:
    """``; the model had answered “…”``: the answer a fallback replaced, as recorded."""
    raw = finding.word("rawOutputPreview")
    return f"; the model had answered {_quote(raw)}" if raw else ""

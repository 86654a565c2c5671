"""How the run ended, in one word and one line: the run's outcome, not the file's.

"complete" describes the recording; a person debugging asks how the *run*
ended: did it answer, and with what. :func:`run_outcome` decides that from the
framework's own verdicts as the evidence index folded them (a permission
halt, a crash, a budget that cut it short, a canned answer, an unmet output
contract, a provider fallback) and the index's crash and answer facts,
checked in that order: the first that holds is the outcome, because each
explains the answer (or its absence) better than the ones after it.

Owns: the outcome kinds and the rule that picks one. Does not own: what counts
as a verdict (:mod:`recorders.catalogue`), where a verdict is placed
(:mod:`recorders.evidence`), or how the run bar shows it (``lens_ui``). Pure;
no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from recorders import catalogue as cat
from recorders.evidence import EvidenceIndex, Finding
from recorders.loading import Recording
from lens.text import one_line

ANSWERED = "answered"
ANSWERED_WITH_FALLBACK = "answered with a fallback"
CONTRACT_UNMET = "contract unmet"
HALTED = "halted by a permission check"
CUT_SHORT = "cut short by a budget"
CRASHED = "crashed"
DID_NOT_FINISH = "did not finish"
OUTCOME_KINDS = (ANSWERED, ANSWERED_WITH_FALLBACK, CONTRACT_UNMET, HALTED, CUT_SHORT, CRASHED,
                 DID_NOT_FINISH)

# The words of an event quoted in a headline or a detail, at the most.
WORDS_CHARS = 200

# Verdicts outside the budget family that mean a limit ended the work: a loop
# that ran out of passes, a composition that ran out of budget.
_BUDGET_ENDINGS = {cat.COMPOSITION_ITERATION_EXIT: ("reason", "budget"),
                   cat.COMPOSITION_EXIT: ("status", "budget_exhausted")}


@dataclass(frozen=True)
class RunOutcome:
    """How the run ended: ``kind`` is one of :data:`OUTCOME_KINDS`; ``headline``
    and ``detail`` may hold recording text (show them as text); ``events`` are
    the typed indices (positions in ``events``) the outcome rests on."""

    kind: str
    headline: str
    detail: str | None = None
    events: tuple[int, ...] = ()


def run_outcome(index: EvidenceIndex, recording: Recording) -> RunOutcome:
    """How the run the file records ended (see the module doc for the order)."""
    findings = [f for f in index.findings if f.kind == cat.VERDICT]
    for decide in (_halted, _crashed, _cut_short, _fallback_answer, _contract_unmet):
        outcome = decide(findings, index)
        if outcome is not None:
            return outcome
    return _answered_or_not(index, recording)


def _of(findings: Iterable[Finding], *types: str) -> list[Finding]:
    return [f for f in findings if f.type in types]


def _words(finding: Finding, *names: str) -> str:
    """The named fields' words, ``name: text`` joined, those the event carries;
    with no names, every explaining field's, in the catalogue's order."""
    said = [(name, finding.word(name)) for name in names] if names else list(finding.words)
    return "; ".join(f"{name}: {one_line(text, WORDS_CHARS)}" for name, text in said
                     if text is not None)


def _halted(findings: list[Finding], index: EvidenceIndex) -> RunOutcome | None:
    halts = _of(findings, cat.PERMISSION_HALT) or [
        f for f in _of(findings, cat.PERMISSION_CHECK) if f.word("result") == "halt"]
    if not halts:
        return None
    halt = halts[-1]
    target = halt.word("target")
    return RunOutcome(HALTED, "Halted by a permission check"
                      + (f" at {one_line(target, WORDS_CHARS)}" if target else ""),
                      _words(halt, "reason", "rationale", "tellLLM") or None,
                      tuple(f.event_index for f in halts))


def _crashed(findings: list[Finding], index: EvidenceIndex) -> RunOutcome | None:
    """An ``error.fatal``, or the reliability rules giving up (9.62 then throws
    with no ``error.fatal``). The fatal error may restate an earlier, more
    exact verdict in other words: the detail quotes that verdict too."""
    enders = _of(findings, cat.ERROR_FATAL, cat.RELIABILITY_FAIL_FAST)
    if not enders:
        return None
    first = enders[0]
    said = first.word("error") if first.type == cat.ERROR_FATAL else first.word("label")
    said = one_line(said, WORDS_CHARS) if said is not None else None
    earlier = [f for f in findings if f.event_index < first.event_index
               and f.type not in (cat.ERROR_FATAL, cat.RELIABILITY_FAIL_FAST)]
    detail = None
    if earlier:
        before = earlier[-1]
        detail = (f"Before it, {before.short} said "
                  + (_words(before) or "nothing more"))
    if first.type == cat.RELIABILITY_FAIL_FAST:
        detail = "; ".join(filter(None, [_words(first, "errorMessage", "kind"), detail]))
    return RunOutcome(CRASHED, "Crashed: " + (said or first.short), detail or None,
                      tuple(f.event_index for f in enders))


def _cut_short(findings: list[Finding], index: EvidenceIndex) -> RunOutcome | None:
    limits = [f for f in findings
              if f.family == cat.BUDGET
              or (f.type in _BUDGET_ENDINGS
                  and f.word(_BUDGET_ENDINGS[f.type][0]) == _BUDGET_ENDINGS[f.type][1])
              or (f.type == cat.AGENT_TURN_END and f.word("stoppedEarly") is not None)]
    if not limits:
        return None
    first = limits[0]
    return RunOutcome(CUT_SHORT, f"Cut short by a budget ({first.short})",
                      _words(first) or None,
                      tuple(f.event_index for f in limits))


def _fallback_answer(findings: list[Finding], index: EvidenceIndex) -> RunOutcome | None:
    canned = _of(findings, cat.RESILIENCE_OUTPUT_CANNED_USED)
    if canned:
        return RunOutcome(ANSWERED_WITH_FALLBACK,
                          "Answered with the canned answer: the model's answer and the "
                          "fallback both failed",
                          _words(canned[-1], "fallbackErrorMessage", "rawOutputPreview"),
                          tuple(f.event_index for f in
                                _of(findings, cat.RESILIENCE_OUTPUT_FALLBACK_TRIGGERED,
                                    cat.RESILIENCE_OUTPUT_CANNED_USED)))
    replaced = _of(findings, cat.RESILIENCE_OUTPUT_FALLBACK_TRIGGERED)
    if replaced:
        return RunOutcome(ANSWERED_WITH_FALLBACK,
                          "Answered by the application's fallback: the model's answer failed "
                          "its schema", _words(replaced[-1], "primaryErrorMessage",
                                               "rawOutputPreview"),
                          tuple(f.event_index for f in replaced))
    return None


def _contract_unmet(findings: list[Finding], index: EvidenceIndex) -> RunOutcome | None:
    unmet = _of(findings, cat.AGENT_OUTPUT_CONTRACT_UNMET)
    if not unmet:
        return None
    return RunOutcome(CONTRACT_UNMET, "The answer does not meet its output contract",
                      _words(unmet[-1], "error", "path", "attempts"),
                      tuple(f.event_index for f in unmet))


def _answered_or_not(index: EvidenceIndex, recording: Recording) -> RunOutcome:
    final = index.final_call()
    if final is None or not final.ended or final.output is None:
        why = ("the recording is not complete" if recording.complete is False
               else "no model call gave an answer" if final is None
               else "its last model call has no recorded end" if not final.ended
               else "its last model call's output is not recorded")
        return RunOutcome(DID_NOT_FINISH, "Did not finish: " + why)
    switched = [f for f in index.findings
                if f.type == cat.FALLBACK_TRIGGERED and f.word("kind") in (None, "provider")]
    answer = one_line(final.output, WORDS_CHARS)
    if switched:
        return RunOutcome(ANSWERED_WITH_FALLBACK,
                          "Answered, by a fallback provider for "
                          f"{len(switched)} model call(s)",
                          _words(switched[-1], "primary", "fallback", "reason"),
                          tuple(f.event_index for f in switched))
    return RunOutcome(ANSWERED, "Answered", answer, (final.end_event_index,)
                      if final.end_event_index is not None else ())

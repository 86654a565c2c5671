"""How the run ended, decided from the framework's verdicts (events built inline)."""

from __future__ import annotations

from types import SimpleNamespace

from evidence_events import event, llm_end, llm_start
from lens.evidence.outcome import (ANSWERED, ANSWERED_WITH_FALLBACK, CONTRACT_UNMET, CRASHED,
                                   CUT_SHORT, DID_NOT_FINISH, HALTED, run_outcome)
from recorders.evidence import build_from_events

P = "agentfootprint."


def recording(events: list[dict], complete: bool | None = True) -> SimpleNamespace:
    """What run_outcome reads of a file: its typed events, an empty boundary
    log, whether it is complete and lean."""
    return SimpleNamespace(typed_events=events, boundary_events=[], complete=complete,
                           is_lean=False)


def answered(*after: dict) -> list[dict]:
    return [llm_start("call-llm#1", ts=1), llm_end("call-llm#1", "the answer", ts=2), *after]


def outcome(events: list[dict], complete: bool | None = True):
    return run_outcome(build_from_events(events), recording(events, complete))


def test_a_plain_answer_is_answered_with_its_text():
    result = outcome(answered())
    assert result.kind == ANSWERED and result.detail == "“the answer”"


def test_a_halt_outranks_the_crash_it_causes():
    halt = event("permission.halt", {"target": "send_email", "reason": "exfiltration",
                                     "iteration": 1, "sequenceLength": 2}, ts=3)
    fatal = event("error.fatal", {"error": "Policy halt", "stage": "x", "scope": "run"}, ts=4)
    result = outcome(answered(halt, fatal))
    assert result.kind == HALTED and "send_email" in result.headline
    assert "exfiltration" in result.detail and result.events == (2,)


def test_a_fatal_error_is_a_crash_and_the_earlier_verdict_is_quoted():
    failed = event("tools.discovery_failed", {"error": "ECONNREFUSED hub", "errorName": "Error",
                                              "iteration": 3, "durationMs": 1}, ts=3)
    fatal = event("error.fatal", {"error": "Couldn't reach the AI model", "stage": "__root__",
                                  "scope": "run"}, ts=4)
    result = outcome(answered(failed, fatal))
    assert result.kind == CRASHED and "Couldn't reach the AI model" in result.headline
    assert "ECONNREFUSED hub" in result.detail


def test_a_fail_fast_is_a_crash_without_any_fatal_error():
    gave_up = event("reliability.fail_fast", {"phase": "post-decide", "kind": "stuck",
                                              "attempt": 2, "label": "same error twice"}, ts=3)
    assert outcome([llm_start("call-llm#1", ts=1), gave_up]).kind == CRASHED


def test_a_budget_that_stopped_the_turn_cuts_it_short_but_one_that_wrapped_up_does_not():
    def exhausted(action: str) -> dict:
        return event("agent.budget_exhausted", {"reason": "max-iterations", "iteration": 5,
                                                "pendingToolCalls": 1, "action": action}, ts=3)
    assert outcome(answered(exhausted("cut-short"))).kind == CUT_SHORT
    assert outcome(answered(exhausted("wrapped-up"))).kind == ANSWERED


def test_a_canned_answer_outranks_the_unmet_contract_it_replaced():
    unmet = event("agent.output_contract_unmet",
                  {"stage": "schema-validate", "error": "amountCents missing", "attempts": 2,
                   "retriesSpent": 1, "fallbackConfigured": True, "iteration": 2}, ts=3)
    canned = {"type": P + "resilience.output_canned_used",
              "payload": {"rawOutputPreview": "{}", "fallbackErrorMessage": "queue 502"}}
    assert outcome(answered(unmet)).kind == CONTRACT_UNMET
    result = outcome(answered(unmet, canned))
    assert result.kind == ANSWERED_WITH_FALLBACK and "queue 502" in result.detail


def test_a_fallback_provider_answer_says_so():
    switched = event("fallback.triggered", {"kind": "provider", "primary": "big",
                                            "fallback": "small", "reason": "503"}, ts=1.5)
    result = outcome([llm_start("call-llm#1", ts=1), switched,
                      llm_end("call-llm#1", "ok", ts=2)])
    assert result.kind == ANSWERED_WITH_FALLBACK and "small" in result.detail


def test_a_call_that_never_ended_did_not_finish():
    result = outcome([llm_start("call-llm#1", ts=1)], complete=False)
    assert result.kind == DID_NOT_FINISH and "not complete" in result.headline
    assert outcome([]).kind == DID_NOT_FINISH

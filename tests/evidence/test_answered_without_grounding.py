"""An answer that states an id or a number no tool returned is a likely cause,
naming the value, where it came from and the tools (facts.json of each case)."""

from __future__ import annotations

from family_facts import family_facts
from family_files import family_recording
from lens.evidence.causes import likely_causes
from recorders.evidence import build_evidence_index
from recorders.loading import load_path

KIND = "answered without grounding"


def _causes(case: str):
    return likely_causes(build_evidence_index(load_path(str(family_recording(case)))))


def test_a_case_number_no_tool_returned_is_named_with_the_tool_that_was_called():
    case = "vendor-due-diligence-parallel"
    [flagged] = family_facts(case)["expected"]["evidenceChecked"]
    [value] = [item["value"] for item in flagged["payload"]["unsupported"]]
    [cause] = [c for c in _causes(case) if c.kind == KIND]
    assert value.upper() in cause.headline  # the gate lower-cases; the answer said it so
    assert "news_search" in cause.why and "no tool result or message holds it" in cause.why
    assert cause.is_error


def test_figures_typed_not_read_are_named_and_the_read_count_is_not():
    case = "ops-analyst-code-sessions-teardown-failed"
    [cause] = [c for c in _causes(case) if c.kind == KIND]
    assert "17,143" in cause.headline and "42.9%" in cause.headline
    # 40,000 orders were read ("loaded 40000 orders"): grounded.
    assert "40,000" not in cause.headline


def test_the_evidence_gate_verdict_on_the_same_value_is_told_once():
    case = "ops-analyst-code-sessions-teardown-failed"
    causes = _causes(case)
    [cause] = [c for c in causes if c.kind == KIND]
    assert not [c for c in causes if c.kind == "agent.evidence_checked"]
    assert "flagged" in cause.why


def test_an_answer_whose_values_its_tools_returned_or_arithmetic_gave_is_no_cause():
    # $250 and order 118 came from issue_refund; $12,200 is the $12,450 asked less $250.
    assert not [c for c in _causes("refund-middleware-pii-and-ceiling") if c.kind == KIND]
    # 84.20 USD is the tool's priceCents 8420.
    assert not [c for c in _causes("returns-bot-canned-after-provider-outage") if c.kind == KIND]

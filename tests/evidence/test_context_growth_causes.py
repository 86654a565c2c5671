"""Context that outgrew its budget is told with the framework's own figures
and the per-call growth that led there, and an eviction names the tool
results it took away (the token-budget case's facts.json)."""

from __future__ import annotations

from family_facts import family_facts
from family_files import family_recording
from lens.evidence.causes import likely_causes
from recorders.evidence import build_evidence_index
from recorders.loading import load_path

CASE = "incident-log-triage-token-budget"


def _cause(kind: str):
    index = build_evidence_index(load_path(str(family_recording(CASE))))
    [cause] = [c for c in likely_causes(index) if c.kind == kind]
    return cause


def test_budget_pressure_says_the_cap_the_projection_and_the_overflow_in_their_unit():
    [pressure] = family_facts(CASE)["expected"]["budgetPressure"]
    fields = pressure["payload"]
    cause = _cause("budget pressure")
    assert cause.headline.startswith(f"The {fields['slot']} slot outgrew its budget of "
                                     f"{fields['cap']} {fields['unit']} ")
    assert f"({fields['projected']} projected, {fields['overflowBy']} over)" in cause.headline


def test_budget_pressure_gives_the_input_of_each_call_that_grew_the_context():
    expected = family_facts(CASE)["expected"]
    inputs = [row["usage"]["input"] for row in expected["inputTokensPerCall"]]
    cause = _cause("budget pressure")
    # The pressure came before model call 4: calls 1-3 grew the window to it.
    assert "model call 4" in cause.headline
    grew = " → ".join(f"{value:,}" for value in inputs[:3])
    assert f"Input tokens per model call before it: {grew} (model calls 1–3)." in cause.why
    assert f"{inputs[3]:,}" not in cause.why.split("(model calls")[0]


def test_the_eviction_names_the_tool_result_that_held_the_real_root_cause():
    expected = family_facts(CASE)["expected"]
    cause = _cause("evicted context")
    assert cause.headline.startswith(f"{len(expected['evicted'])} pieces of context were "
                                     "evicted before model call 4, among them 2 tool results")
    # The first evicted result is the auth-service log, the only one with the root cause.
    assert "fetch_logs" in cause.headline and "x509 certificate" in cause.headline
    assert "x509 certificate has expired" in expected["realRootCause"]

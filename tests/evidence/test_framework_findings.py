"""The evidence index keeps the framework's own verdicts and warnings, its
integrity ledger and the memory it served, each tied to the call it belongs to."""

from __future__ import annotations

import pytest

from evidence_events import event, llm_end, llm_start, tool_end, tool_start
from family_files import family_names, family_recording
from recorders import catalogue
from recorders.evidence import build_evidence_index, build_from_events
from recorders.loading import load_path

P = "agentfootprint."


def _agent_with_one_tool(*middle: dict) -> list[dict]:
    return [llm_start("call-llm#1", ts=1), llm_end("call-llm#1", "", ts=2, tool_calls=1),
            tool_start("lookup", "tc-1", {"q": 1}, ts=3), *middle,
            tool_end("tc-1", "done", ts=5),
            llm_start("call-llm#2", ts=6), llm_end("call-llm#2", "the answer", ts=7)]


def test_a_denied_permission_check_is_a_verdict_in_its_own_words_on_the_tool_it_names():
    denied = event("permission.check", {"capability": "tool_call", "actor": "agent",
                                        "target": "lookup", "result": "deny",
                                        "rationale": "no lookups on Sundays",
                                        "toolCallId": "tc-1"}, ts=4)
    index = build_from_events(_agent_with_one_tool(denied))
    [finding] = index.findings
    assert finding.kind == catalogue.VERDICT and finding.family == catalogue.PERMISSION
    assert finding.word("rationale") == "no lookups on Sundays"
    assert finding.event_index == 3
    assert finding.tool == 0 and finding.call == 0


def test_an_allowed_permission_check_is_context_and_not_kept():
    allowed = event("permission.check", {"capability": "tool_call", "actor": "agent",
                                         "target": "lookup", "result": "allow"}, ts=4)
    assert build_from_events(_agent_with_one_tool(allowed)).findings == ()


def test_a_finding_without_a_tool_call_id_belongs_to_the_tool_call_running_in_its_scope():
    failed = event("credential.failed", {"service": "erp", "reason": "vault sealed"}, ts=4)
    [finding] = build_from_events(_agent_with_one_tool(failed)).findings
    assert (finding.tool, finding.call) == (0, 0)
    assert finding.word("reason") == "vault sealed"


def test_a_finding_after_a_call_ended_belongs_to_that_call():
    events = [llm_start("call-llm#1", ts=1), llm_end("call-llm#1", "not json", ts=2),
              event("agent.output_contract_unmet",
                    {"stage": "json-parse", "error": "Unexpected token", "attempts": 2,
                     "retriesSpent": 1, "fallbackConfigured": False, "iteration": 1}, ts=3)]
    [finding] = build_from_events(events).findings
    assert finding.call == 0 and finding.tool is None
    assert finding.word("error") == "Unexpected token"


def test_an_event_without_meta_is_kept_and_placed_on_the_final_answer():
    canned = {"type": P + "resilience.output_canned_used",
              "payload": {"rawOutputPreview": "{}", "fallbackErrorMessage": "queue down"}}
    index = build_from_events(_agent_with_one_tool() + [canned])
    [finding] = index.findings
    assert not finding.has_meta and finding.run_id is None
    assert finding.call == index.final_call().id == 1
    assert finding.word("fallbackErrorMessage") == "queue down"


def test_a_fatal_error_belongs_to_the_call_it_failed():
    events = [llm_start("call-llm#1", ts=1),
              event("error.fatal", {"error": "boom", "stage": "call-llm", "scope": "run"}, ts=2)]
    index = build_from_events(events)
    [finding] = index.findings
    assert finding.call == 0
    assert index.calls[0].failure_event_index == 1


def test_the_disposition_ledger_is_one_line():
    rows = [{"check": "invariant-violation", "seam": "wire", "checked": 2, "findings": 0,
             "notApplicable": 0, "unreachable": 0},
            {"check": "invariant-violation", "seam": "compose", "checked": 0, "findings": 0,
             "notApplicable": 1, "unreachable": 0},
            {"check": "dangling-reference", "seam": "compose", "checked": 1, "findings": 0,
             "notApplicable": 0, "unreachable": 0},
            {"check": "unsupported-claim", "seam": "claim", "checked": 2, "findings": 1,
             "notApplicable": 0, "unreachable": 0}]
    # The one finding the unsupported-claim row counts, filed as the framework files it.
    claim = event("integrity.context_error", {"kind": "unsupported-claim", "seam": "claim",
                                              "subjects": [], "witnesses": [],
                                              "message": "status claimed up, settled down"})
    index = build_from_events([claim, event("integrity.disposition",
                                            {"posture": "observe", "workExisted": True,
                                             "rows": rows})])
    [ledger] = index.integrity
    assert ledger.summary.startswith("3 of 4 checks ran; unsupported-claim found 1")
    assert "invariant-violation (compose)" in ledger.not_applicable


def test_a_malformed_ledger_says_nothing_ran_and_does_not_raise():
    index = build_from_events([event("integrity.disposition", {"rows": [1, "x", None]})])
    assert index.integrity[0].summary == "no integrity check reported"


def test_an_attached_memory_entry_is_traced_to_the_call_it_was_served_to():
    attached = event("memory.attached", {"memoryId": "policy-2023", "contentSummary": "4 weeks",
                                         "score": 0.95, "rank": 1, "source": "store"},
                     path=("sf-memory-read-handbook",), ts=1)
    index = build_from_events([attached, llm_start("call-llm#1", ts=2),
                               llm_end("call-llm#1", "4 weeks", ts=3)])
    [served] = index.memory
    assert (served.memory_id, served.rank, served.served_to) == ("policy-2023", 1, 0)


def test_application_events_do_not_make_a_second_run():
    events = _agent_with_one_tool() + [
        event("eval.threshold_crossed", {"metricId": "style", "direction": "below",
                                         "value": 0.5, "threshold": 0.8}, run="consumer-scope")]
    index = build_from_events(events)
    assert index.shown_run is None and len(index.shown_calls()) == 2
    assert [f.run_id for f in index.findings] == ["consumer-scope"]


@pytest.mark.parametrize("case", family_names())
def test_every_verdict_and_warning_of_a_family_recording_is_a_finding(case):
    recording = load_path(str(family_recording(case)))
    flagged = [position for position, e in enumerate(recording.typed_events)
               if catalogue.event_kind(e.get("type"), e.get("payload"))
               in (catalogue.VERDICT, catalogue.WARNING)]
    assert [f.event_index for f in build_evidence_index(recording).findings] == flagged


def test_a_boundary_log_read_in_place_of_a_typed_stream_makes_no_finding():
    # Its positions are the boundary log's, and a finding cites a typed index.
    def boundary(kind: str, ts: float, **fields) -> dict:
        return {"type": kind, "runtimeStageId": "x#1", "subflowPath": ["__root__"],
                "depth": 0, "ts": ts, **fields}
    index = build_from_events([], [
        boundary("llm.start", 1, model="m", provider="p"),
        boundary("llm.end", 2, content="", toolCallCount=1),
        boundary("tool.start", 3, toolName="t", toolCallId="c", args={}),
        boundary("tool.end", 4, toolCallId="c", result="boom", error=True)],
        has_typed_stream=False)
    assert index.tool_calls[0].failed and index.findings == ()

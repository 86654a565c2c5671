"""A tool call whose own result says it was refused is a likely cause when no
recorded verdict tells it: inside a composition the framework's permission
events never reach the recording (families/README.md), and the result's
bracketed ``[permission denied: …]`` is then the only account."""

from __future__ import annotations

import gzip
import json

from evidence_events import llm_end, llm_start, tool_end, tool_start
from family_files import family_recording
from lens.evidence.causes import likely_causes
from recorders.evidence import build_evidence_index, build_from_events
from recorders.loading import load_recording

KIND = "denied tool call"
CASE = "payments-permission-halt"  # the policy denied list_vendor_bank_accounts


def _recording(drop_domain: str | None = None) -> dict:
    document = json.loads(gzip.decompress(family_recording(CASE).read_bytes()))
    if drop_domain is not None:  # as a composition records it: the domain not bridged
        document["events"] = [e for e in document["events"]
                              if not e["type"].startswith(drop_domain)]
    return document


def _causes(document: dict):
    index = build_evidence_index(load_recording(json.dumps(document).encode()))
    return index, likely_causes(index)


def _denied_result(document: dict) -> str:
    [result] = [e["payload"]["result"] for e in document["events"]
                if e["type"].endswith("stream.tool_end")
                and str(e["payload"].get("result", "")).startswith("[permission denied:")]
    return result


def test_with_the_permission_events_recorded_the_denial_is_told_once_by_its_verdict():
    _, causes = _causes(_recording())
    assert not [c for c in causes if c.kind == KIND]
    assert [c for c in causes if "list_vendor_bank_accounts" in c.headline
            and "denied" in c.headline]


def test_without_them_the_tool_result_tells_the_denial_in_its_own_words():
    document = _recording(drop_domain="agentfootprint.permission.")
    result = _denied_result(document)
    index, causes = _causes(document)
    [cause] = [c for c in causes if c.kind == KIND]
    reason = result.removeprefix("[permission denied:").rstrip("]").strip()
    assert cause.headline.startswith("The call to list_vendor_bank_accounts was refused: “")
    assert reason[:40] in cause.headline and "[" not in cause.headline
    assert cause.is_error and cause.subject == "list_vendor_bank_accounts"
    [tool] = [t for t in index.tool_calls if t.name == "list_vendor_bank_accounts"]
    assert tool.end_event_index in cause.events
    assert cause.nav is not None and cause.detail is not None


def test_the_short_and_bare_forms_are_denials_and_a_result_merely_mentioning_one_is_not():
    def run(result: str):
        events = [llm_start("call-llm#1", tools=1), llm_end("call-llm#1", "", tool_calls=1),
                  tool_start("wire", "c1", {}), tool_end("c1", result),
                  llm_start("call-llm#2", tools=1), llm_end("call-llm#2", "Done.")]
        return [c for c in likely_causes(build_from_events(events)) if c.kind == KIND]

    [short] = run("[denied: over the daily limit]")
    assert short.headline == "The call to wire was refused: “over the daily limit”"
    [bare] = run("[Permission Denied]")
    assert bare.headline == "The call to wire was refused"
    assert run("sent; note: earlier [permission denied: x] was retried") == []
    assert run("[deniedness index: 4]") == []

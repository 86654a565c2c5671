"""``footprint-lens export otlp``: the run as OTLP/JSON spans (lens/share/otlp.py).

Measured against the recording's own typed events, read here without Lens
(``recorded_calls``): as many ``chat`` spans as ``llm_start`` events and
``execute_tool`` spans as ``tool_start`` events, an ``invoke_agent`` span per
agent turn and a span per composition entered, each failed tool ERROR with its
error text, every verdict and warning the catalogue names as a span event; on
every corpus and family recording. Contents only with ``--content``; planted
secrets gone with ``--redact``.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from functools import lru_cache
from typing import Any

import pytest

from corpus_files import read_bytes, recording_path
from lens_cli.main import main as lens_main
from lens.run import open_run
from lens.share.otlp import otlp_document
from planted_secrets import PLANTED, assert_no_secret, write_planted
from recorded_calls import (LLM_END, LLM_START, TOOL_END, TOOL_START, count, every_recording,
                            failed_tools, typed_events)
from recorders.catalogue import VERDICT, WARNING, event_kind

RECORDINGS = every_recording()
NAMES = [f"{path.parent.name}/{path.name}" for path in RECORDINGS]
CONTENT_KEYS = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions",
                "gen_ai.tool.call.arguments", "gen_ai.tool.call.result")
COMPOSITIONS = ("Sequence", "Parallel", "Conditional", "Loop")
# A recorded text shorter than this may well occur in the export by chance ("ok").
LONG_TEXT = 12


@lru_cache(maxsize=None)
def _exported(index: int, content: bool = False) -> str:
    return json.dumps(otlp_document(open_run(read_bytes(RECORDINGS[index])), content=content),
                      ensure_ascii=False)


def _spans(index: int, content: bool = False) -> list[dict[str, Any]]:
    document = json.loads(_exported(index, content))
    (resource,) = document["resourceSpans"]
    (scope,) = resource["scopeSpans"]
    return scope["spans"]


def _attributes(span: dict[str, Any]) -> dict[str, Any]:
    values = {}
    for item in span["attributes"]:
        (kind, value), = item["value"].items()
        if kind == "intValue":
            value = int(value)
        elif kind == "arrayValue":
            value = [next(iter(v.values())) for v in value["values"]]
        values[item["key"]] = value
    return values


def _operation(span: dict[str, Any]) -> str | None:
    return _attributes(span).get("gen_ai.operation.name")


@pytest.mark.parametrize("index", range(len(RECORDINGS)), ids=NAMES)
def test_a_chat_span_per_model_call_and_an_execute_tool_span_per_tool_call(index):
    spans = _spans(index)
    chats = [s for s in spans if _operation(s) == "chat"]
    tools = [s for s in spans if _operation(s) == "execute_tool"]
    assert len(chats) == count(RECORDINGS[index], LLM_START)
    assert len(tools) == count(RECORDINGS[index], TOOL_START)
    assert all(s["name"] == "chat" or s["name"].startswith("chat ") for s in chats)
    assert all(s["name"].startswith("execute_tool ") for s in tools)
    assert all(s["name"] == f"execute_tool {_attributes(s)['gen_ai.tool.name']}" for s in tools)


@pytest.mark.parametrize("index", range(len(RECORDINGS)), ids=NAMES)
def test_one_trace_and_every_parent_exists(index):
    spans = _spans(index)
    ids = [s["spanId"] for s in spans]
    assert len(set(ids)) == len(ids)
    assert all(len(i) == 16 and int(i, 16) for i in ids)
    (trace,) = {s["traceId"] for s in spans}
    assert len(trace) == 32 and int(trace, 16)
    parents = [s["parentSpanId"] for s in spans if "parentSpanId" in s]
    assert set(parents) <= set(ids)
    assert any("parentSpanId" not in s for s in spans)
    for span in spans:
        start, end = span["startTimeUnixNano"], span["endTimeUnixNano"]
        assert start.isdigit() and end.isdigit() and int(end) >= int(start) > 10**18


@pytest.mark.parametrize("index", range(len(RECORDINGS)), ids=NAMES)
def test_an_agent_span_per_turn_and_a_span_per_composition_entered(index):
    events = typed_events(RECORDINGS[index])
    spans = _spans(index)
    turns = sum(1 for e in events if e["type"] == "agentfootprint.agent.turn_start")
    assert sum(1 for s in spans if _operation(s) == "invoke_agent") == turns
    entered = Counter(e["payload"]["kind"] for e in events
                      if e["type"] == "agentfootprint.composition.enter")
    kinds = Counter(_attributes(s).get("agentfootprint.scope.kind") for s in spans)
    assert {k: kinds[k] for k in COMPOSITIONS} == {k: entered[k] for k in COMPOSITIONS}


@pytest.mark.parametrize("index", range(len(RECORDINGS)), ids=NAMES)
def test_failed_tools_are_errors_with_their_error_text(index):
    spans = _spans(index)
    failed = failed_tools(RECORDINGS[index])
    errors = {_attributes(s)["gen_ai.tool.call.id"]: s["status"]["message"] for s in spans
              if _operation(s) == "execute_tool" and s.get("status", {}).get("code") == 2}
    assert errors == failed


@pytest.mark.parametrize("index", range(len(RECORDINGS)), ids=NAMES)
def test_every_verdict_and_warning_is_a_span_event(index):
    recorded = Counter(e["type"] for e in typed_events(RECORDINGS[index])
                       if event_kind(e["type"], e.get("payload")) in (VERDICT, WARNING))
    events = Counter(event["name"] for span in _spans(index) for event in span.get("events", ())
                     if event["name"] != "agentfootprint.integrity.disposition")
    assert events == recorded


def test_a_failed_tools_verdict_is_on_its_own_span():
    index = NAMES.index("agent-refund-multi-tools-error/recording.json")
    (failed,) = [s for s in _spans(index) if s.get("status", {}).get("code") == 2]
    assert failed["name"] == "execute_tool issue_refund"
    assert [e["name"] for e in failed["events"]] == ["agentfootprint.stream.tool_end"]


def test_a_crashed_model_call_and_its_run_are_errors_with_the_error_text():
    index = NAMES.index("crash-provider-error-envelope/envelope.json")
    (fatal,) = [e["payload"]["error"] for e in typed_events(RECORDINGS[index])
                if e["type"] == "agentfootprint.error.fatal"]
    errors = [s for s in _spans(index) if s.get("status", {}).get("code") == 2]
    assert sorted(s["name"].split()[0] for s in errors) == ["chat", "invoke_agent"]
    assert all(s["status"]["message"] == fatal for s in errors)
    (chat,) = [s for s in errors if _operation(s) == "chat"]
    assert "gen_ai.usage.input_tokens" not in _attributes(chat)


def test_token_counts_are_the_recorded_usage_and_cache_counts_where_recorded(tmp_path):
    document = json.loads(read_bytes(recording_path("agent-no-tools")))
    (end,) = [e for e in document["events"] if e["type"] == LLM_END]
    usage = dict(end["payload"]["usage"])
    end["payload"]["usage"] = {**usage, "cacheRead": 7, "cacheWrite": 3}
    (chat,) = [s for s in _document_spans(document) if _operation(s) == "chat"]
    attributes = _attributes(chat)
    assert attributes["gen_ai.usage.input_tokens"] == usage["input"]
    assert attributes["gen_ai.usage.output_tokens"] == usage["output"]
    assert attributes["gen_ai.usage.cache_read.input_tokens"] == 7
    assert attributes["gen_ai.usage.cache_creation.input_tokens"] == 3
    plain = _spans(NAMES.index("agent-no-tools/recording.json"))
    assert not any("cache" in key for s in plain for key in _attributes(s))


def _document_spans(document: dict) -> list[dict[str, Any]]:
    data = json.dumps(document).encode()
    return otlp_document(open_run(data))["resourceSpans"][0]["scopeSpans"][0]["spans"]


def test_loop_iterations_and_nested_compositions_keep_their_shape():
    loop = _spans(NAMES.index("loop-refine-4-iterations/recording.json"))
    (root,) = [s for s in loop if "parentSpanId" not in s]
    assert _attributes(root)["agentfootprint.scope.kind"] == "Loop"
    bodies = [s for s in loop if s.get("parentSpanId") == root["spanId"]]
    assert [_attributes(s)["agentfootprint.loop.iteration"] for s in bodies] == [1, 2, 3, 4]
    nested = _spans(NAMES.index("nested-sequence-with-parallel/recording.json"))
    by_id = {s["spanId"]: s for s in nested}
    for chat in (s for s in nested if _operation(s) == "chat"):
        chain = []
        span = chat
        while "parentSpanId" in span:
            span = by_id[span["parentSpanId"]]
            chain.append(_attributes(span)["agentfootprint.scope.kind"])
        assert chain in (["LLMCall", "Sequence"], ["LLMCall", "Parallel", "Sequence"])


def test_tools_sit_beside_the_model_call_that_asked_for_them_in_its_iteration():
    spans = _spans(NAMES.index("agent-refund-multi-tools-error/recording.json"))
    by_parent: dict[str, list[str]] = {}
    for span in spans:
        by_parent.setdefault(span.get("parentSpanId"), []).append(span["name"])
    iterations = [s for s in spans if s["name"].startswith("iteration:")]
    assert [s["name"] for s in iterations] == [f"iteration:{n}" for n in range(1, 6)]
    assert by_parent[iterations[1]["spanId"]] == [
        "chat mock-large", "execute_tool check_refund_policy", "execute_tool get_customer_tier"]


@pytest.mark.parametrize("index", range(len(RECORDINGS)), ids=NAMES)
def test_contents_only_with_content(index):
    events = typed_events(RECORDINGS[index])
    plain, full = _exported(index), _exported(index, content=True)
    assert not any(f'"{key}"' in plain for key in CONTENT_KEYS)
    prompts = [e["payload"].get("userPrompt") for e in events
               if e["type"] == "agentfootprint.agent.turn_start"]
    outputs = [e["payload"].get("content") for e in events if e["type"] == LLM_END]
    results = [e["payload"].get("result") for e in events
               if e["type"] == TOOL_END and e["payload"].get("error") is not True]
    # A text the framework also says in a verdict of its own (a permission
    # check's message to the model, a policy's reason, returned as the tool's
    # result) is shown as the verdict's words; a tool's own events are not that.
    verdict_words = {value for e in events
                     if e["type"] not in (TOOL_START, TOOL_END)
                     and event_kind(e["type"], e.get("payload")) in (VERDICT, WARNING)
                     for value in (e.get("payload") or {}).values() if isinstance(value, str)}
    texts = [t for t in prompts + outputs + results
             if isinstance(t, str) and len(t) >= LONG_TEXT and t not in verdict_words]
    leaked = [t for t in texts if json.dumps(t, ensure_ascii=False)[1:-1] in plain]
    assert leaked == []
    spans = [_attributes(s) for s in json.loads(full)["resourceSpans"][0]["scopeSpans"][0]["spans"]]
    said = [json.loads(a["gen_ai.output.messages"]) for a in spans if "gen_ai.output.messages" in a]
    written = {part.get("content") for messages in said for m in messages for part in m["parts"]}
    assert {o for o in outputs if o} <= written
    returned = {a.get("gen_ai.tool.call.result") for a in spans}
    assert {r for r in results if isinstance(r, str)} <= returned


def test_an_export_is_reproducible_and_two_runs_are_two_traces(tmp_path):
    source = RECORDINGS[NAMES.index("agent-refund-multi-tools-error/recording.json")]
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert lens_main(["export", "otlp", str(source), "-o", str(first)]) == 0
    assert lens_main(["export", "otlp", str(source), "-o", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    other = _spans(NAMES.index("agent-no-tools/recording.json"))
    assert other[0]["traceId"] != json.loads(first.read_text())[
        "resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]


@pytest.mark.parametrize("content", [False, True], ids=["plain", "content"])
@pytest.mark.parametrize("form", ["recording", "envelope-gz"])
def test_redact_leaves_no_byte_of_a_planted_secret(tmp_path, content, form):
    source = write_planted(tmp_path, form.split("-")[0], gzipped=form.endswith("gz"))
    options = ["--content"] if content else []
    out = tmp_path / "out.json"
    assert lens_main(["export", "otlp", str(source), "-o", str(out), *options]) == 0
    if content:  # the unredacted export carries them: the check below can fail
        unredacted = out.read_text(encoding="utf-8")
        assert "alice.smith@example.com" in unredacted and "AKIAQ3EXAMPLE7KEY2ZZ" in unredacted
    assert lens_main(["export", "otlp", str(source), "-o", str(out), "--redact",
                      *options]) == 0
    assert_no_secret(out.read_bytes())
    document = json.loads(out.read_text(encoding="utf-8"))
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    (failed,) = [s for s in spans if s.get("status", {}).get("code") == 2]
    assert failed["status"]["message"].startswith("PaymentGatewayTimeout")  # masked, still read


def test_the_share_menus_call_masks_an_unredacted_run(tmp_path):
    from lens.share.redaction import Redactor

    source = write_planted(tmp_path)
    data = source.read_bytes()
    document = otlp_document(open_run(data), content=True, redactor=Redactor())
    assert_no_secret(json.dumps(document, ensure_ascii=False).encode("utf-8"), PLANTED)
    assert "[email 1]" in json.dumps(document)


def test_a_file_that_is_not_a_run_exits_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_bytes(gzip.compress(b'{"not": "a run"'))
    assert lens_main(["export", "otlp", str(bad), "-o", str(tmp_path / "o.json")]) == 2
    error = capsys.readouterr().err.strip()
    assert error and "\n" not in error and "Traceback" not in error
    assert not (tmp_path / "o.json").exists()
    assert lens_main(["export", "otlp", str(tmp_path / "missing.json"), "-o",
                      str(tmp_path / "o.json")]) == 2


def _check_tree(spans: list[dict[str, Any]]) -> None:
    ids = {s["spanId"] for s in spans}
    assert len(ids) == len(spans) and len({s["traceId"] for s in spans}) == 1
    assert all(s.get("parentSpanId", next(iter(ids))) in ids for s in spans)
    assert all(int(s["endTimeUnixNano"]) >= int(s["startTimeUnixNano"]) for s in spans)


@pytest.mark.parametrize("fraction", [0.1, 0.3, 0.5, 0.77, 0.95])
def test_a_recording_cut_short_still_exports_every_call_it_holds(fraction):
    document = json.loads(read_bytes(recording_path("agent-refund-multi-tools-error")))
    document["events"] = document["events"][:int(len(document["events"]) * fraction)]
    spans = _document_spans(document)
    _check_tree(spans)
    types = Counter(e["type"] for e in document["events"])
    assert sum(_operation(s) == "chat" for s in spans) == types[LLM_START]
    assert sum(_operation(s) == "execute_tool" for s in spans) == types[TOOL_START]
    for span in spans:  # a call the cut left open is said to be open, not closed
        attributes = _attributes(span)
        if _operation(span) == "execute_tool" and attributes.get("agentfootprint.tool.ended") \
                is False:
            assert "agentfootprint.tool.result.type" not in attributes


def test_a_bare_boundary_log_exports_its_calls():
    from crash_recordings import boundary_events

    document = json.loads(read_bytes(recording_path("agent-refund-multi-tools-error")))
    spans = _document_spans(boundary_events(document))
    _check_tree(spans)
    assert sum(_operation(s) == "chat" for s in spans) == \
        sum(e["type"] == LLM_START for e in document["events"])


def test_numbers_and_times_past_what_otlp_carries_are_kept_readable():
    document = json.loads(read_bytes(recording_path("agent-no-tools")))
    (end,) = [e for e in document["events"] if e["type"] == LLM_END]
    end["payload"]["usage"] = {"input": 10**30, "output": 3}
    end["meta"]["wallClockMs"] = 1e22
    spans = _document_spans(document)
    _check_tree(spans)
    for span in spans:
        assert 0 <= int(span["startTimeUnixNano"]) <= int(span["endTimeUnixNano"]) < 2**64
        for item in span["attributes"]:
            if "intValue" in item["value"]:
                assert -2**63 <= int(item["value"]["intValue"]) < 2**63
    (chat,) = [s for s in spans if _operation(s) == "chat"]
    attributes = _attributes(chat)
    assert attributes["gen_ai.usage.input_tokens"] == str(10**30)
    assert attributes["agentfootprint.time.clamped"] is True

"""The OTLP export, proved against a real consumer: a local Arize Phoenix 20.x.

Every corpus and family recording is exported with ``footprint-lens export
otlp``, converted to protobuf (hex ids to bytes) by the Phoenix venv's python,
sent over OTLP/HTTP into a Phoenix project of its own, and read back through
Phoenix's REST API. What Phoenix stored must be what was exported (every span,
its name and parent, its status and events) and what the recording holds
(as many LLM and TOOL spans as ``llm_start`` and ``tool_start`` events, each
failed tool ERROR with its error text, the tokens of every ``llm_end``).

Phoenix runs from its own venv (``.ci/phoenix_venv``; see ``phoenix_server``).
Without it the tests skip locally, saying how to build it; under CI
(``CI`` set, as ``.ci/run`` runs) they fail instead: a CI that could not build
Phoenix has not proved the export.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lens_cli.main import main as lens_main
from phoenix_server import PhoenixServer, phoenix_python, to_protobuf
from recorded_calls import (LLM_START, TOOL_START, count, every_recording, failed_tools, tokens,
                            typed_events)

RECORDINGS = every_recording()
NAMES = [f"{path.parent.name}/{path.name}" for path in RECORDINGS]
CONTENT_CASE = next(i for i, path in enumerate(RECORDINGS)
                    if path.parent.name == "agent-refund-multi-tools-error")


@dataclass
class Case:
    path: Path
    project: str
    exported: list[dict[str, Any]]
    status: int = 0
    stored: list[dict[str, Any]] = field(default_factory=list)
    twin_of: Case | None = None  # an earlier file of the same run (the same trace)


def _phoenix() -> Path:
    python, problem = phoenix_python()
    if problem is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the Phoenix round trip cannot run under CI: {problem}")
        pytest.skip(f"{problem}; under CI this fails instead")
    return python


def _export(path: Path, out: Path, project: str, *options: str,
            fresh_ids: bool = False) -> list[dict[str, Any]]:
    """Export ``path`` with the CLI, tagged with its own Phoenix project; its spans.
    ``fresh_ids`` gives the spans other ids (the same run sent twice: Phoenix
    keeps a span id once), each id turned the same way so the links stay."""
    assert lens_main(["export", "otlp", str(path), "-o", str(out), *options]) == 0
    document = json.loads(out.read_text(encoding="utf-8"))
    document["resourceSpans"][0]["resource"]["attributes"].append(
        {"key": "openinference.project.name", "value": {"stringValue": project}})
    if fresh_ids:
        for span in document["resourceSpans"][0]["scopeSpans"][0]["spans"]:
            for key in ("traceId", "spanId", "parentSpanId"):
                if key in span:
                    span[key] = _other_id(span[key])
    out.write_text(json.dumps(document), encoding="utf-8")
    return document["resourceSpans"][0]["scopeSpans"][0]["spans"]


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory) -> dict[str, Any]:
    python = _phoenix()
    folder = tmp_path_factory.mktemp("otlp")
    cases, pairs = [], []
    for index, path in enumerate(RECORDINGS):
        exported = _export(path, folder / f"{index}.json", f"case-{index}")
        cases.append(Case(path, f"case-{index}", exported))
        pairs.append((folder / f"{index}.json", folder / f"{index}.pb"))
    content = Case(RECORDINGS[CONTENT_CASE], "with-content",
                   _export(RECORDINGS[CONTENT_CASE], folder / "content.json", "with-content",
                           "--content", fresh_ids=True))
    pairs.append((folder / "content.json", folder / "content.pb"))
    to_protobuf(python, pairs)
    # A family's envelope and recording of one run export the same trace (the
    # ids are the run's): Phoenix keeps a span id once, so the second is not sent.
    first_of_trace: dict[str, Case] = {}
    for case in cases:
        case.twin_of = first_of_trace.setdefault(case.exported[0]["traceId"], case)
        if case.twin_of is case:
            case.twin_of = None
    with PhoenixServer(python, tmp_path_factory.mktemp("phoenix")) as server:
        for case, (_, protobuf) in zip([*cases, content], pairs):
            if case.twin_of is None:
                case.status = server.send(protobuf.read_bytes())
        for case in [*cases, content]:
            if case.twin_of is None:
                case.stored = server.wait_for_spans(case.project, len(case.exported))
        for case in cases:
            if case.twin_of is not None:
                case.status, case.stored = case.twin_of.status, case.twin_of.stored
    return {"cases": cases, "content": content}


def _other_id(hex_id: str) -> str:
    return "".join(f"{15 - int(digit, 16):x}" for digit in hex_id)


def _without_project(spans: list[dict[str, Any]]) -> str:
    return json.dumps(spans, sort_keys=True)


@pytest.mark.parametrize("index", range(len(RECORDINGS)), ids=NAMES)
def test_phoenix_stores_every_exported_span_as_exported(round_trip, index):
    case = round_trip["cases"][index]
    if case.twin_of is not None:
        assert _without_project(case.exported) == _without_project(case.twin_of.exported)
    assert case.status == 200
    stored = {span["context"]["span_id"]: span for span in case.stored}
    exported = {span["spanId"]: span for span in case.exported}
    assert set(stored) == set(exported), "Phoenix holds other spans than were sent"
    assert {span["context"]["trace_id"] for span in case.stored} == \
        {span["traceId"] for span in case.exported}
    for span_id, span in exported.items():
        back = stored[span_id]
        assert back["name"] == span["name"]
        assert back["parent_id"] == span.get("parentSpanId")
        error = span.get("status", {}).get("code") == 2
        assert back["status_code"] == ("ERROR" if error else "UNSET"), span["name"]
        if error:
            assert back["status_message"] == span["status"]["message"]
        assert [e["name"] for e in back["events"]] == \
            [e["name"] for e in span.get("events", [])]


@pytest.mark.parametrize("index", range(len(RECORDINGS)), ids=NAMES)
def test_phoenix_reads_the_recordings_calls_tools_failures_and_tokens(round_trip, index):
    case = round_trip["cases"][index]
    kinds = [span["span_kind"] for span in case.stored]
    assert kinds.count("LLM") == count(case.path, LLM_START)
    assert kinds.count("TOOL") == count(case.path, TOOL_START)
    roots = [span for span in case.stored if span["parent_id"] is None]
    assert roots and all(span["span_kind"] in ("AGENT", "CHAIN") for span in roots)
    by_call_id = {span["attributes"].get("gen_ai.tool.call.id"): span
                  for span in case.stored if span["span_kind"] == "TOOL"}
    for call_id, error_text in failed_tools(case.path).items():
        assert by_call_id[call_id]["status_code"] == "ERROR"
        assert by_call_id[call_id]["status_message"] == error_text
    llm = [span["attributes"] for span in case.stored if span["span_kind"] == "LLM"]
    assert (sum(a.get("llm.token_count.prompt", 0) for a in llm),
            sum(a.get("llm.token_count.completion", 0) for a in llm)) == tokens(case.path)


def test_phoenix_reads_the_contents_as_messages(round_trip):
    """With ``--content``, Phoenix turns the conventions' message and tool
    attributes into its own: the turn's prompt is a user message of the first
    model call, and each tool's output is the recorded result."""
    case = round_trip["content"]
    assert case.status == 200 and len(case.stored) == len(case.exported)
    llm = [span["attributes"] for span in case.stored if span["span_kind"] == "LLM"]
    assert len(llm) == count(case.path, LLM_START)
    for attributes in llm:
        assert any(key.startswith("llm.input_messages.") for key in attributes)
        assert any(key.startswith("llm.output_messages.") for key in attributes)
    first = min(llm, key=lambda a: a["agentfootprint.iteration.index"])
    prompt = next(e["payload"]["userPrompt"] for e in typed_events(case.path)
                  if e["type"] == "agentfootprint.agent.turn_start")
    user = [first[f"llm.input_messages.{i}.message.content"] for i in range(len(first))
            if first.get(f"llm.input_messages.{i}.message.role") == "user"]
    assert user == [prompt]
    results = {e["payload"]["toolCallId"]: e["payload"]["result"]
               for e in typed_events(case.path) if e["type"] == "agentfootprint.stream.tool_end"}
    tools = [span["attributes"] for span in case.stored if span["span_kind"] == "TOOL"]
    assert tools and {a["gen_ai.tool.call.id"]: a["output.value"] for a in tools} == results

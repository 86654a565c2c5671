"""Raw event tables and the summary figures, on small inline recordings."""

from __future__ import annotations

import json

from lens_builders import boundary

from lens.event_tables import boundary_table, typed_table
from recorders.evidence import build_evidence_index
from lens.summary import run_facts, summarise
from recorders.loading import load_recording

EVENTS = [
    boundary("run.entry", "__root__#0", 1000),
    boundary("subflow.entry", "a#1", 1001, path=("__root__", "a"), subflowId="a"),
    boundary("llm.start", "a/call#2", 1002, path=("__root__", "a")),
    boundary("llm.end", "a/call#2", 1010, path=("__root__", "a"), toolCallCount=1,
             usage={"input": 12, "output": 3}),
    boundary("tool.start", "a/tools#3", 1011, path=("__root__", "a"), toolName="t", toolCallId="1"),
    boundary("tool.end", "a/tools#3", 1012, path=("__root__", "a"), toolCallId="1", error=True),
    boundary("subflow.exit", "a#1", 1013, path=("__root__", "ab"), subflowId="a"),
    boundary("run.exit", "__root__#0", 1500),
]


def test_every_event_is_a_row_and_filters_narrow_them():
    table = boundary_table(EVENTS)
    assert len(table.frame) == len(EVENTS)
    assert table.frame["#"].tolist() == list(range(len(EVENTS)))
    assert len(table.select(types=["llm.start", "llm.end"])) == 2
    # A path filter keeps the path and below, not a sibling that shares its prefix.
    assert table.select(path_prefix="__root__/a")["#"].tolist() == [1, 2, 3, 4, 5]
    assert table.select(text="\"error\":true")["#"].tolist() == [5]
    assert len(table.select(text="nothing like this")) == 0


def test_typed_paths_gain_the_root_segment_so_both_tables_filter_alike():
    typed = [{"type": "agentfootprint.stream.token", "payload": {"content": "x"},
              "meta": {"runtimeStageId": "a/call#2", "subflowPath": ["a"], "wallClockMs": 5}},
             {"type": "custom.thing", "payload": None, "meta": {}}]
    table = typed_table(typed)
    assert table.frame["subflowPath"].tolist() == ["__root__/a", ""]
    assert table.types() == ["agentfootprint.stream.token", "custom.thing"]


def test_the_summary_counts_calls_failures_tokens_and_duration():
    recording = load_recording(json.dumps(EVENTS))
    summary = summarise(build_evidence_index(recording), ["s1", "s2"])
    assert (summary.model_calls, summary.tool_calls, summary.failed_tool_calls) == (1, 1, 1)
    assert (summary.tokens_in, summary.tokens_out) == (12, 3)
    assert summary.duration_ms == 500 and summary.skills_visited == ("s1", "s2")


def test_the_header_facts_say_what_the_file_does_not_record():
    recording = load_recording(json.dumps(EVENTS))
    facts = dict(run_facts(recording, build_evidence_index(recording)))
    assert facts["format"].startswith("bare boundary-event list")
    assert facts["producer"] == "not recorded"
    assert facts["complete"] == "run.exit recorded (no envelope flag)"
    assert facts["events"] == "0 typed · 8 boundary"


def test_typed_rows_carry_their_catalogue_family_and_filter_by_it():
    typed = [{"type": "agentfootprint.stream.llm_start", "payload": {}, "meta": {}},
             {"type": "agentfootprint.error.retried", "payload": {}, "meta": {}},
             {"type": "agentfootprint.reliability.retried", "payload": {}, "meta": {}},
             {"type": "agentfootprint.permission.halt", "payload": {}, "meta": {}},
             {"type": "custom.thing", "payload": None, "meta": {}}]
    table = typed_table(typed)
    # error.retried belongs to recovery with reliability.*, not to "error".
    assert table.frame["family"].tolist() == ["stream", "recovery", "recovery", "permission", ""]
    assert table.families() == [("permission", 1), ("recovery", 2), ("stream", 1)]
    assert table.select(families=["recovery"])["#"].tolist() == [1, 2]
    assert table.select(families=["recovery"], text="reliability")["#"].tolist() == [2]
    assert boundary_table(EVENTS).families() == []

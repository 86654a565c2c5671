"""The whole-run timeline: every call once, on its scope's lane, failures marked."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from corpus_files import case_names, read_bytes, recording_path
from lens.run import open_run
from lens.timeline import MODEL, TOOL, build_timeline, lane_title
from lens.timeline_figure import timeline_figure

LLM_START = "agentfootprint.stream.llm_start"
TOOL_START = "agentfootprint.stream.tool_start"
TOOL_END = "agentfootprint.stream.tool_end"


def _typed(run, kind: str) -> list[dict]:
    return [e for e in run.recording.typed_events if e.get("type") == kind]


@pytest.mark.parametrize("case", case_names())
def test_every_model_and_tool_call_of_the_file_is_on_the_timeline_exactly_once(case):
    run = open_run(read_bytes(recording_path(case)))
    timeline = build_timeline(run.evidence)
    models = [s.record_id for s in timeline.spans if s.kind == MODEL]
    tools = [s.record_id for s in timeline.spans if s.kind == TOOL]
    assert len(models) == len(set(models)) and len(tools) == len(set(tools))
    # Counted from the file's typed stream, not from the index the timeline reads.
    assert len(models) + len(tools) + timeline.unplaced == \
        len(_typed(run, LLM_START)) + len(_typed(run, TOOL_START))


@pytest.mark.parametrize("case", case_names())
def test_failed_tools_are_the_files_tool_ends_with_error_true(case):
    run = open_run(read_bytes(recording_path(case)))
    timeline = build_timeline(run.evidence)
    failed_in_file = sum(1 for e in _typed(run, TOOL_END)
                         if isinstance(e.get("payload"), dict) and e["payload"].get("error") is True)
    assert sum(1 for s in timeline.spans if s.kind == TOOL and s.failed) == failed_in_file


def test_a_parallel_of_agents_has_a_lane_per_agent_and_calls_overlap_in_time():
    run = open_run(read_bytes(recording_path("parallel-3-reviewers")))
    timeline = build_timeline(run.evidence)
    assert [lane.title for lane in timeline.lanes] == ["legal", "security", "cost"]
    assert {s.lane for s in timeline.spans} == {0, 1, 2}


def _record(id_, start, end, scope=("__root__",), **more):
    base = dict(id=id_, scope=scope, ts_start=start, ts_end=end, ended=end is not None,
                model="m", failure=None, name="t", error=None, requested_by=None, tool_calls=[])
    return SimpleNamespace(**{**base, **more})


def test_times_are_relative_to_the_first_event_and_an_unended_call_runs_to_the_end():
    evidence = SimpleNamespace(calls=[_record(0, 1_000, 1_400), _record(1, 1_500, None)],
                               tool_calls=[_record(0, 1_410, 1_900, requested_by=0, error=True)])
    timeline = build_timeline(evidence)
    first, second = (timeline.span_of(MODEL, i) for i in (0, 1))
    assert (first.start_ms, first.end_ms, first.open) == (0, 400, False)
    assert (second.start_ms, second.end_ms, second.open) == (500, 900, True)
    tool = timeline.span_of(TOOL, 0)
    assert tool.failed and tool.asked_by == 0


def test_a_call_without_a_start_time_is_counted_not_dropped():
    evidence = SimpleNamespace(calls=[_record(0, None, None), _record(1, 5, 9)], tool_calls=[])
    timeline = build_timeline(evidence)
    assert timeline.unplaced == 1 and len(timeline.spans) == 1
    empty = build_timeline(SimpleNamespace(calls=[_record(0, None, None)], tool_calls=[]))
    assert empty.spans == () and empty.unplaced == 1


def test_lane_titles_leave_out_the_root_and_framework_wrappers():
    assert lane_title(("__root__",)) == "root"
    assert lane_title(("__root__", "sf-llm-call")) == "root"
    assert lane_title(("__root__", "body", "shard0", "sf-llm-call")) == "body › shard0"


def test_recording_text_in_the_figure_is_escaped():
    evidence = SimpleNamespace(
        calls=[_record(0, 0, 10, scope=("__root__", "<b>x</b>"), model="<img src=x>")],
        tool_calls=[])
    figure = timeline_figure(build_timeline(evidence)).to_dict()
    assert "<b>" not in str(figure["layout"]["yaxis"]["ticktext"])
    assert "<img" not in str(figure["data"][0]["hovertext"])
    assert "&lt;img src=x&gt;" in figure["data"][0]["hovertext"][0]


def test_the_current_steps_calls_are_outlined_in_their_own_trace():
    evidence = SimpleNamespace(calls=[_record(0, 0, 10), _record(1, 20, 30)], tool_calls=[])
    figure = timeline_figure(build_timeline(evidence), current=[(MODEL, 1)]).to_dict()
    outlined = [t for t in figure["data"] if t["name"] == "this step"]
    assert len(outlined) == 1 and outlined[0]["customdata"] == [[MODEL, 1]]


def test_a_run_with_thousands_of_calls_draws_a_bounded_number_of_bars_and_loses_none():
    from lens.timeline_figure import MERGE_FRACTION

    calls = [_record(i, i * 10, i * 10 + 8) for i in range(6_000)]
    figure = timeline_figure(build_timeline(SimpleNamespace(calls=calls, tool_calls=[])))
    bars = figure.data[0]
    assert len(bars.x) <= 1 / MERGE_FRACTION + 1
    held = sum(int(text.split(" ", 1)[0]) if "close together" in text else 1
               for text in bars.hovertext)
    assert held == 6_000

"""The lens projection keeps the step contract on every corpus recording.

Expectations come from evidence the projection does not read: the typed
event stream (model calls, tool calls, composition enter/iteration events)
and the build-time structure.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

import pytest

from corpus_files import case_names, recording_path
from recorders.lens_projection import LensStepRecorder
from recorders.loading import Recording, load_path
from recorders.projections import build_projection
from recorders.run_step import REACT
from typed_evidence import composition_kinds, last_run_events, model_call_edges

CASES = case_names()


@lru_cache(maxsize=None)
def _recording(case: str) -> Recording:
    return load_path(recording_path(case))


@lru_cache(maxsize=None)
def _lens(case: str):
    return build_projection(_recording(case), "lens")


def _labels(steps) -> list[str]:
    return [s.label for s in steps]


def _typed(case: str, type_suffix: str) -> list[dict]:
    return [e for e in last_run_events(_recording(case).typed_events)
            if e["type"] == f"agentfootprint.{type_suffix}"]


def _react_by_stage(projection) -> dict[str, list[tuple[str, list[str]]]]:
    found: dict[str, list] = defaultdict(list)
    for step in projection.steps.raw_steps():
        if step.kind == REACT:
            names = list((step.meta or {}).get("toolNames", [])) if step.label == "llm→tool" else []
            found[step.anchor.runtime_stage_id].append((step.label, names))
    return found


@pytest.mark.parametrize("case", CASES)
def test_every_model_call_is_a_react_pair_with_the_arrows_the_typed_stream_shows(case):
    expected: dict[str, list] = defaultdict(list)
    for edge in model_call_edges(_recording(case).typed_events):
        expected[edge.runtime_stage_id].append(
            (edge.label, edge.tool_names if edge.label == "llm→tool" else []))
    assert _react_by_stage(_lens(case)) == expected


@pytest.mark.parametrize("case", [c for c in CASES if not composition_kinds(_recording(c).typed_events)])
def test_agent_and_llmcall_roots_show_one_react_step_per_model_call_start_and_end(case):
    edges = model_call_edges(_recording(case).typed_events)
    steps = _lens(case).get_steps()
    assert _lens(case).root_kind in ("agent", "llmcall")
    assert [(s.label, s.anchor.runtime_stage_id) for s in steps] == \
        [(e.label, e.runtime_stage_id) for e in edges]
    assert steps[0].label == "user→llm"


@pytest.mark.parametrize("case", [c for c in CASES if not composition_kinds(_recording(c).typed_events)])
def test_llm_to_tool_steps_name_the_tools_the_call_asked_for(case):
    edges = [e for e in model_call_edges(_recording(case).typed_events) if e.label == "llm→tool"]
    steps = [s for s in _lens(case).get_steps() if s.label == "llm→tool"]
    assert [s.meta["toolNames"] for s in steps] == [e.tool_names for e in edges]
    for step, event in zip(steps, [e for e in _typed(case, "stream.llm_end")
                                   if e["payload"]["toolCallCount"] > 0]):
        assert len(step.meta["toolNames"]) == event["payload"]["toolCallCount"]


def test_parallel_of_three_forks_three_then_merges_three():
    structure = _recording("parallel-3-reviewers").structure
    branches = [c["subflowId"] for c in structure["children"]]
    steps = _lens("parallel-3-reviewers").get_steps()
    assert _labels(steps) == ["fork (3)", "merge (3)"]
    assert [t.target for t in steps[0].transitions] == branches
    assert sorted(t.source for t in steps[1].transitions) == sorted(branches)
    merge_ts = steps[1].ts_ms
    branch_exits = [e["ts"] for e in _recording("parallel-3-reviewers").boundary_events
                    if e["type"] == "subflow.exit" and e["subflowId"] in branches]
    assert merge_ts == max(branch_exits)  # merged only once every branch exited


def test_sequence_of_three_asks_forwards_forwards_answers():
    enter = _typed("sequence-3-llmcalls-envelope", "composition.enter")[0]["payload"]
    steps = _lens("sequence-3-llmcalls-envelope").get_steps()
    assert enter["childCount"] == 3
    assert _labels(steps) == ["asks", "forwards", "forwards", "answers"]
    hops = [(t.source, t.target) for s in steps for t in s.transitions]
    assert hops == [("actor:user", "step-classify"), ("step-classify", "step-extract"),
                    ("step-extract", "step-draft"), ("step-draft", "actor:user")]


def test_loop_has_one_iteration_step_per_pass():
    passes = _typed("loop-refine-4-iterations", "composition.iteration_start")
    steps = _lens("loop-refine-4-iterations").get_steps()
    assert len(passes) == 4
    assert _labels(steps) == ["iter 1", "iter 2", "iter 3", "iter 4"]
    assert _lens("loop-refine-4-iterations").root_kind == "loop"


def test_loop_of_parallel_has_a_pass_per_iteration_and_a_fork_merge_pair_per_pass():
    projection = _lens("large-loop-of-parallel")
    passes = _typed("large-loop-of-parallel", "composition.iteration_start")
    forks = _typed("large-loop-of-parallel", "composition.fork_start")
    assert len(projection.get_steps()) == len(passes) == 60
    body = projection.get_steps(["__root__", "body"])
    assert _labels(body) == ["fork (6)", "merge (6)"] * len(forks)


def test_conditional_decides_then_answers_and_the_chosen_agent_shows_its_arrows():
    projection = _lens("conditional-routes-to-agent")
    steps = projection.get_steps()
    assert _labels(steps) == ["routes to billing", "answers"]
    assert steps[0].meta["chosen"] == "billing"
    assert steps[1].transitions[0].source == "billing"
    billing = [e for e in model_call_edges(_recording("conditional-routes-to-agent").typed_events)]
    drilled = projection.get_steps(["__root__", "billing"])
    assert _labels(drilled) == [e.label for e in billing] == \
        ["user→llm", "llm→tool", "tool→llm", "llm→user"]


def test_drilling_into_each_agent_of_a_parallel_shows_that_agents_arrows():
    projection = _lens("nested-parallel-of-agents")
    assert _labels(projection.get_steps()) == ["fork (3)", "merge (3)"]
    edges = model_call_edges(_recording("nested-parallel-of-agents").typed_events)
    for agent in ("array", "multipath", "capacity"):
        mine = [e.label for e in edges if e.runtime_stage_id.startswith(f"{agent}/")]
        drilled = projection.get_steps(["__root__", agent])
        assert _labels(drilled) == mine == ["user→llm", "llm→tool", "tool→llm", "llm→user"]


def test_nested_sequence_applies_each_childs_own_row():
    projection = _lens("nested-sequence-with-parallel")
    assert _labels(projection.get_steps()) == ["asks", "forwards", "forwards", "answers"]
    assert _labels(projection.get_steps(["__root__", "step-reviewers"])) == ["fork (3)", "merge (3)"]
    assert _labels(projection.get_steps(["__root__", "step-reviewers", "style"])) == \
        ["user→llm", "llm→user"]


def test_drilling_into_an_internal_wrapper_shows_the_enclosing_scopes_steps_under_it():
    projection = _lens("sequence-3-llmcalls-envelope")
    wrapper = projection.get_steps(["__root__", "step-draft", "sf-llm-call"])
    assert _labels(wrapper) == ["user→llm", "llm→user"]
    assert projection.get_steps(["__root__", "nowhere"]) == []  # nothing ran there


@pytest.mark.parametrize("case", CASES)
def test_scope_kinds_match_what_the_typed_stream_announces(case):
    projection = _lens(case)
    kinds = [k.lower() for k in composition_kinds(_recording(case).typed_events)]
    if kinds:
        assert projection.root_kind == kinds[0]
        infos = projection.steps.scope_infos()
        assert sorted({i.kind for i in infos.values() if i.kind not in ("agent", "llmcall")}) == \
            sorted(set(kinds))
    else:
        assert projection.root_kind in ("agent", "llmcall")


@pytest.mark.parametrize("case", CASES)
def test_every_step_has_contiguous_seq_at_every_scope(case):
    projection = _lens(case)
    for path in projection.steps.scope_infos():
        assert [s.seq for s in projection.get_steps(path)] == list(range(len(projection.get_steps(path))))


def test_route_hops_land_where_the_resolver_says_the_cursor_moved():
    for case in ("skillgraph-rejected-cap-then-model-pick", "skillgraph-route-hops-envelope",
                 "skillgraph-ping-pong"):
        moves = [e["payload"]["cursorMove"]["to"] for e in _typed(case, "context.evaluated")]
        hops = [h for h in _lens(case).route.get_hops() if h.outcome != "rejected"]
        assert [h.to_skill for h in hops] == moves, case


def test_model_pick_enters_the_path():
    route = _lens("skillgraph-rejected-cap-then-model-pick").route
    pick = route.get_hops()[-1]
    assert (pick.outcome, pick.from_skill, pick.to_skill) == ("model-pick", "triage", "inventory")
    assert pick.why == 'read_skill("inventory") accepted from "triage"'
    assert route.get_path() == ["triage", "inventory"]
    assert [t.kind for t in route.get_trips()] == ["rejected-cap"]


def test_the_recorder_is_incremental_one_event_at_a_time():
    recording = _recording("nested-sequence-with-parallel")
    whole = LensStepRecorder()
    whole.ingest_domain_events(recording.boundary_events)
    stepwise = LensStepRecorder()
    counts = []
    for event in recording.boundary_events:
        stepwise.ingest_domain_event(event)
        counts.append(len(stepwise.raw_steps()))
    stepwise.finish()
    assert [s.to_wire() for s in stepwise.raw_steps()] == [s.to_wire() for s in whole.raw_steps()]
    assert counts == sorted(counts)  # steps only ever appear, never vanish mid-run

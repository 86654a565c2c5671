"""RunStepRecorder on the run shapes the reference itself tests, from hand-built logs."""

from __future__ import annotations

from boundary_builder import BoundaryLog
from recorders.run_step_recorder import RunStepRecorder, TraversalContext, coalesce_fork_bursts


def replay(log: BoundaryLog, per_event: bool = False) -> RunStepRecorder:
    recorder = RunStepRecorder(clock=lambda: -1)
    if per_event:
        for event in log.events:
            recorder.ingest_domain_event(event)
    else:
        recorder.ingest_domain_events(log.events)
    return recorder


def labels(steps) -> list[str]:
    return [s.label for s in steps]


def test_sequence_asks_forwards_and_answers():
    log = BoundaryLog().run_entry()
    for name in ("draft", "review", "polish"):
        log.leaf(name)
    recorder = replay(log.run_exit())

    steps = recorder.get_steps()
    assert recorder.root_kind == "sequence"
    assert labels(steps) == ["asks", "forwards", "forwards", "answers"]
    assert [(t.source, t.target) for s in steps for t in s.transitions] == [
        ("actor:user", "draft"), ("draft", "review"), ("review", "polish"), ("polish", "actor:user")]
    assert [s.seq for s in steps] == [0, 1, 2, 3]


def test_answers_step_takes_the_time_of_the_leaf_exit_it_came_from():
    log = BoundaryLog().run_entry().leaf("a").leaf("b")
    exit_ts = log.events[-1]["ts"]
    recorder = replay(log.run_exit())
    assert recorder.get_steps()[-1].ts_ms == exit_ts


def test_parallel_is_one_fork_then_a_merge_when_all_branches_exit():
    log = BoundaryLog().run_entry().fork("par", ["a", "b", "c"])
    log.enter("a", "LLMCall").enter("b", "LLMCall")
    log.exit("b").enter("c", "LLMCall").exit("c")
    recorder = replay(log)
    assert labels(recorder.get_steps()) == ["fork (3)"]  # "a" has not exited yet
    log.exit("a")
    recorder = replay(log.run_exit())

    steps = recorder.get_steps()
    assert recorder.root_kind == "parallel"
    assert labels(steps) == ["fork (3)", "merge (3)"]
    assert [t.target for t in steps[0].transitions] == ["a", "b", "c"]
    assert steps[0].meta == {"kind": "fork", "parentSubflowId": "par"}
    assert steps[1].meta == {"kind": "merge", "mergedCount": 3}


def test_per_event_ingest_keeps_only_the_first_branch_of_a_burst():
    log = BoundaryLog().run_entry().fork("par", ["a", "b"])
    steps = replay(log, per_event=True).get_steps()
    assert labels(steps) == ["fork (1)"]


def test_a_burst_is_cut_by_a_later_timestamp():
    log = BoundaryLog().fork("par", ["a"])
    log._add("context.injected", [], "x#1")  # a later timestamp closes the burst
    log._add("fork.branch", [], "fork#1", ts=log.events[0]["ts"], parentSubflowId="par",
             childName="late")
    items = list(coalesce_fork_bursts(log.events))
    assert len(items) == 2 and items[0].children == ["a"]  # the late branch is dropped


def test_a_burst_spans_other_events_with_the_same_timestamp():
    log = BoundaryLog()
    ts = 5000
    log._add("fork.branch", [], "f#1", ts=ts, parentSubflowId="p", childName="a")
    log._add("context.injected", [], "x#1", ts=ts)
    log._add("fork.branch", [], "f#1", ts=ts, parentSubflowId="p", childName="b")
    items = list(coalesce_fork_bursts(log.events))
    assert items[0].children == ["a", "b"]
    assert items[1]["type"] == "context.injected" and len(items) == 2


def test_conditional_decides_with_rationale():
    log = BoundaryLog().run_entry().decide("urgent", "mentions an outage")
    log.leaf("urgent")
    recorder = replay(log.run_exit())
    steps = recorder.get_steps()
    assert recorder.root_kind == "conditional"
    assert labels(steps) == ["routes to urgent", "asks", "answers"]
    assert steps[0].meta == {"kind": "decide", "chosen": "urgent",
                             "rationale": "mentions an outage"}


def test_agent_internal_deciders_are_skipped():
    log = BoundaryLog().run_entry()
    log.decide("tool-calls", path=["sf-route"], stage="sf-route/decide#4")
    log._add("decision.branch", ["agent", "route"], "agent/route#4", decider="d", chosen="final")
    recorder = replay(log)
    assert labels(recorder.raw_steps()) == ["routes to tool-calls"]


def test_loop_has_one_iteration_step_per_pass():
    log = BoundaryLog().run_entry()
    for i in range(1, 4):
        log.loop("body", i)
    recorder = replay(log)
    assert recorder.root_kind == "loop"
    assert labels(recorder.get_steps()) == ["iter 1", "iter 2", "iter 3"]
    assert recorder.get_steps()[2].meta == {"kind": "iteration", "index": 3, "target": "body"}


def test_single_llm_call_shows_two_react_steps():
    log = BoundaryLog().run_entry().leaf("sf-llm-call")
    recorder = replay(log.run_exit())
    steps = recorder.get_steps()
    assert recorder.root_kind == "leaf"
    assert labels(steps) == ["user→llm", "llm→user"]
    assert steps[0].transitions[0].target == "stage:llm:sf-llm-call/call-llm#5"
    assert [s.kind for s in recorder.raw_steps()] == ["sequential", "react", "react", "sequential"]


def test_tool_calls_turn_into_tool_arrows():
    log = BoundaryLog().run_entry().enter("agent", "Agent")
    log.llm(["agent"], "agent/call-llm#3", tool_calls=2).llm(["agent"], "agent/call-llm#8")
    recorder = replay(log.exit("agent").run_exit())
    assert labels(recorder.get_steps()) == ["user→llm", "llm→tool", "tool→llm", "llm→user"]


def test_drill_path_keeps_steps_under_the_prefix():
    log = BoundaryLog().run_entry()
    log.leaf("a").leaf("b")
    recorder = replay(log.run_exit())
    drilled = recorder.get_steps(["__root__", "b"])
    assert labels(drilled) == ["forwards", "answers"]
    assert [s.seq for s in drilled] == [0, 1]
    assert recorder.get_steps(["__root__", "nowhere"]) == []


def test_a_new_run_id_resets_everything():
    recorder = RunStepRecorder(clock=lambda: 7)
    first = TraversalContext(run_id="run-1", runtime_stage_id="a#1")
    recorder.on_run_start(first)
    recorder.on_subflow_entry("a", first, "LLMCall: a")
    assert len(recorder.raw_steps()) == 1
    second = TraversalContext(run_id="run-2", runtime_stage_id="b#1")
    recorder.on_run_start(second)
    assert recorder.raw_steps() == [] and recorder.root_kind is None
    recorder.on_subflow_entry("b", second, "LLMCall: b")
    assert labels(recorder.raw_steps()) == ["asks"]  # asks fires again in the new run


def test_live_steps_use_the_clock_and_replay_pins_it_to_the_event():
    recorder = RunStepRecorder(clock=lambda: 42)
    recorder.on_loop("body", 1, TraversalContext(run_id="r"))
    assert recorder.raw_steps()[0].ts_ms == 42
    log = BoundaryLog(start_ts=9000).loop("body", 1)
    assert replay(log).raw_steps()[0].ts_ms == 9001


def test_exit_with_an_empty_stack_is_ignored():
    log = BoundaryLog().run_entry().exit("ghost").run_exit()
    assert replay(log).raw_steps() == []


def test_tool_and_context_events_add_no_step():
    log = BoundaryLog().run_entry()
    log._add("tool.start", [], "t#1", toolName="x", toolCallId="c1")
    log._add("context.injected", [], "c#1")
    log._add("composition.start", [], "c#2")
    log._add("something.new", [], "n#1")
    assert replay(log).raw_steps() == []

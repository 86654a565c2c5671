"""The step detail: each kind of step finds its evidence in the recording."""

from __future__ import annotations

import json

from lens_builders import ROOT, boundary, step

from lens.step_detail import describe_step, step_caption
from recorders.evidence import build_evidence_index
from recorders.loading import load_recording

USER = "actor:user"


def evidence_of(events, typed=None):
    if typed is None:
        return build_evidence_index(load_recording(json.dumps(events)))
    document = {"events": typed, "snapshot": {"recorders": [
        {"name": "BoundaryEvents", "data": events, "meta": {"mode": "lean"}}]}}
    return build_evidence_index(load_recording(json.dumps(document)))


def agent_events(agent=""):
    """One agent: a call asking two tools (one fails), then a call answering.

    As in agentfootprint's recordings, an agent's stage ids start with the
    subflow it runs in (``a/call-llm#1`` runs at ``__root__/a``)."""
    p = f"{agent}/" if agent else ""
    at = ROOT + ((agent,) if agent else ())
    return [
        boundary("run.entry", "__root__#0", 100, payload={"message": "hi"}),
        boundary("llm.start", f"{p}call-llm#1", 110, at, model="m-1", provider="prov"),
        boundary("llm.end", f"{p}call-llm#1", 150, at, content="checking", toolCallCount=2,
                 usage={"input": 40, "output": 7}, stopReason="tool_use"),
        boundary("tool.start", f"{p}tool-calls#2", 151, at, toolName="lookup", toolCallId="c1",
                 args={"id": "A-1"}),
        boundary("tool.end", f"{p}tool-calls#2", 152, at, toolCallId="c1", result="found",
                 durationMs=1),
        boundary("tool.start", f"{p}tool-calls#2", 153, at, toolName="refund", toolCallId="c2",
                 args={"amount": 5}),
        boundary("tool.end", f"{p}tool-calls#2", 160, at, toolCallId="c2", result="Timeout!",
                 error=True, durationMs=7),
        boundary("llm.start", f"{p}call-llm#3", 161, at, model="m-1", provider="prov"),
        boundary("llm.end", f"{p}call-llm#3", 190, at, content="done", toolCallCount=0,
                 usage={"input": 60, "output": 9}, stopReason="stop"),
        boundary("run.exit", "__root__#0", 200, payload="done"),
    ]


def react(arrow, rid, **meta):
    source, target = {"llm→tool": (f"stage:llm:{rid}", f"stage:tool:{rid}"),
                      "tool→llm": (f"stage:tool:{rid}", f"stage:llm:{rid}"),
                      "llm→user": (f"stage:llm:{rid}", USER),
                      "user→llm": (USER, f"stage:llm:{rid}")}[arrow]
    return step("react", arrow, (source, target, "actor-arrow", arrow), rid=rid, ts=150,
                meta={"kind": "react", "actorArrow": arrow, **meta})


def facts(detail):
    return {fact.name: fact.value for fact in detail.facts}


def test_a_model_call_asking_for_tools_shows_output_usage_and_each_tool_asked():
    detail = describe_step(react("llm→tool", "call-llm#1"), evidence_of(agent_events()))
    assert detail.heading == "Model call · llm→tool"
    shown = facts(detail)
    assert (shown["model"], shown["provider"], shown["stop reason"]) == ("m-1", "prov", "tool_use")
    assert (shown["tokens in"], shown["tokens out"]) == ("40", "7")
    assert [t.text.full for t in detail.texts] == ["checking"]
    assert [(t.name, t.call_id, json.loads(t.args.full), t.result.full, t.failed) for t in detail.tools_asked] == [
        ("lookup", "c1", {"id": "A-1"}, "found", False),
        ("refund", "c2", {"amount": 5}, "Timeout!", True)]


def test_an_empty_output_beside_a_tool_request_takes_no_box_but_an_empty_answer_does():
    events = agent_events()
    events[2]["content"] = ""  # the model asked for tools without a word
    events[8]["content"] = ""  # and then answered with nothing
    evidence = evidence_of(events)
    assert describe_step(react("llm→tool", "call-llm#1"), evidence).texts == ()
    assert [t.text.full for t in describe_step(react("llm→user", "call-llm#3"),
                                               evidence).texts] == [""]


def test_the_next_call_shows_the_tool_results_fed_back_with_the_failure_marked():
    detail = describe_step(react("tool→llm", "call-llm#3"), evidence_of(agent_events()))
    assert [(t.name, t.failed) for t in detail.tool_results] == [("lookup", False), ("refund", True)]
    assert detail.texts == ()  # the start of a call has no output yet


def test_an_answer_shows_the_output_text():
    detail = describe_step(react("llm→user", "call-llm#3"), evidence_of(agent_events()))
    assert [t.text.full for t in detail.texts] == ["done"]
    assert detail.tools_asked == ()


def test_tools_pair_with_their_own_agent_when_parallel_agents_interleave():
    a, b = agent_events("a"), agent_events("b")
    interleaved = [e for pair in zip(a, b) for e in pair]
    evidence = evidence_of(interleaved)
    detail = describe_step(react("llm→tool", "b/call-llm#1"), evidence)
    assert [t.call_id for t in detail.tools_asked] == ["c1", "c2"]
    assert all(t.name in ("lookup", "refund") for t in detail.tools_asked)
    assert len(evidence.call_at_stage("a/call-llm#1").tool_calls) == 2


def test_a_lean_boundary_log_takes_content_and_args_from_the_typed_stream():
    lean = [{k: v for k, v in e.items() if k not in ("content", "args", "result", "payload")}
            for e in agent_events()]
    def typed_event(kind, rid, ts, **payload):
        return {"type": f"agentfootprint.stream.{kind}", "payload": payload,
                "meta": {"runtimeStageId": rid, "wallClockMs": ts, "runId": "r1"}}

    # The typed stream of a lean recording carries the payloads, but not every
    # field: here the refund's arguments were not recorded.
    typed = [
        typed_event("llm_start", "call-llm#1", 110, model="m-1", provider="prov"),
        typed_event("llm_end", "call-llm#1", 150, content="checking", toolCallCount=2),
        typed_event("tool_start", "tool-calls#2", 151, toolName="lookup", toolCallId="c1",
                    args={"id": "A-1"}),
        typed_event("tool_start", "tool-calls#2", 153, toolName="refund", toolCallId="c2"),
    ]
    detail = describe_step(react("llm→tool", "call-llm#1"), evidence_of(lean, typed))
    assert [t.text.full for t in detail.texts] == ["checking"]
    assert json.loads(detail.tools_asked[0].args.full) == {"id": "A-1"}
    assert detail.tools_asked[1].args is None  # the refund's arguments are nowhere in the file


def test_a_call_without_output_says_so_instead_of_guessing():
    lean = [{k: v for k, v in e.items() if k != "content"} for e in agent_events()]
    detail = describe_step(react("llm→user", "call-llm#3"), evidence_of(lean))
    assert detail.texts == ()
    assert any("no output text" in note for note in detail.absent)


def test_a_decide_step_shows_the_chosen_branch_and_rationale():
    events = [boundary("decision.branch", "route#1", 5, decider="Route", chosen="billing",
                       rationale="invoice mentioned")]
    decide = step("decide", "routes to billing", ("route#1", "billing", "decision-branch", "billing"),
                  rid="route#1", meta={"kind": "decide", "chosen": "billing",
                                       "rationale": "invoice mentioned"})
    detail = describe_step(decide, evidence_of(events))
    assert facts(detail)["chosen"] == "billing" and facts(detail)["decider"] == "Route"
    assert [t.text.full for t in detail.texts] == ["invoice mentioned"]


def test_fork_and_merge_list_their_branches():
    fork = step("fork", "fork (2)", (USER, "a", "fork-branch", "a"), (USER, "b", "fork-branch", "b"),
                meta={"kind": "fork", "parentSubflowId": "Initialize"})
    merge = step("merge", "merge (2)", ("a", USER, "next", "a"), ("b", USER, "next", "b"))
    evidence = evidence_of([])
    assert describe_step(fork, evidence).branches == ("a", "b")
    assert facts(describe_step(fork, evidence))["parent"] == "Initialize"
    assert describe_step(merge, evidence).branches == ("a", "b")


def test_a_handoff_shows_what_was_handed_over_and_what_came_back():
    events = [boundary("subflow.entry", "plan#1", 1, path=ROOT + ("plan",), subflowId="plan",
                       payload={"message": "plan it"}),
              boundary("subflow.exit", "plan#1", 9, path=ROOT + ("plan",), subflowId="plan",
                       payload="the plan")]
    asks = step("sequential", "asks", (USER, "plan", "next", "asks"), rid="plan#1")
    answers = step("sequential", "answers", ("plan", USER, "next", "answers"), rid="plan#1")
    evidence = evidence_of(events)
    assert json.loads(describe_step(asks, evidence).texts[0].text.full) == {"message": "plan it"}
    assert describe_step(answers, evidence).texts[0].text.full == "the plan"


def test_every_step_lists_the_events_recorded_at_its_stage():
    detail = describe_step(react("llm→tool", "call-llm#1"), evidence_of(agent_events()))
    assert [(e.stream, e.index, e.type) for e in detail.events] == [
        ("boundary", 1, "llm.start"), ("boundary", 2, "llm.end")]
    assert detail.call_id == evidence_of(agent_events()).call_at_stage("call-llm#1").id


def test_the_caption_names_the_tools_from_the_step_or_the_recording():
    evidence = evidence_of(agent_events())
    assert step_caption(react("llm→tool", "call-llm#1"), 1, 4, evidence) == \
        "step 2 of 4 · llm→tool · lookup, refund"
    assert step_caption(react("tool→llm", "call-llm#3"), 2, 4, evidence) == \
        "step 3 of 4 · tool→llm · lookup, refund"
    named = react("llm→tool", "call-llm#1", toolNames=["from_meta"])
    assert step_caption(named, 1, 4, evidence) == "step 2 of 4 · llm→tool · from_meta"

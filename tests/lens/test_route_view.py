"""The hop table rows, trip marks, and the step a hop leads to."""

from __future__ import annotations

import json

from lens_builders import boundary, step

from lens.route_view import hop_rows, hop_step_index, trip_marks
from recorders.evidence import build_evidence_index
from recorders.loading import load_recording
from recorders.route_recorder import RouteHop, RouteTrip


def hop(rid, iteration, outcome, **fields):
    return RouteHop(rid, iteration, outcome, fields.pop("why", ""), **fields)


def test_rows_carry_cause_caption_tool_reachable_and_reason():
    hops = [hop("e#1", 1, "entry", to_skill="triage", why='entered "triage"'),
            hop("e#2", 2, "route", from_skill="triage", to_skill="lookup", edge_label="WWN",
                last_tool="get_vm", why="r"),
            hop("t#3", 2, "rejected", from_skill="lookup", requested_skill="audit",
                reachable=("a", "b"), why="x")]
    rows = [r.as_record() for r in hop_rows(hops, [])]
    assert rows[0]["cause"] == "entry" and rows[0]["to"] == "triage" and rows[0]["hop"] == 1
    assert (rows[1]["caption"], rows[1]["tool"]) == ("WWN", "get_vm")
    assert (rows[2]["to"], rows[2]["reachable"], rows[2]["mark"]) == ("audit", "a, b", "✕ rejected")


def test_a_rejected_cap_trip_marks_the_rejection_that_tripped_it():
    hops = [hop("t#1", 1, "rejected", requested_skill="x"), hop("t#2", 2, "rejected"),
            hop("t#3", 3, "rejected"), hop("e#4", 3, "stay")]
    assert trip_marks(hops, [RouteTrip("rejected-cap", 3, ("s",), "3 in a row")]) == {2: ["rejected-cap"]}


def test_a_ping_pong_trip_marks_the_move_of_its_iteration():
    hops = [hop("e#1", 1, "entry"), hop("e#2", 2, "route"), hop("e#3", 3, "route"),
            hop("e#4", 4, "route")]
    assert trip_marks(hops, [RouteTrip("ping-pong", 4, ("a", "b"), "")]) == {3: ["ping-pong"]}


def evidence_of(events, typed=()):
    document = {"events": list(typed),
                "snapshot": {"recorders": [{"name": "BoundaryEvents", "data": events}]}}
    return build_evidence_index(load_recording(json.dumps(document)))


def llm_start(rid, iteration, ts):
    return {"type": "agentfootprint.stream.llm_start", "payload": {"iteration": iteration},
            "meta": {"runtimeStageId": rid, "wallClockMs": ts, "runId": "r"}}


def test_a_hop_leads_to_the_first_step_of_its_iterations_model_call():
    steps = [step("react", "user→llm", rid="call-llm#1", ts=10),
             step("react", "llm→tool", rid="call-llm#1", ts=20),
             step("react", "tool→llm", rid="call-llm#5", ts=30)]
    evidence = evidence_of([], [llm_start("call-llm#1", 1, 10), llm_start("call-llm#5", 2, 30)])
    assert hop_step_index(hop("sf-injection-engine/evaluate#4", 2, "stay"), steps, evidence) == 2


def test_a_rejection_leads_to_the_step_where_the_model_asked_for_the_tool():
    steps = [step("react", "user→llm", rid="call-llm#1", ts=10),
             step("react", "llm→tool", rid="call-llm#1", ts=20),
             step("react", "tool→llm", rid="call-llm#5", ts=30)]
    events = [boundary("llm.start", "call-llm#1", 10), boundary("llm.end", "call-llm#1", 20,
                                                                 toolCallCount=1),
              boundary("tool.start", "tool-calls#2", 21, toolName="read_skill", toolCallId="c")]
    evidence = evidence_of(events)
    assert hop_step_index(hop("tool-calls#2", 1, "rejected"), steps, evidence) == 1


def test_without_a_model_call_a_hop_falls_back_to_time_then_the_last_step():
    steps = [step("fork", "fork (3)", rid="context#6", ts=10),
             step("iteration", "iter 1", rid="tool-calls#9", ts=30)]
    typed = [{"type": "agentfootprint.context.evaluated", "payload": {},
              "meta": {"runtimeStageId": "evaluate#3", "wallClockMs": 25, "runId": "r"}}]
    evidence = evidence_of([], typed)
    assert hop_step_index(hop("evaluate#3", 1, "entry"), steps, evidence) == 1
    assert hop_step_index(hop("tool-calls#9", 1, "rejected"), steps, evidence) == 1  # own stage
    assert hop_step_index(hop("unknown#1", 9, "entry"), steps, evidence) == 1
    assert hop_step_index(hop("unknown#1", 9, "entry"), [], evidence) is None

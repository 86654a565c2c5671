"""RouteRecorder: hops, causes, captions, governors and resets."""

from __future__ import annotations

import math

from recorders.route_recorder import RouteHop, RouteRecorder, format_route_hop, js_to_number, replay_route

EVALUATED = "agentfootprint.context.evaluated"
REJECTED = "agentfootprint.skill.rejected"
TOOL_START = "agentfootprint.stream.tool_start"


def evaluated(recorder: RouteRecorder, iteration: int, skill: str, via: str = "route",
              label: str | None = None, by: str | None = None) -> None:
    entry = {"injectionId": skill, "via": via}
    if label is not None:
        entry["label"] = label
    payload = {"iteration": iteration, "routing": [entry]}
    if by is not None:
        payload["cursorMove"] = {"by": by, "to": skill}
    recorder.on_emit(EVALUATED, payload, f"eval#{iteration}")


def test_entry_then_route_then_stay():
    rec = RouteRecorder()
    evaluated(rec, 1, "triage", via="entry", label="start here")
    rec.on_emit(TOOL_START, {"toolName": "lookup"}, "t#1")
    evaluated(rec, 2, "billing", label="needs refund")
    evaluated(rec, 3, "billing")
    hops = rec.get_hops()
    assert [h.outcome for h in hops] == ["entry", "route", "stay"]
    assert hops[0].edge_label == "start here" and hops[0].from_skill is None
    assert (hops[1].from_skill, hops[1].to_skill, hops[1].last_tool) == ("triage", "billing", "lookup")
    assert hops[1].why == '"triage" → "billing" (needs refund) on lookup'
    assert hops[2].last_tool is None and hops[2].why == 'stayed in "billing"'
    assert rec.get_path() == ["triage", "billing"]


def test_the_resolvers_reported_cause_wins_and_a_model_pick_wears_no_caption():
    rec = RouteRecorder()
    evaluated(rec, 1, "triage", via="entry")
    evaluated(rec, 2, "inventory", label="an edge that did not fire", by="model-pick")
    hop = rec.get_hops()[1]
    assert hop.outcome == "model-pick" and hop.edge_label is None
    assert hop.why == 'read_skill("inventory") accepted from "triage"'


def test_cursor_prefers_route_then_entry_then_tree_then_model():
    rec = RouteRecorder()
    rec.on_emit(EVALUATED, {"iteration": 1, "routing": [
        {"injectionId": "m", "via": "model"}, {"injectionId": "t", "via": "tree"},
        {"injectionId": "e", "via": "entry"}, {"injectionId": 5, "via": "route"}]}, "s")
    assert rec.get_hops()[0].to_skill == "e"


def test_no_skill_routing_means_no_hop():
    rec = RouteRecorder()
    rec.on_emit(EVALUATED, {"iteration": 1, "routing": []}, "s")
    rec.on_emit(EVALUATED, {"iteration": 1, "cursorMove": {"by": "none"}}, "s")
    rec.on_emit(EVALUATED, "not an object", "s")
    assert rec.get_hops() == [] and rec.get_path() == []


def test_rejections_trip_the_cap_once_per_run_of_rejections():
    rec = RouteRecorder(max_rejected_retries=3)
    evaluated(rec, 1, "triage", via="entry")
    for i in range(2, 6):
        rec.on_emit(REJECTED, {"iteration": i, "currentSkillId": "triage",
                               "requestedId": "audit", "allowed": ["triage", "billing"]}, f"r#{i}")
        evaluated(rec, i, "triage")  # a stay does not break the run
    trips = rec.get_trips()
    assert [(t.kind, t.iteration, t.skills) for t in trips] == [("rejected-cap", 4, ("triage",))]
    assert trips[0].detail == "3 consecutive out-of-reach read_skill jumps"
    rejection = rec.get_rejections()[0]
    assert rejection.why == 'read_skill("audit") rejected from "triage" — reachable: triage, billing'
    assert rejection.to_wire()["reachable"] == ["triage", "billing"]


def test_a_cursor_move_rearms_the_rejection_cap():
    rec = RouteRecorder(max_rejected_retries=1)
    rec.on_emit(REJECTED, {"iteration": 1}, "r#1")
    evaluated(rec, 2, "a", via="entry")
    rec.on_emit(REJECTED, {"iteration": 3}, "r#3")
    assert [t.iteration for t in rec.get_trips()] == [1, 3]
    assert rec.get_rejections()[0].why == 'read_skill("undefined") rejected from "cold start" — reachable: (none)'


def test_ping_pong_trips_on_strict_alternation_within_the_window():
    rec = RouteRecorder(ping_pong_window=4)
    for i, skill in enumerate(["a", "b", "a", "b", "a"], start=1):
        evaluated(rec, i, skill, via="entry" if i == 1 else "route")
    trips = rec.get_trips()
    assert [(t.kind, t.iteration) for t in trips] == [("ping-pong", 4), ("ping-pong", 5)]
    assert trips[0].skills == ("a", "b")
    assert trips[0].detail == 'oscillating between "a" and "b" over the last 4 hops'


def test_three_skills_do_not_ping_pong():
    rec = RouteRecorder()
    for i, skill in enumerate(["a", "b", "c", "b", "c"], start=1):
        evaluated(rec, i, skill)
    assert [t.iteration for t in rec.get_trips()] == [5]  # only b,c,b,c alternates


def test_a_new_run_id_resets_and_the_same_one_does_not():
    rec = RouteRecorder()
    rec.on_run_start("run-1")
    evaluated(rec, 1, "a", via="entry")
    rec.on_run_start("run-1")
    rec.on_run_start(None)
    assert len(rec.get_hops()) == 1
    rec.on_run_start("run-2")
    assert rec.get_hops() == [] and rec.get_path() == [] and rec.get_trips() == []


def test_replay_starts_a_run_per_new_meta_run_id():
    events = [
        {"type": EVALUATED, "payload": {"iteration": 1, "routing": [{"injectionId": "a", "via": "entry"}]},
         "meta": {"runId": "r1", "runtimeStageId": "e#1"}},
        {"type": EVALUATED, "payload": {"iteration": 1, "routing": [{"injectionId": "b", "via": "entry"}]},
         "meta": {"runId": "r2", "runtimeStageId": "e#1"}},
    ]
    rec = replay_route(events)
    assert [h.to_skill for h in rec.get_hops()] == ["b"]
    assert rec.get_hops()[0].outcome == "entry"


def test_formatting_of_every_outcome():
    def why(outcome, **kw):
        return format_route_hop(RouteHop("s", 1, outcome, "", **kw))
    assert why("tool-proposal", to_skill="b") == "a tool's transition proposal accepted at cold start → \"b\""
    assert why("tool-proposal", from_skill="a", to_skill="b") == "a tool's transition proposal moved \"a\" → \"b\""
    assert why("intent", to_skill="b") == 'the message decisively matched "b" (turn-start classifier)'
    assert why("intent", from_skill="a", to_skill="b") == '"a" → "b" (the message decisively matched it)'
    assert why("continuity", to_skill="b") == 'carried from last turn — still in "b"'
    assert why("decider", to_skill="b") == 'the routing decider read the menu and chose "b"'
    assert why("model-pick", to_skill="b") == 'read_skill("b") accepted at cold start'
    assert why("route", from_skill="a", to_skill="b") == '"a" → "b"'


def test_iteration_is_read_as_javascript_number_does():
    assert js_to_number(None) == 0
    assert js_to_number("7") == 7
    assert js_to_number(" 2.5 ") == 2.5
    assert js_to_number(True) == 1
    assert js_to_number("") == 0
    assert js_to_number([]) == 0
    assert js_to_number(["4"]) == 4
    assert js_to_number("0x10") == 16
    assert js_to_number("Infinity") == math.inf
    assert math.isnan(js_to_number("seven"))
    assert math.isnan(js_to_number("1_000"))
    assert math.isnan(js_to_number({}))


def test_a_nan_iteration_is_written_as_null():
    rec = RouteRecorder()
    rec.on_emit(REJECTED, {"iteration": "soon"}, "r")
    assert rec.to_wire()["hops"][0]["iteration"] is None

"""What "Why this skill?" and the run figures say when there is no route to
show, and how trips and reasons are written out."""

from __future__ import annotations

import json

from boundary_builder import BoundaryLog
from lens.route_view import (full_reasons, hop_rows, no_route_message, skills_visited_text,
                             trip_line)
from recorders.loading import load_recording
from recorders.projections import build_projection
from recorders.route_recorder import RouteHop


def nested_skill_agent_recording(with_typed_stream: bool = True):
    """A Sequence whose agent ``support`` was given a skill, saved the way a
    composition saves its typed stream: no routing events for the agent."""
    log = BoundaryLog().run_entry().composition("Sequence")
    log.enter("support", "Agent")
    log._add("context.injected", ["support"], "support/context#3", source="skill",
             sourceId="refunds", slot="system-prompt")
    log.llm(["support"], "support/call-llm#4")
    log.exit("support").run_exit()
    typed = [{"type": "agentfootprint.composition.enter", "payload": {"kind": "Sequence"},
              "meta": {"runtimeStageId": "seed#0", "subflowPath": [], "wallClockMs": 1}}]
    document = {"events": typed if with_typed_stream else [],
                "snapshot": {"recorders": [{"name": "BoundaryEvents", "data": log.events}]}}
    return load_recording(json.dumps(document))


def test_a_nested_skill_graph_is_named_and_its_missing_route_said_once():
    projection = build_projection(nested_skill_agent_recording(), "lens")
    assert projection.route.get_hops() == []
    assert projection.nested_skill_graphs == ("support",)
    message = no_route_message(projection.nested_skill_graphs, has_typed_stream=True)
    assert "support" in message and "not in the recording" in message
    assert "No skill graph" not in message
    # Skills visited: not a false zero.
    assert skills_visited_text((), projection.nested_skill_graphs) == "not recorded"


def test_without_any_skill_the_run_has_no_skill_graph():
    assert no_route_message((), has_typed_stream=True).startswith("No skill graph in this run")
    assert skills_visited_text((), ()) == "0"
    assert skills_visited_text(("a", "b", "a"), ()) == "3"


def test_without_a_typed_stream_the_route_is_said_to_be_unknowable():
    message = no_route_message((), has_typed_stream=False)
    assert "no typed event stream" in message and "No skill graph" not in message


def test_a_trip_line_says_what_the_governor_saw():
    line = trip_line("rejected-cap", 3, "3 rejections in a row")
    assert line.startswith("⚠ rejected-cap at iteration 3 (")
    assert "out of reach" in line and line.endswith(": 3 rejections in a row")
    assert trip_line("something-new", 1, "d") == "⚠ something-new at iteration 1: d"


def test_every_hop_reason_is_written_out_whole():
    long_reason = "the model read skill 'inventory' because " + "x" * 500
    hops = [RouteHop("e#1", 1, "entry", "entered", to_skill="triage"),
            RouteHop("e#2", 2, "model-pick", long_reason, from_skill="triage",
                     to_skill="inventory")]
    text = full_reasons(hop_rows(hops, []))
    assert text.splitlines() == ["hop 1: entered", f"hop 2: {long_reason}"]

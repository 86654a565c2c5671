"""Causes the evidence fold's context events tell and no verdict does: a
Conditional's branch that found nothing, a turn a skill graph moved, the
model's reasoning beside a failure, and memory a summary left out. Each on
its real family recording, asserted against facts.json (the framework's own
account), plus small hand-built runs for the behaviour around them."""

from __future__ import annotations

import re

import pytest

from evidence_events import (agent_run, event, llm_end, llm_start, tool_end, tool_start,
                             turn_start)
from family_facts import family_facts
from family_files import family_recording
from lens.evidence.causes import likely_causes
from lens.run import OpenRun
from lens.scopes import ROOT
from recorders.evidence import build_from_events
from recorders.loading import load_path

MISROUTE, TURN_MOVED = "routed to a branch that found nothing", "turn moved to another skill"
REASONING, FOLDED = "the model's reasoning", "memory left entries out"
# What a person must never read in a cause's words: a type name or key=value.
_MACHINE_WORDS = re.compile(r"\b[a-z]+\.[a-z_]+\b|\w+=\S")


def _opened(case: str) -> OpenRun:
    return OpenRun(load_path(str(family_recording(case))))


def _causes(run: OpenRun, kind: str):
    route = run.projection("lens").route
    causes = likely_causes(run.evidence, run.step_map("lens", ROOT), hops=route.get_hops(),
                           trips=route.get_trips(), gaps=run.recording.gaps)
    return [cause for cause in causes if cause.kind == kind]


def _typed_positions(run: OpenRun, short: str) -> list[int]:
    return [position for position, e in enumerate(run.recording.typed_events)
            if e["type"].endswith(short)]


def _plain(cause, event_type: str) -> None:
    """Words for a person above; the event's type name and payload one click down."""
    assert cause.detail is not None and f'"agentfootprint.{event_type}"' in cause.detail.full
    for words in (cause.headline, cause.why):
        assert not _MACHINE_WORDS.search(words.replace("e.g.", "")), words
        assert "{" not in words


def test_a_conditional_that_chose_a_branch_whose_tool_found_nothing_says_so():
    expected = family_facts("support-conditional-misroute")["expected"]
    run = _opened("support-conditional-misroute")
    [cause] = _causes(run, MISROUTE)
    [route] = expected["routeDecided"]
    [tool] = expected["toolCalls"]
    assert tool["status"] == "absent"
    # The branch chosen and the tool that found nothing, in the headline.
    assert f"to {route['chosen']}," in cause.headline
    assert f"{tool['toolName']} found nothing" in cause.headline
    # The word the predicate matched is the tool's query and the user's own word;
    # the router's rationale and the absence's own account are quoted.
    assert tool["args"]["query"] in cause.headline
    assert f"“{route['rationale']}”" in cause.why
    assert tool["result"]["looked_for"] in cause.why
    assert tool["result"]["not_checked"][0]["what"] in cause.why
    _plain(cause, "composition.route_decided")
    # Placed on the route decision's step; it rests on the route and the tool's end.
    [decided] = _typed_positions(run, "composition.route_decided")
    step = run.step_map("lens", ROOT).steps[cause.nav.step]
    assert cause.nav.exact
    assert step.runtime_stage_id == run.recording.typed_events[decided]["meta"]["runtimeStageId"]
    assert decided in cause.events


def test_a_turn_moved_to_another_skill_names_both_skills_the_scores_and_what_was_left():
    expected = family_facts("support-turn-routing-two-turns")["expected"]
    run = _opened("support-turn-routing-two-turns")
    [cause] = _causes(run, TURN_MOVED)  # turn 1 entered billing: nothing left the prompt
    moved = next(r["payload"] for r in expected["turnRouted"] if "from" in r["payload"])
    assert f"from {moved['from']} to {moved['to']}" in cause.headline
    assert expected["turnStarts"][1]["userPrompt"] in cause.headline
    assert cause.headline.startswith(f"Turn {len(expected['turnStarts'])} ")
    scores = {s["id"]: s["score"] for s in moved["scores"]}
    assert moved["scorer"] in cause.why
    assert f"{moved['to']} {scores[moved['to']]:.2f}" in cause.why
    # The request the left skill was serving, and the answer that dropped it.
    assert expected["turnStarts"][0]["userPrompt"] in cause.why
    assert expected["answers"][1][:40] in cause.why
    _plain(cause, "skill.turn_routed")
    second = run.evidence.calls[-1]
    assert cause.nav.call_id == second.id and cause.nav.step is not None
    assert cause.events == (_typed_positions(run, "skill.turn_routed")[1],)


def test_the_reasoning_beside_a_failure_is_quoted_on_the_step_of_its_call():
    expected = family_facts("vendor-due-diligence-parallel")["expected"]
    run = _opened("vendor-due-diligence-parallel")
    [cause] = _causes(run, REASONING)  # both passes are one scope's: one cause
    last = expected["thinkingEnd"][-1]
    assert last["payload"]["blocks"][0]["content"][:80] in cause.headline
    assert f"In {last['subflowPath'][0]}," in cause.headline
    assert "once before" in cause.why
    _plain(cause, "stream.thinking_end")
    passes = _typed_positions(run, "stream.thinking_end")
    assert cause.events == (passes[-1],) + tuple(passes[:-1])  # the quoted pass first
    call = run.evidence.calls[cause.nav.call_id]
    assert call.scope == (last["subflowPath"][0],) and call.output


def _thinking_run(blocks: list, *, fails: bool) -> list[dict]:
    events = agent_run() if fails else [turn_start("hi", ts=1000), llm_start("call-llm#1", ts=1001),
                                        llm_end("call-llm#1", "Hello.", ts=1002)]
    last_start = max(i for i, e in enumerate(events) if e["type"].endswith("llm_start"))
    events.insert(last_start + 1, event("stream.thinking_end",
                                        {"iteration": 1, "blockCount": len(blocks) + 1,
                                         "totalChars": 9, "blocks": blocks},
                                        rid="sf-thinking/think#1", path=("sf-thinking",),
                                        ts=events[last_start]["meta"]["wallClockMs"]))
    return events


def test_reasoning_names_each_block_it_cannot_read_and_blocks_counted_but_missing():
    blocks = [{"type": "thinking", "content": "The lookup timed out; apologise."},
              {"type": "redacted_thinking", "data": "opaque"}]
    [cause] = [c for c in likely_causes(build_from_events(_thinking_run(blocks, fails=True)))
               if c.kind == REASONING]
    assert "“The lookup timed out; apologise.”" in cause.headline
    assert "block 2 of 2 (redacted_thinking) holds no readable text" in cause.why
    assert "3 blocks were counted but 2 blocks recorded" in cause.why


def test_reasoning_of_a_run_that_went_well_is_not_a_cause():
    blocks = [{"type": "thinking", "content": "Say hello."}]
    causes = likely_causes(build_from_events(_thinking_run(blocks, fails=False)))
    assert not [c for c in causes if c.kind == REASONING]


def test_a_summary_that_replaced_entries_names_them_and_quotes_the_strategy():
    expected = family_facts("billing-chat-summary-lost-detail")["expected"]
    run = _opened("billing-chat-summary-lost-detail")
    [cause] = _causes(run, FOLDED)
    [applied] = expected["strategyApplied"]
    assert applied["strategyId"] in cause.headline and "summary" in cause.headline
    assert f"{len(applied['droppedIds'])} earlier entries" in cause.headline
    for dropped in applied["droppedIds"]:
        assert dropped in cause.headline
    assert f"“{applied['reason']}”" in cause.why
    assert expected["answer"][:40] in cause.why
    _plain(cause, "memory.strategy_applied")
    assert cause.nav.call_id == 0 and cause.nav.step is not None
    assert cause.events == tuple(_typed_positions(run, "memory.strategy_applied"))


def _strategy(dropped: list[str], ts: float) -> dict:
    return event("memory.strategy_applied",
                 {"strategyId": "window", "strategyKind": "sliding-window", "reason": "kept 4",
                  "inputMemoryCount": 6, "outputMemoryCount": 4, "droppedIds": dropped,
                  "addedIds": []}, rid="sf-memory-read-window/pick#1",
                 path=("sf-memory-read-window",), ts=ts)


def test_a_strategy_that_drops_on_every_pass_is_one_cause_counting_each_entry_once():
    events = []
    for turn, dropped in enumerate((["m1", "m2"], ["m2", "m3"])):
        t0 = 1000 * (turn + 1)
        events += [turn_start("next", ts=t0), _strategy(dropped, t0 + 1),
                   llm_start(f"call-llm#{turn}", ts=t0 + 2),
                   llm_end(f"call-llm#{turn}", "ok", ts=t0 + 3)]
    [cause] = [c for c in likely_causes(build_from_events(events)) if c.kind == FOLDED]
    assert "left 3 earlier entries out before model call 1: m1, m2 and m3" in cause.headline
    assert "on 2 passes; each entry is counted once" in cause.why


@pytest.mark.parametrize("case", ["support-conditional-misroute",
                                  "support-turn-routing-two-turns",
                                  "billing-chat-summary-lost-detail"])
def test_a_run_without_an_error_tells_no_reasoning(case):
    assert not _causes(_opened(case), REASONING)


def test_a_reasoning_parse_failure_names_the_pass_its_model_call_and_the_parsers_words():
    events = agent_run()
    last_start = max(i for i, e in enumerate(events) if e["type"].endswith("llm_start"))
    failed = {"providerName": "anthropic", "subflowId": "sf-thinking", "iteration": 2,
              "error": "Unexpected end of thinking block at char 118", "errorName": "SyntaxError"}
    events.insert(last_start + 1, event("agent.thinking_parse_failed", failed,
                                        rid="sf-thinking/think#2", path=("sf-thinking",),
                                        ts=events[last_start]["meta"]["wallClockMs"]))
    [cause] = [c for c in likely_causes(build_from_events(events))
               if c.kind == "agent.thinking_parse_failed"]
    assert cause.is_error
    assert "reasoning block of pass 2" in cause.headline
    assert "anthropic" in cause.headline and f"“{failed['error']}”" in cause.headline


def _routed_pass(n: int, status: str) -> list[dict]:
    """One pass of a loop over a Conditional that chose billing, whose lookup ended ``status``."""
    scope, t0 = ("billing",), 1000 * (n + 1)
    end = tool_end(f"c{n}", {"looked_for": "invoices for 'cable'"}, scope=scope, ts=t0 + 4)
    end["payload"]["status"] = status
    return [event("composition.route_decided",
                  {"conditionalId": "router", "chosen": "billing",
                   "rationale": "predicate for 'billing' returned true"}, rid=f"route#{n}", ts=t0),
            turn_start("my cable is broken", scope=scope, ts=t0 + 1),
            llm_start(f"billing/call-llm#{n}", scope=scope, ts=t0 + 2, tools=1),
            llm_end(f"billing/call-llm#{n}", "", scope=scope, ts=t0 + 3, tool_calls=1),
            tool_start("find_invoices", f"c{n}", {"q": "cable"}, scope=scope, ts=t0 + 3.5),
            end]


def test_a_router_that_picks_the_same_empty_branch_on_every_pass_is_one_cause():
    events = [event("composition.enter", {"kind": "Conditional", "id": "router",
                                          "childCount": 2})]
    events += _routed_pass(0, "absent") + _routed_pass(1, "absent")
    [cause] = [c for c in likely_causes(build_from_events(events)) if c.kind == MISROUTE]
    assert "its other branch." in cause.why  # two children: one other, in the singular
    assert "1 more tool call there found nothing too" in cause.why
    assert "the router chose billing this way twice" in cause.why
    assert len(cause.events) == 4  # both decisions and both absences


def test_a_branch_whose_tools_found_something_is_no_misroute():
    events = _routed_pass(0, "ok")
    assert not [c for c in likely_causes(build_from_events(events)) if c.kind == MISROUTE]

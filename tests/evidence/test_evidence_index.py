"""The evidence index on small hand-built event lists: one behaviour per test."""

from __future__ import annotations

import pytest


from evidence_events import (agent_run, composed, event, inject, llm_end, llm_start,
                             tool_end, tool_start, turn_start)
from recorders.evidence import (MESSAGES, SOURCE_BOUNDARY, SOURCE_NONE, SYSTEM_PROMPT, TOOLS,
                                StepMap, build_from_events, usage_tokens)
from recorders.run_step import Anchor, RunStep


# ── served context ───────────────────────────────────────────────────

def test_a_call_is_served_what_was_injected_since_the_previous_call_by_slot():
    index = build_from_events(agent_run())
    first, second = index.calls
    assert [p.content for p in first.slots[MESSAGES].pieces] == ["refund A-1"]
    assert [p.content for p in second.slots[MESSAGES].pieces] == [
        "refund A-1", "Looking it up.", "Timeout"]
    assert [p.role for p in second.slots[MESSAGES].pieces] == ["user", "assistant", "tool"]
    assert [p.content for p in second.slots[SYSTEM_PROMPT].pieces] == ["You refund orders."]
    assert second.slots[TOOLS].pieces[0].source_id == "lookup"


def test_slot_budget_and_drops_come_from_slot_composed():
    events = [inject("messages", "hi", source="user", role="user"),
              composed("messages", cap=50, used=2, dropped=["old note"]),
              llm_start("call-llm#1"), llm_end("call-llm#1", "ok")]
    slot = build_from_events(events).calls[0].slots[MESSAGES]
    assert slot.budget == {"cap": 50, "used": 2, "headroomChars": 48}
    assert slot.dropped_count == 1 and slot.dropped_summaries == ("old note",)


def test_a_slot_without_slot_composed_reports_its_budget_missing():
    events = [inject("messages", "hi", source="user", role="user"),
              llm_start("call-llm#1"), llm_end("call-llm#1", "ok")]
    slot = build_from_events(events).calls[0].slots[MESSAGES]
    assert slot.composed_event_index is None and slot.budget is None
    assert [p.content for p in slot.pieces] == ["hi"]


def test_a_slot_not_recomposed_carries_over_from_the_previous_call():
    events = [inject("system-prompt", "be brief", source="base"), composed("system-prompt"),
              inject("messages", "q1", source="user", role="user"), composed("messages"),
              llm_start("call-llm#1", ts=1), llm_end("call-llm#1", "a1", ts=2),
              inject("messages", "q2", source="user", role="user"), composed("messages"),
              llm_start("call-llm#2", ts=3), llm_end("call-llm#2", "a2", ts=4)]
    second = build_from_events(events).calls[1]
    assert second.slots[SYSTEM_PROMPT].origin == "carried"
    assert second.slots[SYSTEM_PROMPT].carried_from == 0
    assert [p.content for p in second.slots[SYSTEM_PROMPT].pieces] == ["be brief"]
    assert second.slots[MESSAGES].origin == "fresh"


def test_the_llm_start_payload_is_kept():
    events = [llm_start("call-llm#1", messages=4, tools=2,
                        tool_list=[{"name": "a", "description": "d"}], model="big"),
              llm_end("call-llm#1", "x")]
    call = build_from_events(events).calls[0]
    assert (call.model, call.messages_count, call.tools_count) == ("big", 4, 2)
    assert call.tools_offered == ({"name": "a", "description": "d"},)


# ── provenance ───────────────────────────────────────────────────────

def test_a_tool_result_message_names_its_tool_call_and_the_call_that_asked():
    index = build_from_events(agent_run())
    piece = index.calls[1].slots[MESSAGES].pieces[2]
    tool = index.tool_calls[piece.tool_call]
    assert (tool.name, tool.tool_call_id, tool.args) == ("lookup", "c1", {"orderId": "A-1"})
    assert tool.requested_by == 0
    assert index.calls[0].tool_calls == (tool.id,)


def test_a_failing_tool_is_marked_error_and_a_good_one_is_not():
    events = [llm_start("c#1"), llm_end("c#1", "go", tool_calls=2),
              tool_start("a", "t1", {}), tool_end("t1", "boom", error=True),
              tool_start("b", "t2", {}), tool_end("t2", "fine")]
    a, b = build_from_events(events).tool_calls
    assert (a.error, b.error) == (True, False)


def test_a_tool_call_that_never_ended_has_no_result_and_no_error_verdict():
    events = [llm_start("c#1"), llm_end("c#1", "go", tool_calls=1), tool_start("a", "t1", {})]
    (tool,) = build_from_events(events).tool_calls
    assert tool.ended is False and tool.error is None and tool.result is None


def test_an_assistant_message_is_tied_to_the_call_that_wrote_it():
    index = build_from_events(agent_run())
    piece = index.calls[1].slots[MESSAGES].pieces[1]
    assert piece.written_by == 0


def test_an_assistant_message_is_not_tied_to_a_call_in_another_scope():
    events = [llm_start("a/call#1", scope=("a",)), llm_end("a/call#1", "same words", scope=("a",)),
              inject("messages", "same words", source="assistant", role="assistant",
                     scope=("b",)),
              llm_start("b/call#2", scope=("b",)), llm_end("b/call#2", "x", scope=("b",))]
    piece = build_from_events(events).calls[1].slots[MESSAGES].pieces[0]
    assert piece.written_by is None


def test_the_users_message_is_recognised_as_the_turn_prompt():
    piece = build_from_events(agent_run()).calls[0].slots[MESSAGES].pieces[0]
    assert piece.from_user_prompt is True


def test_a_user_message_equal_to_an_earlier_output_elsewhere_is_linked_to_it():
    # A Sequence hands one step's output to the next step as its user message.
    events = [llm_start("s1/sf-llm-call/call#1", scope=("s1", "sf-llm-call")),
              llm_end("s1/sf-llm-call/call#1", '{"invoice": 7}', scope=("s1", "sf-llm-call")),
              inject("messages", '{"invoice": 7}', source="user", role="user",
                     scope=("s2", "sf-llm-call")),
              llm_start("s2/sf-llm-call/call#2", scope=("s2", "sf-llm-call")),
              llm_end("s2/sf-llm-call/call#2", "done", scope=("s2", "sf-llm-call"))]
    piece = build_from_events(events).calls[1].slots[MESSAGES].pieces[0]
    assert piece.matches_output_of == 0


# ── scopes and runs ──────────────────────────────────────────────────

def test_interleaved_parallel_scopes_keep_their_own_context():
    a, b = ("a",), ("b",)
    events = [inject("messages", "for a", source="user", role="user", scope=a),
              inject("messages", "for b", source="user", role="user", scope=b),
              llm_start("b/call#2", scope=b), llm_start("a/call#1", scope=a),
              llm_end("a/call#1", "A", scope=a), llm_end("b/call#2", "B", scope=b)]
    index = build_from_events(events)
    by_scope = {c.scope: c for c in index.calls}
    assert [p.content for p in by_scope[a].slots[MESSAGES].pieces] == ["for a"]
    assert [p.content for p in by_scope[b].slots[MESSAGES].pieces] == ["for b"]
    assert (by_scope[a].output, by_scope[b].output) == ("A", "B")


def test_two_runs_reusing_stage_ids_do_not_chain_into_each_other():
    index = build_from_events(agent_run(run="run-1", t0=1000) + agent_run(run="run-2", t0=2000))
    assert len(index.calls) == 4
    assert index.calls[2].previous_in_scope is None  # first call of run 2
    assert index.calls[3].previous_in_scope == 2
    assert index.calls[3].slots[MESSAGES].pieces[2].tool_call == 1  # run 2's own c1
    assert any("2 runs" in n for n in index.notices)


def test_an_eviction_is_attached_to_the_next_call_with_the_evicted_piece():
    events = [inject("messages", "old fact", source="user", role="user", contentHash="h1"),
              llm_start("c#1"), llm_end("c#1", "a"),
              event("context.evicted", {"slot": "messages", "contentHash": "h1",
                                        "reason": "budget", "survivalMs": 5}, rid="compact#2"),
              llm_start("c#3"), llm_end("c#3", "b")]
    index = build_from_events(events)
    (eviction,) = index.calls[1].evictions
    assert eviction.reason == "budget" and eviction.pieces[0].content == "old fact"
    assert index.calls[0].evictions == ()


def test_a_fatal_error_while_a_call_is_open_is_its_failure():
    events = [llm_start("c#1"),
              event("error.fatal", {"error": "529 Overloaded", "stage": "__root__"})]
    (call,) = build_from_events(events, complete=False).calls
    assert call.ended is False and call.output is None
    assert call.failure == "529 Overloaded"
    assert "llm_end" in call.missing


# ── hostile and odd input ────────────────────────────────────────────

def test_non_dict_payloads_and_events_do_not_crash_and_are_reported():
    events = ["not an event", {"type": 7},
              {"type": "agentfootprint.context.injected", "payload": "oops", "meta": {}},
              {"type": "agentfootprint.stream.llm_start", "payload": [1, 2], "meta": None},
              {"type": "agentfootprint.stream.llm_end", "payload": None,
               "meta": {"runtimeStageId": 5}}]
    index = build_from_events(events)
    assert len(index.anomalies) >= 3
    (call,) = index.calls
    assert call.model is None and "model" in call.missing
    assert call.output is None and "content" in call.missing and "usage" in call.missing


def test_missing_payload_keys_are_listed_as_missing():
    events = [event("context.injected", {"slot": "messages"}, path=("sf-messages",)),
              llm_start("c#1"), event("stream.llm_end", {}, rid="c#1")]
    call = build_from_events(events).calls[0]
    (piece,) = call.slots[MESSAGES].pieces
    assert piece.content is None
    assert {"rawContent", "contentSummary", "source", "reason"} <= set(piece.missing)
    assert {"content", "usage", "stopReason", "durationMs"} <= set(call.missing)


def test_a_summary_is_used_when_the_full_text_is_missing_and_says_so():
    events = [event("context.injected", {"slot": "messages", "source": "user",
                                         "contentSummary": "short…", "reason": "r"},
                    path=("sf-messages",)),
              llm_start("c#1"), llm_end("c#1", "x")]
    piece = build_from_events(events).calls[0].slots[MESSAGES].pieces[0]
    assert piece.content == "short…" and piece.content_is_summary is True


def test_wrongly_typed_fields_become_missing_not_errors():
    events = [llm_start("c#1"),
              event("stream.llm_end", {"content": {"parts": ["a"]}, "usage": "lots",
                                       "toolCallCount": "two", "durationMs": True},
                    rid="c#1"),
              tool_start("t", "t1", None), event("stream.tool_end", {"toolCallId": ["x"]})]
    index = build_from_events(events)
    call = index.calls[0]
    assert call.output == '{"parts": ["a"]}'
    assert call.usage is None and call.tool_call_count is None and call.duration_ms is None
    # An end whose id is unusable closes the open tool call of its scope.
    (tool,) = index.tool_calls
    assert tool.ended and "result" in tool.missing


def test_a_recording_without_model_calls_says_there_is_nothing_to_show():
    index = build_from_events([turn_start("hello")])
    assert index.source == SOURCE_NONE and index.calls == ()
    assert index.notices and "no served context" in index.notices[0]


# ── boundary-only fallback ───────────────────────────────────────────

def _boundary(kind: str, rid: str, path: list, ts: float, **fields) -> dict:
    return {"type": kind, "runtimeStageId": rid, "subflowPath": ["__root__", *path],
            "depth": len(path), "ts": ts, "commitIdxBefore": 0, "commitIdxAfter": 0, **fields}


def test_without_a_typed_stream_calls_come_from_the_boundary_log_with_summaries_only():
    boundary = [
        _boundary("context.injected", "sf-messages/compose#1", ["sf-messages"], 1,
                  slot="messages", source="user", asRole="user", contentSummary="refund A-1",
                  reason="conversation history [0]"),
        _boundary("llm.start", "call-llm#2", [], 2, model="m", provider="p",
                  systemPromptChars=0, messagesCount=1, toolsCount=0, actorArrow="user→llm"),
        _boundary("llm.end", "call-llm#2", [], 3, content="done", toolCallCount=0,
                  usage={"input": 1, "output": 1}, stopReason="stop", actorArrow="llm→user"),
    ]
    index = build_from_events([], boundary, has_typed_stream=False)
    assert index.source == SOURCE_BOUNDARY
    (call,) = index.calls
    assert call.output == "done" and call.in_boundary_log is True
    piece = call.slots[MESSAGES].pieces[0]
    assert piece.content == "refund A-1" and piece.content_is_summary
    assert "No typed event stream" in index.notices[0]


def test_a_lean_boundary_log_without_typed_stream_reports_content_not_recorded():
    boundary = [
        _boundary("context.injected", "sf-messages/compose#1", ["sf-messages"], 1,
                  slot="messages", source="user", asRole="user", reason="r"),
        _boundary("llm.start", "call-llm#2", [], 2, model="m", provider="p",
                  systemPromptChars=0, messagesCount=1, toolsCount=0),
        _boundary("llm.end", "call-llm#2", [], 3, toolCallCount=0, usage={}, stopReason="stop"),
    ]
    index = build_from_events([], boundary, lean=True, has_typed_stream=False)
    call = index.calls[0]
    assert call.output is None and "content" in call.missing
    assert call.slots[MESSAGES].pieces[0].content is None
    assert "lean" in index.notices[0]


# ── search entries ───────────────────────────────────────────────────

def test_a_piece_served_to_several_calls_is_one_search_entry_listing_them():
    index = build_from_events(agent_run())
    entries = [e for e in index.search_entries if e.kind == "message" and e.text == "refund A-1"]
    assert len(entries) == 1 and entries[0].served_in == (0, 1)


def test_tool_arguments_are_searchable_with_their_quotes_unescaped():
    events = [llm_start("c#1"), llm_end("c#1", "go", tool_calls=1),
              tool_start("save", "t1", {"text": 'say "hi"'})]
    (entry,) = [e for e in build_from_events(events).search_entries
                if e.kind == "tool arguments"]
    assert 'say "hi"' in entry.text


# ── step mapping ─────────────────────────────────────────────────────

def _step(seq: int, kind: str, rid: str, ts: float, label: str) -> RunStep:
    return RunStep(seq, kind, (), Anchor(rid, ("__root__",)), label, ts)


def _react(seq: int, rid: str, ts: float, label: str) -> RunStep:
    return _step(seq, "react", rid, ts, label)


def test_a_call_maps_to_its_start_and_end_steps():
    index = build_from_events(agent_run(t0=1000))
    steps = [_react(0, "call-llm#10", 1004, "user→llm"), _react(1, "call-llm#10", 1005, "llm→tool"),
             _react(2, "call-llm#20", 1011, "tool→llm"), _react(3, "call-llm#20", 1012, "llm→user")]
    smap = StepMap(index, steps)
    assert smap.steps_for_call(0) == (0, 1) and smap.steps_for_call(1) == (2, 3)
    assert smap.call_at(2) == (1, True)
    assert smap.step_for_tool(0) == (1, True)  # the asking call's end step


def test_a_reused_stage_id_maps_only_to_the_run_whose_time_matches():
    index = build_from_events(agent_run(run="run-1", t0=1000) + agent_run(run="run-2", t0=2000))
    steps = [_react(0, "call-llm#10", 2004, "user→llm"), _react(1, "call-llm#10", 2005, "llm→tool")]
    smap = StepMap(index, steps)
    assert smap.steps_for_call(0) == ()        # run 1: not in this step list
    assert smap.steps_for_call(2) == (0, 1)    # run 2


def test_when_steps_hide_model_calls_the_nearest_earlier_step_is_offered():
    index = build_from_events(agent_run(t0=1000))
    fork = _step(0, "fork", "context#6", 1003, "fork (3)")
    decide = _step(1, "decide", "sf-route#7", 1006, "routes")
    smap = StepMap(index, [fork, decide])
    assert smap.steps_for_call(0) == ()
    assert smap.nearest_step(0) == 0
    assert smap.call_at(1) == (0, False)


@pytest.mark.parametrize("usage, tokens", [
    ({"input": 40, "output": 7}, (40, 7)),
    ({"inputTokens": 40, "outputTokens": 7}, (40, 7)),
    ({"input_tokens": 40, "output_tokens": 7}, (40, 7)),
    ({"promptTokens": 40, "completionTokens": 7}, (40, 7)),
    ({"prompt_tokens": 40, "completion_tokens": 7}, (40, 7)),
    ({"input": True, "inputTokens": 3}, (3, None)),   # a boolean is not a count
    ({"output": "7"}, (None, None)),                  # nor is a string
    (None, (None, None)),
    ([40, 7], (None, None)),
])
def test_token_usage_is_read_in_every_spelling_providers_use(usage, tokens):
    assert usage_tokens(usage) == tokens


def test_a_call_reports_the_tokens_of_its_usage_whatever_the_spelling():
    end = llm_end("c#1", "ok", ts=2)
    end["payload"]["usage"] = {"prompt_tokens": 12, "completion_tokens": 3}
    events = [llm_start("c#1", ts=1), end]
    assert build_from_events(events).calls[0].tokens == (12, 3)

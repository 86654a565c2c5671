"""Odd and hostile event lists never crash the index or the views."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lens.evidence.backtrack import backtrack
from lens.evidence.report import backtrack_report
from lens.evidence.search import search
from lens.evidence.served import served_context, served_context_for_step
from recorders.evidence import StepMap, build_from_events
from recorders.run_step import Anchor, RunStep

TYPES = ["context.injected", "context.slot_composed", "context.evaluated", "context.evicted",
         "context.budget_pressure", "stream.llm_start", "stream.llm_end", "stream.tool_start",
         "stream.tool_end", "agent.turn_start", "agent.turn_end", "agent.route_decided",
         "composition.route_decided", "error.fatal", "skill.rejected", "tools.repeated_call",
         "stream.token", "made.up"]
KEYS = ["slot", "source", "sourceId", "asRole", "reason", "rawContent", "contentSummary",
        "contentHash", "position", "budget", "droppedCount", "droppedSummaries", "content",
        "usage", "stopReason", "durationMs", "toolCallCount", "toolName", "toolCallId", "args",
        "result", "error", "userPrompt", "finalContent", "rationale", "chosen", "activeIds",
        "cursorMove", "routing", "tools", "model", "messagesCount", "iteration"]
SMALL_TEXT = st.sampled_from(["", "a", "c1", "messages", "tools", "system-prompt", "user",
                              "assistant", "tool", "tool-result", "<script>", "`", "\u202e",
                              "sf-messages", "final", "x" * 300])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True) | SMALL_TEXT,
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.sampled_from(KEYS) | SMALL_TEXT, children, max_size=4),
    max_leaves=8)
payloads = st.dictionaries(st.sampled_from(KEYS), json_values, max_size=8) | json_values
metas = st.fixed_dictionaries({}, optional={
    "runtimeStageId": st.sampled_from(["c#1", "c#2", "a/c#3", "t#4"]) | json_values,
    "subflowPath": st.lists(st.sampled_from(["a", "sf-messages", "sf-tools", "final"]),
                            max_size=3) | json_values,
    "wallClockMs": st.integers(0, 20) | json_values,
    "runId": st.sampled_from(["r1", "r2"]) | json_values,
}) | json_values
events = st.lists(
    st.fixed_dictionaries({"type": st.sampled_from(TYPES).map(lambda t: "agentfootprint." + t),
                           "payload": payloads, "meta": metas})
    | json_values,
    max_size=25)


def _exercise(index) -> None:
    steps = [RunStep(n, "react", (), Anchor(c.runtime_stage_id or "", ("__root__",)), "user→llm",
                     c.ts_start if c.ts_start is not None else 0)
             for n, c in enumerate(index.calls)]
    smap = StepMap(index, steps)
    for call in index.calls:
        served_context(index, call.id, smap)
        chain = backtrack(index, call.id, smap)
        backtrack_report(index, chain, recording_id="<r>", steps=steps)
    for position in range(len(steps)):
        served_context_for_step(index, smap, position)
    search(index, "a", smap)
    backtrack(index)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events)
def test_any_typed_event_list_builds_and_renders(typed):
    _exercise(build_from_events(typed))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.fixed_dictionaries(
    {"type": st.sampled_from(["llm.start", "llm.end", "tool.start", "tool.end",
                              "context.injected", "decision.branch"]),
     "runtimeStageId": st.sampled_from(["c#1", "c#2"]) | json_values,
     "subflowPath": st.just(["__root__"]) | json_values,
     "ts": st.integers(0, 9) | json_values},
    optional={k: json_values for k in ("slot", "content", "toolCallId", "toolName",
                                       "contentSummary", "rationale", "result")}),
    max_size=15))
def test_any_boundary_list_builds_and_renders_without_a_typed_stream(boundary):
    _exercise(build_from_events([], boundary, has_typed_stream=False, lean=True))

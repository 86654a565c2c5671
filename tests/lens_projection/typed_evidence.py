"""What the typed event stream says happened, computed without the projection.

The lens projection reads the boundary log; these helpers read only the
typed stream (stream.llm_start / llm_end / tool_start / tool_end), so a test
that compares the two checks the projection against independent evidence.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field


@dataclass
class ModelCallEdge:
    runtime_stage_id: str
    label: str
    tool_names: list[str] = field(default_factory=list)


def last_run_events(typed_events: list[dict]) -> list[dict]:
    """The boundary log keeps only the last run; so does this view of the typed stream."""
    run_ids = [e["meta"].get("runId") for e in typed_events]
    last = run_ids[-1] if run_ids else None
    return [e for e in typed_events if e["meta"].get("runId") == last]


def model_call_edges(typed_events: list[dict]) -> list[ModelCallEdge]:
    """Every model-call start and end, in stream order, with its actor arrow.

    Arrows are tracked per agent (per ``meta.subflowPath``): a start after a
    call of the same agent that asked for tools is ``tool→llm``; an end that
    asked for tools is ``llm→tool`` and names the tools that then started.
    """
    asked_tools: dict[tuple, bool] = defaultdict(bool)
    open_tool_edge: dict[tuple, ModelCallEdge | None] = {}
    started_tools: dict[tuple, list[str]] = defaultdict(list)
    edges: list[ModelCallEdge] = []
    for event in last_run_events(typed_events):
        kind, meta, payload = event["type"], event["meta"], event.get("payload") or {}
        who = tuple(meta.get("subflowPath") or ())
        if kind == "agentfootprint.stream.llm_start":
            if asked_tools[who]:
                edges.append(ModelCallEdge(meta["runtimeStageId"], "tool→llm", started_tools[who]))
            else:
                edges.append(ModelCallEdge(meta["runtimeStageId"], "user→llm"))
            asked_tools[who] = False
            started_tools[who] = []
            open_tool_edge[who] = None
        elif kind == "agentfootprint.stream.llm_end":
            asked = payload["toolCallCount"] > 0
            edge = ModelCallEdge(meta["runtimeStageId"], "llm→tool" if asked else "llm→user")
            edges.append(edge)
            asked_tools[who] = asked
            open_tool_edge[who] = edge if asked else None
        elif kind == "agentfootprint.stream.tool_start":
            started_tools[who] = [*started_tools[who], payload["toolName"]]
            if open_tool_edge.get(who) is not None:
                open_tool_edge[who].tool_names.append(payload["toolName"])
    return edges


def composition_kinds(typed_events: list[dict]) -> list[str]:
    return [e["payload"].get("kind") for e in last_run_events(typed_events)
            if e["type"] == "agentfootprint.composition.enter"]

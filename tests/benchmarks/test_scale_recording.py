"""The benchmark's scaling generator makes consistent, larger recordings."""

from __future__ import annotations

import json

from benchmarks.scale_recording import scale_recording
from corpus_files import load_json, recording_path
from lens.evidence.causes import likely_causes
from lens.run import open_run
from recorders.loading import load_recording
from recorders.projections import build_projection


def test_scaled_recording_is_consistent_and_projects_every_repeated_call():
    source = load_json(recording_path("large-agent-300-tool-calls"))
    base = load_recording(json.dumps(source))
    scaled = load_recording(json.dumps(scale_recording(source, 3, "large-agent-300-tool-calls")))

    calls = scaled.typed_counts["agentfootprint.stream.llm_start"]
    base_calls = base.typed_counts["agentfootprint.stream.llm_start"]
    assert calls > 2.5 * base_calls
    assert scaled.boundary_counts["llm.start"] == calls
    stages = [e["runtimeStageId"] for e in scaled.boundary_events if e["type"] == "llm.start"]
    assert len(set(stages)) == len(stages)  # fresh execution ids per copy
    ts = [e["ts"] for e in scaled.boundary_events]
    assert ts == sorted(ts)
    call_ids = [e["toolCallId"] for e in scaled.boundary_events if e["type"] == "tool.start"]
    assert len(set(call_ids)) == len(call_ids)

    lens = build_projection(scaled, "lens")
    assert len(lens.get_steps()) == 2 * calls
    assert lens.get_steps()[-1].label == "llm→user"


def test_scaled_recording_says_it_is_not_a_real_run():
    source = load_json(recording_path("large-agent-300-tool-calls"))
    scaled = scale_recording(source, 2, "large-agent-300-tool-calls")
    assert scaled["scaledFrom"]["factor"] == 2
    assert "scaled from a real recording" in scaled["scaledFrom"]["note"]


def _served_tool_results(run):
    """(served tool-result pieces, the tool calls they resolve to) of an open run."""
    index = run.evidence
    pieces = [piece for call in index.calls for slot in call.slots.values()
              if slot.origin == "fresh" for piece in slot.pieces if piece.is_tool_result]
    return pieces, index.tool_calls


def _serving(run):
    """How the run serves tool results back: calls never served, pieces that
    name no call, pieces whose text is not their call's result."""
    pieces, tools = _served_tool_results(run)
    served = {piece.tool_call for piece in pieces if piece.tool_call is not None}
    return {
        "unserved calls": sum(1 for tool in tools if tool.has_result and tool.id not in served),
        "unresolved pieces": sum(1 for piece in pieces if piece.tool_call is None),
        "pieces not their call's result": sum(
            1 for piece in pieces
            if piece.tool_call is not None and tools[piece.tool_call].result != piece.content),
    }


def test_scaled_copy_serves_its_own_tool_results_as_the_source_does():
    source = load_json(recording_path("large-agent-300-tool-calls"))
    original = open_run(json.dumps(source).encode())
    scaled = open_run(json.dumps(scale_recording(
        json.loads(json.dumps(source)), 3, "large-agent-300-tool-calls")).encode())

    assert len(scaled.evidence.tool_calls) > 2.5 * len(original.evidence.tool_calls)
    assert _serving(scaled) == _serving(original)
    pieces, _ = _served_tool_results(scaled)
    assert len(pieces) > 2.5 * len(_served_tool_results(original)[0])
    never = [c for c in likely_causes(scaled.evidence) if c.kind == "result never served"]
    assert never == [c for c in likely_causes(original.evidence)
                     if c.kind == "result never served"]

"""The benchmark's scaling generator makes consistent, larger recordings."""

from __future__ import annotations

import json

from benchmarks.scale_recording import scale_recording
from corpus_files import load_json, recording_path
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

"""EvidenceBuilder: the index grown event by event equals the complete build of
what was fed, at every step, and an index once taken never changes."""

from __future__ import annotations

import random

import pytest

from corpus_files import case_names, read_bytes, recording_path
from follow_support import sample, whole_lines
from recorders.evidence.build import EvidenceBuilder, build_from_events
from recorders.loading import load_recording

STREAMS = ["agent-failing-tool.ndjson", "agent-tool.firehose.ndjson", "parallel-agents.ndjson",
           "agent-tool.mid-run.ndjson"]


def _grown_equals_built(events: list, rng: random.Random) -> None:
    builder = EvidenceBuilder()
    taken = []
    at = 0
    while at < len(events):
        size = rng.randint(1, max(1, len(events) // 6))
        builder.feed(events[at:at + size])
        at += size
        prefix = events[:at]
        index = builder.snapshot(prefix)
        assert index == build_from_events(prefix), f"after {at} events"
        taken.append((prefix, index))
    for prefix, index in taken:  # every index handed out is still what it was
        assert index == build_from_events(prefix)


@pytest.mark.parametrize("name", STREAMS)
def test_stream_samples_grown_in_batches(name):
    _grown_equals_built(whole_lines(sample(name)), random.Random(name))


@pytest.mark.parametrize("case", [c for c in case_names() if not c.startswith("large-")])
def test_corpus_typed_streams_grown_in_batches(case):
    events = load_recording(read_bytes(recording_path(case))).typed_events
    _grown_equals_built(events, random.Random(case))


def test_one_event_at_a_time_with_malformed_events():
    events = whole_lines(sample("agent-failing-tool.ndjson"))
    events[3:3] = [{"type": "agentfootprint.stream.tool_end", "payload": "x", "meta": {}},
                   "not an event", {"payload": {}}]
    builder = EvidenceBuilder()
    for at, event in enumerate(events):
        builder.feed([event])
        assert builder.snapshot(events[:at + 1]) == build_from_events(events[:at + 1])


def test_live_counts_without_a_snapshot():
    events = whole_lines(sample("agent-failing-tool.ndjson"))
    builder = EvidenceBuilder()
    builder.feed(events)
    index = build_from_events(events)
    assert (builder.model_calls, builder.tool_calls, builder.failed_tool_calls) == (
        len(index.calls), len(index.tool_calls), sum(t.failed for t in index.tool_calls))
    assert builder.open_calls() == ()

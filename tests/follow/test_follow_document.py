"""A whole recording or envelope followed: reopened as a whole when rewritten in place."""

from __future__ import annotations

import json
import os

from corpus_files import read_bytes, recording_path
from follow_support import Clock, sample, whole_lines
from lens.follow import ENDED, RUNNING, STOPPED, FollowedFile
from lens.run import OpenRun
from recorders.loading import load_recording


def _counts(run: OpenRun) -> dict:
    return {"typedEvents": len(run.recording.typed_events),
            "modelCalls": len(run.evidence.calls), "toolCalls": len(run.evidence.tool_calls)}


def test_a_recording_rewritten_in_place_is_reopened_as_a_whole(tmp_path):
    first = read_bytes(recording_path("agent-one-tool-envelope"))
    second = read_bytes(recording_path("agent-refund-multi-tools-error"))
    path = tmp_path / "run.json"
    path.write_bytes(first[: len(first) // 2])  # caught while the writer is half way
    followed = FollowedFile(path)
    assert followed.poll() is False
    path.write_bytes(first)
    os.utime(path, ns=(1, 1_000_000_000))  # a different mtime, as a later write has
    assert followed.poll() is True
    summary = followed.summary().to_json()
    expected = _counts(OpenRun(load_recording(first)))
    assert {k: summary[k] for k in expected} == expected
    assert summary["kind"] == "envelope" and summary["status"] == ENDED
    with open(path, "wb") as out:  # rewritten in place: same file, other content
        out.write(second)
    assert followed.poll() is True
    expected = _counts(OpenRun(load_recording(second)))
    summary = followed.summary().to_json()
    assert {k: summary[k] for k in expected} == expected
    assert summary["kind"] == "recording"
    assert any("rewritten; reopened as a whole" in note for note in followed.notes)
    assert followed.open_run().recording.typed_events == load_recording(second).typed_events


def test_a_recording_taken_mid_run_reads_as_running_then_stopped_then_ended(tmp_path):
    mid = whole_lines(sample("agent-tool.mid-run.ndjson"))
    whole = whole_lines(sample("agent-tool.firehose.ndjson"))
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"events": mid}), encoding="utf-8")  # toRecording() mid-run
    clock = Clock()
    followed = FollowedFile(path, idle_seconds=10, clock=clock)
    followed.poll()
    assert followed.summary().to_json()["kind"] == "recording"
    assert followed.status == RUNNING
    clock.now += 11
    stopped = followed.summary().to_json()
    assert stopped["status"] == STOPPED
    assert stopped["openCalls"] == ["tool get_weather (event 14)"]
    assert stopped["newestCause"] == "Tool get_weather never returned"
    path.write_text(json.dumps({"events": whole}), encoding="utf-8")
    os.utime(path, ns=(1, 2_000_000_000))
    assert followed.poll() is True
    assert followed.summary().to_json()["status"] == ENDED
    assert followed.summary().to_json()["typedEvents"] == len(whole)


def test_a_compact_recording_caught_half_written_is_not_taken_for_a_stream(tmp_path):
    data = read_bytes(recording_path("agent-one-tool-envelope"))
    compact = json.dumps(json.loads(data), separators=(",", ":")).encode()
    path = tmp_path / "run.json"
    path.write_bytes(compact[:5000])  # one long line, not finished
    followed = FollowedFile(path)
    followed.poll()  # its bytes are read (and held), but they tell nothing yet
    assert followed.kind is None
    assert followed.summary().to_json()["status"] == "waiting"
    assert followed.summary().to_json()["unfinishedLine"].startswith(
        "line 1 is not finished yet: 5,000 bytes of it read and held")
    with open(path, "ab") as out:
        out.write(compact[5000:])
    assert followed.poll() is True
    assert followed.summary().to_json()["kind"] == "envelope"
    assert followed.summary().to_json()["typedEvents"] == len(load_recording(data).typed_events)


def test_the_follower_tells_a_stream_from_a_document_as_the_loader_does():
    """The follower decides from a file's first line whether it grows as an
    event stream; it asks the event stream's own sniff (the registry's), so a
    first line the loader does not read as a typed event is no stream here either."""
    from lens.follow import EVENT_STREAM, _sniff
    from recorders.read.registry import bytes_kind

    lines = [{"type": "agentfootprint.stream.llm_start", "payload": {}, "meta": {}},
             {"type": "agentfootprint.stream.llm_start"},  # no meta, no payload
             {"type": "x", "meta": {}, "recording": {}},  # an envelope-like object
             {"type": "x", "payload": {}, "format": "agentfootprint.recording.v1"}]
    for line in lines:
        text = (json.dumps(line) + "\n") * 2
        loader = bytes_kind(text.encode())
        loader_says = loader is not None and loader.name == EVENT_STREAM
        assert (_sniff(text.encode(), whole=True) == EVENT_STREAM) == loader_says, line

"""FollowedFile over a growing event stream: counts that match the file at
every step, rotation (mid-batch included), several runs, a run that stops,
and bad lines named by file and line."""

from __future__ import annotations

import json
import os
import random
import threading
import time

import pytest

from follow_support import (Clock, append, counts_of, expected_counts, sample,
                            whole_lines)
from lens import follow as follow_module
from lens.follow import ENDED, RUNNING, STOPPED, WAITING, FollowedFile, recording_beside
from recorders.errors import RecordingError
from recorders.event_stream import split_runs
from recorders.evidence.build import build_from_events

STREAMS = ["agent-failing-tool.ndjson", "agent-tool.firehose.ndjson", "parallel-agents.ndjson"]


def _pieces(data: bytes, rng: random.Random, most: int = 900) -> list[bytes]:
    """``data`` cut at random places, lines split across pieces."""
    pieces, at = [], 0
    while at < len(data):
        size = rng.randint(1, most)
        pieces.append(data[at:at + size])
        at += size
    return pieces


@pytest.mark.parametrize("name", STREAMS)
def test_counts_match_the_file_after_every_append(tmp_path, name):
    data = sample(name)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"")
    followed = FollowedFile(path)
    assert followed.poll() is False and followed.status == WAITING
    written = b""
    for piece in _pieces(data, random.Random(name)):
        append(path, piece)
        written += piece
        followed.poll()
        assert counts_of(followed.summary().to_json()) == expected_counts(whole_lines(written))
    assert followed.current.events == whole_lines(data)
    assert followed.status == ENDED


def test_a_writer_thread_appending_batches_while_the_follower_polls(tmp_path):
    data = sample("agent-tool.firehose.ndjson")
    lines = data.splitlines(keepends=True)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"")

    def write() -> None:
        rng = random.Random(7)
        at = 0
        while at < len(lines):
            size = rng.randint(1, 9)
            batch = b"".join(lines[at:at + size])
            at += size
            cut = rng.randint(1, len(batch) - 1)
            append(path, batch[:cut])  # a batch lands in two writes, as a large append may
            time.sleep(0.002)
            append(path, batch[cut:])
            time.sleep(rng.random() * 0.01)

    writer = threading.Thread(target=write)
    followed = FollowedFile(path)
    seen = []
    writer.start()
    while writer.is_alive():
        followed.poll()
        seen.append(followed.summary().to_json()["typedEvents"])
    writer.join()
    followed.poll()
    assert seen == sorted(seen)  # counts only grow
    assert counts_of(followed.summary().to_json()) == expected_counts(whole_lines(data))
    assert followed.current.events == whole_lines(data)


def test_the_file_is_read_once_never_from_its_start_again(tmp_path, monkeypatch):
    data = sample("parallel-agents.ndjson")
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"")
    read = []
    real = os.pread

    def counting(fd, size, offset):
        chunk = real(fd, size, offset)
        read.append((offset, len(chunk)))  # every read, the first line's sniff included
        return chunk

    monkeypatch.setattr(follow_module.os, "pread", counting)
    followed = FollowedFile(path)
    for piece in _pieces(data, random.Random(3)):
        append(path, piece)
        followed.poll()
    assert sum(size for _, size in read) == len(data)
    offsets = [offset for offset, size in read if size]
    assert offsets == sorted(set(offsets))


# ── rotation ──────────────────────────────────────────────────────────


def test_rotation_in_the_middle_of_a_batch_loses_and_repeats_nothing(tmp_path):
    data = sample("agent-tool.firehose.ndjson")
    lines = data.splitlines(keepends=True)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"")
    followed = FollowedFile(path)
    first, second = b"".join(lines[:20]), b"".join(lines[20:])
    append(path, first[:-40])          # the batch half written: its last line cut
    followed.poll()
    assert followed.summary().to_json()["typedEvents"] == 19
    append(path, first[-40:])          # the batch finished in the old file ...
    os.replace(path, f"{path}.1")      # ... which is then rotated away
    append(path, second)               # and the next batch starts a new file
    followed.poll()
    assert followed.current.events == whole_lines(data)
    assert counts_of(followed.summary().to_json()) == expected_counts(whole_lines(data))


@pytest.mark.parametrize("seed", range(25))
def test_random_rotations_between_and_inside_polls(tmp_path, seed):
    rng = random.Random(seed)
    data = sample("agent-tool.firehose.ndjson")
    lines = data.splitlines(keepends=True)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"")
    followed = FollowedFile(path)
    at = 0
    rotations = 0  # since the follower last read the file at the path
    while at < len(lines):
        size = rng.randint(1, 8)
        batch = b"".join(lines[at:at + size])
        at += size
        # Rotation comes before a batch, never inside one; one generation is
        # kept, so a third rotation before the follower reads again would
        # overwrite a file no reader held (gone from the disk).
        if path.stat().st_size and rotations < 2 and rng.random() < 0.35:
            os.replace(path, f"{path}.1")
            rotations += 1
            if rng.random() < 0.3:
                followed.poll()  # polled while the new file does not exist yet
        cut = rng.randint(1, len(batch) - 1)
        for piece in (batch[:cut], batch[cut:]):
            append(path, piece)
            if rng.random() < 0.6:
                followed.poll()
                rotations = 0
    followed.poll()
    assert followed.current.events == whole_lines(data)


def test_two_rotations_between_polls_read_the_generation_never_held(tmp_path):
    data = sample("agent-failing-tool.ndjson")
    lines = data.splitlines(keepends=True)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:10]))
    followed = FollowedFile(path)
    followed.poll()
    append(path, b"".join(lines[10:12]))
    os.replace(path, f"{path}.1")
    append(path, b"".join(lines[12:20]))
    os.replace(path, f"{path}.1")        # the generation with lines 12-19 is now .1
    append(path, b"".join(lines[20:]))
    followed.poll()
    assert followed.current.events == whole_lines(data)
    assert any("rotated between two reads" in note for note in followed.notes)


def test_a_stream_with_its_rotated_part_beside_it_reads_dot_1_first(tmp_path):
    path = tmp_path / "events.ndjson"
    (tmp_path / "events.ndjson.1").write_bytes(sample("rotated.ndjson.1"))
    path.write_bytes(sample("rotated.ndjson"))
    followed = FollowedFile(path)
    followed.poll()
    whole = whole_lines(sample("rotated.ndjson.1") + sample("rotated.ndjson"))
    assert followed.current.events == whole
    assert followed.status == ENDED


def test_a_file_truncated_in_place_is_read_again_as_the_next_part(tmp_path):
    lines = sample("agent-failing-tool.ndjson").splitlines(keepends=True)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:20]))
    followed = FollowedFile(path)
    followed.poll()
    path.write_bytes(b"".join(lines[20:25]))  # copytruncate: emptied, then appended
    followed.poll()
    assert followed.current.events == whole_lines(b"".join(lines[:25]))
    assert any("shorter than what was read" in note for note in followed.notes)


# ── runs and status ───────────────────────────────────────────────────


def test_two_runs_in_one_stream_are_two_runs(tmp_path):
    first, second = sample("agent-tool.firehose.ndjson"), sample("agent-failing-tool.ndjson")
    path = tmp_path / "events.ndjson"
    path.write_bytes(first + second[:3000])
    followed = FollowedFile(path)
    followed.poll()
    summary = followed.summary().to_json()
    runs = split_runs(whole_lines(first + second[:3000]))
    assert summary["runs"] == 2 and summary["status"] == RUNNING
    assert summary["runId"] == runs[1][0]["meta"]["runId"]
    assert counts_of(summary) == expected_counts(runs[1])
    append(path, second[3000:])
    followed.poll()
    assert counts_of(followed.summary().to_json()) == expected_counts(whole_lines(second))
    earlier = followed.runs[0]
    assert earlier.ended and earlier.events == whole_lines(first)
    # Each run's index is the complete build over that run's events alone.
    for run in followed.runs:
        opened = followed.open_run(run.run_id)
        assert opened.evidence == build_from_events(opened.recording.typed_events)
        assert opened.recording.typed_events == run.events
        assert opened.run_id == run.run_id


def test_a_run_that_stops_without_its_end_reads_as_stopped_with_the_open_call(tmp_path):
    clock = Clock()
    path = tmp_path / "events.ndjson"
    path.write_bytes(sample("agent-tool.mid-run.ndjson"))  # taken while get_weather ran
    followed = FollowedFile(path, idle_seconds=5, clock=clock)
    followed.poll()
    running = followed.summary().to_json()
    assert running["status"] == RUNNING
    assert running["openCalls"] == ["tool get_weather (event 14)"]
    assert running["newestCause"] is None  # a call still running is not a cause yet
    clock.now += 6
    followed.poll()
    stopped = followed.summary().to_json()
    assert stopped["status"] == STOPPED
    assert stopped["openCalls"] == ["tool get_weather (event 14)"]
    assert stopped["newestCause"] == "Tool get_weather never returned"
    append(path, b"\n")  # it grows again: running again
    followed.poll()
    assert followed.status == RUNNING


def test_the_end_of_a_parallel_is_its_own_exit_not_an_inner_agents_turn_end(tmp_path):
    events = whole_lines(sample("parallel-agents.ndjson"))
    exit_at = next(i for i, e in enumerate(events)
                   if e["type"] == "agentfootprint.composition.exit")
    inner_ends = [e for e in events[:exit_at] if e["type"] == "agentfootprint.agent.turn_end"]
    assert len(inner_ends) == 2  # both branches' agents ended before the Parallel did
    lines = sample("parallel-agents.ndjson").splitlines(keepends=True)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:exit_at]))
    followed = FollowedFile(path)
    followed.poll()
    assert followed.status == RUNNING
    append(path, b"".join(lines[exit_at:]))
    followed.poll()
    assert followed.status == ENDED


def test_an_empty_stream_is_waiting_and_the_open_run_says_nothing_is_written(tmp_path):
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"")
    followed = FollowedFile(path)
    followed.poll()
    assert followed.summary().to_json()["status"] == WAITING
    with pytest.raises(RecordingError, match="nothing written yet"):
        followed.open_run()


def test_open_run_grows_and_is_cheap_to_ask_again(tmp_path):
    lines = sample("agent-failing-tool.ndjson").splitlines(keepends=True)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:15]))  # up to get_weather's start
    followed = FollowedFile(path)
    followed.poll()
    early = followed.open_run()
    assert followed.open_run() is early  # nothing new: the same object
    assert [t.ended for t in early.evidence.tool_calls] == [False]
    append(path, b"".join(lines[15:]))
    followed.poll()
    late = followed.open_run()
    assert late is not early
    assert [t.failed for t in late.evidence.tool_calls] == [True]
    # What was handed out before stays as it was.
    assert [t.ended for t in early.evidence.tool_calls] == [False]
    assert len(early.recording.typed_events) == 15
    assert late.evidence == build_from_events(whole_lines(b"".join(lines)))
    assert any(gap.code == "no-boundary-log" for gap in late.recording.gaps)


# ── bad input ─────────────────────────────────────────────────────────


def test_garbage_appended_mid_stream_is_named_by_file_and_line(tmp_path):
    lines = sample("agent-failing-tool.ndjson").splitlines(keepends=True)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:10]))
    followed = FollowedFile(path)
    followed.poll()
    append(path, b"".join(lines[10:12]) + b"<html>oops</html>\n" + b"".join(lines[12:]))
    with pytest.raises(RecordingError) as raised:
        followed.poll()
    message = str(raised.value)
    assert str(path) in message and "line 13" in message and "\n" not in message
    assert followed.summary().to_json()["typedEvents"] == 12  # what came before it is kept
    with pytest.raises(RecordingError, match="line 13"):
        followed.poll()  # and the follow stays stopped there


def test_an_event_missing_what_the_views_need_is_named_by_line(tmp_path):
    events = whole_lines(sample("agent-failing-tool.ndjson"))
    bad = next(i for i, e in enumerate(events) if e["type"] == "agentfootprint.stream.llm_start")
    del events[bad]["meta"]["runtimeStageId"]
    path = tmp_path / "events.ndjson"
    path.write_text("".join(json.dumps(e) + "\n" for e in events) , encoding="utf-8")
    followed = FollowedFile(path)
    with pytest.raises(RecordingError) as raised:
        followed.poll()
    assert f"line {bad + 1}" in str(raised.value) and "runtimeStageId" in str(raised.value)
    assert followed.summary().to_json()["typedEvents"] == bad


def test_a_folder_is_refused_by_name(tmp_path):
    with pytest.raises(RecordingError, match="not a regular file"):
        FollowedFile(tmp_path).poll()


def test_the_full_recording_beside_the_stream_is_found_by_run_id(tmp_path):
    (tmp_path / "run-1.json").write_text("{}")
    stream = tmp_path / "events.ndjson"
    assert recording_beside(stream, "run-1") == tmp_path / "run-1.json"
    assert recording_beside(stream, "run-2") is None
    assert recording_beside(stream, "../run-1") is None
    assert recording_beside(stream, None) is None


def test_a_dot_1_that_is_not_a_stream_is_left_alone(tmp_path):
    path = tmp_path / "events.ndjson"
    (tmp_path / "events.ndjson.1").write_text('{\n  "format": "something else"\n}\n')
    path.write_bytes(sample("agent-failing-tool.ndjson"))
    followed = FollowedFile(path)
    followed.poll()
    assert followed.current.events == whole_lines(sample("agent-failing-tool.ndjson"))


def test_a_stream_just_rotated_reads_dot_1_then_the_new_file_once_it_appears(tmp_path):
    path = tmp_path / "events.ndjson"
    lines = sample("agent-failing-tool.ndjson").splitlines(keepends=True)
    (tmp_path / "events.ndjson.1").write_bytes(b"".join(lines[:20]))
    followed = FollowedFile(path)
    followed.poll()
    assert followed.summary().to_json()["typedEvents"] == 20
    path.write_bytes(b"".join(lines[20:]))
    followed.poll()
    assert followed.current.events == whole_lines(b"".join(lines))


@pytest.mark.parametrize("name", STREAMS + ["agent-tool.mid-run.ndjson"])
def test_a_followed_runs_gaps_are_the_loaders_for_the_same_events(tmp_path, name):
    from recorders.loading import load_recording

    data = sample(name)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"")
    followed = FollowedFile(path)
    for cut in range(0, len(data), 2000):
        append(path, data[cut:cut + 2000])
        followed.poll()
        written = data[: cut + 2000]
        if followed.current is None:
            continue
        complete = written[: written.rfind(b"\n") + 1]
        expected = load_recording(complete).gaps
        assert followed.open_run().recording.gaps == expected


def test_a_rotated_files_last_line_without_newline_is_read_and_a_cut_one_reported(tmp_path):
    lines = sample("agent-failing-tool.ndjson").splitlines(keepends=True)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:10]) + lines[10].rstrip(b"\n"))  # whole, no newline
    followed = FollowedFile(path)
    followed.poll()
    assert followed.summary().to_json()["typedEvents"] == 10  # the last line may still be growing
    os.replace(path, f"{path}.1")
    path.write_bytes(b"".join(lines[11:20]) + lines[20][:30])  # this one is cut ...
    followed.poll()
    assert followed.summary().to_json()["typedEvents"] == 20
    os.replace(path, f"{path}.1")  # ... and rotated away cut
    path.write_bytes(b"".join(lines[21:]))
    followed.poll()
    assert followed.summary().to_json()["typedEvents"] == len(lines) - 1
    assert any("ends in the middle of line 10" in note for note in followed.notes)


def test_the_applications_own_events_do_not_become_the_run_being_written(tmp_path):
    events = whole_lines(sample("agent-tool.mid-run.ndjson"))
    emitted = {"type": "agentfootprint.pause.request", "payload": {"reason": "ask"},
               "meta": {"runId": "consumer-scope", "wallClockMs": 1, "runtimeStageId": "x",
                        "subflowPath": []}}
    path = tmp_path / "events.ndjson"
    path.write_text("".join(json.dumps(e) + "\n" for e in events[:10] + [emitted] + events[10:]),
                    encoding="utf-8")
    followed = FollowedFile(path)
    followed.poll()
    summary = followed.summary().to_json()
    assert summary["runId"] == events[0]["meta"]["runId"] and summary["runs"] == 2
    assert summary["typedEvents"] == len(events)
    assert split_runs(events[:10] + [emitted] + events[10:])[1] == [emitted]


def test_the_grown_open_run_has_everything_an_open_run_built_on_open_has(tmp_path):
    from lens.run import OpenRun
    from recorders.loading import load_recording

    path = tmp_path / "events.ndjson"
    path.write_bytes(sample("agent-failing-tool.ndjson"))
    followed = FollowedFile(path)
    followed.poll()
    grown = followed.open_run()
    built = OpenRun(load_recording(sample("agent-failing-tool.ndjson")))
    assert set(vars(grown)) == set(vars(built))
    assert grown.evidence == built.evidence and grown.run_id == built.run_id
    assert grown.step_counts() == built.step_counts()


@pytest.mark.parametrize("name", ["a\x00b.ndjson", "\ud800.ndjson"])
def test_a_path_no_file_can_have_is_refused_by_name(tmp_path, name):
    with pytest.raises(RecordingError, match="cannot read"):
        FollowedFile(f"{tmp_path}/{name}").poll()

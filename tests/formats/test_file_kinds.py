"""Every kind of file agentfootprint writes about a run opens through the one loader.

The samples in ``tests/data/formats/<kind>/agent-tool/`` were all written by
agentfootprint 9.62 during one run (the artifact store's during a second run
of the same script), so the kinds that carry a boundary log must give the
same steps as the plain recording of that run, and every kind the same typed
events as the file holds.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from recorders.errors import RecordingError
from recorders.read.not_runs import NotARun
from recorders.loading import LoadedFile, load_file, load_path, load_path_file, load_recording
from recorders.projections import build_projection

DATA = Path(__file__).resolve().parents[1] / "data" / "formats"
RECORDING = DATA / "recording" / "agent-tool" / "recording.json"
MID_RUN_RECORDING = DATA / "recording" / "agent-tool" / "recording.mid-run.json"
STREAMS = DATA / "ndjson"
TRACES = DATA / "trace" / "agent-tool"
ZIPS = DATA / "bug-report-zip" / "agent-tool"
ARTIFACT = next((DATA / "artifact-store" / "agent-tool").rglob("art_*.json"))


def _json(path: Path):
    return json.loads(path.read_text("utf-8"))


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _steps(recording, profile: str) -> list:
    projection = build_projection(recording, profile)
    return [step.to_wire() for step in projection.get_steps()]


def _boundary_log(document: dict) -> list:
    [entry] = [r for r in document["snapshot"]["recorders"] if r["name"] == "BoundaryEvents"]
    return entry["data"]


def _without_ts(events: list[dict]) -> list[dict]:
    return [{k: v for k, v in event.items() if k != "ts"} for event in events]


def _codes(recording) -> list[str]:
    return [gap.code for gap in recording.gaps]


def _messages(recording) -> str:
    return " | ".join(gap.message for gap in recording.gaps)


@pytest.fixture(scope="module")
def plain():
    return load_recording(RECORDING.read_bytes())


# ─── Event streams ─────────────────────────────────────────────────────


@pytest.mark.parametrize("case", ["agent-tool", "parallel-agents"])
@pytest.mark.parametrize("name", ["events.ndjson", "events.firehose.ndjson",
                                  "events.mid-run.ndjson", "events.firehose.mid-run.ndjson"])
def test_a_stream_opens_with_the_typed_events_it_holds_and_nothing_else(case, name):
    path = STREAMS / case / name
    loaded = load_file(path.read_bytes())
    assert loaded.kind == "event-stream"
    [run] = loaded.runs
    assert run.source_kind == "event-stream"
    assert run.typed_events == _lines(path)
    assert run.has_typed_stream and not run.has_boundary_log
    assert run.boundary_events == [] and run.snapshot is None and run.structure is None
    assert "steps need the boundary log" in _messages(run)


def test_the_firehose_stream_holds_the_recordings_typed_events(plain):
    run = load_recording((STREAMS / "agent-tool" / "events.firehose.ndjson").read_bytes())
    assert run.typed_events == plain.typed_events
    standard = load_recording((STREAMS / "agent-tool" / "events.ndjson").read_bytes())
    assert standard.typed_events == [e for e in plain.typed_events
                                     if e["type"] != "agentfootprint.stream.token"]


def test_a_finished_stream_says_nothing_is_open(plain):
    run = load_recording((STREAMS / "agent-tool" / "events.ndjson").read_bytes())
    assert "unbalanced" not in _codes(run)


def test_a_mid_run_stream_is_a_prefix_and_says_the_run_had_not_ended():
    final = _lines(STREAMS / "agent-tool" / "events.firehose.ndjson")
    run = load_recording((STREAMS / "agent-tool" / "events.firehose.mid-run.ndjson").read_bytes())
    assert run.typed_events == final[:len(run.typed_events)] and run.typed_events != final
    messages = _messages(run)
    assert "stops before the run's end" in messages
    assert "1 tool call started and not ended" in messages and "get_weather" in messages


def test_a_stream_whose_run_crashed_simply_stops_and_opens_saying_so():
    """A crashed composition writes no error event: the stream just ends."""
    lines = (STREAMS / "agent-tool" / "events.ndjson").read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if b'"agentfootprint.stream.tool_start"' in line)
    crashed = b"".join(lines[:cut + 1])
    run = load_recording(crashed)
    assert run.typed_events == [json.loads(line) for line in lines[:cut + 1]]
    assert "the run crashed" in _messages(run)


def test_an_empty_stream_has_nothing_written_yet_and_is_not_an_error():
    empty = STREAMS / "agent-tool" / "events.mid-run.immediate.ndjson"
    assert empty.read_bytes() == b""
    loaded = load_file(b"", name="events.ndjson")
    assert loaded.kind == "event-stream" and loaded.runs == []
    assert "nothing written yet" in loaded.notes[0] and loaded.notes[0].startswith("events.ndjson")
    with pytest.raises(RecordingError, match="the event stream has nothing written yet"):
        load_recording(b"")


def test_an_unfinished_last_line_is_left_out_and_said():
    data = (STREAMS / "agent-tool" / "events.ndjson").read_bytes()
    cut = data[:-40]  # the writer is part-way through the last line
    loaded = load_file(cut)
    [run] = loaded.runs
    assert run.typed_events == _lines(STREAMS / "agent-tool" / "events.ndjson")[:-1]
    assert any("unfinished" in note for note in loaded.notes)
    assert "unfinished-line" in _codes(run)


def test_two_runs_in_one_stream_are_two_runs():
    first = (STREAMS / "agent-tool" / "events.ndjson").read_bytes()
    second = (STREAMS / "parallel-agents" / "events.ndjson").read_bytes()
    loaded = load_file(first + second)
    assert [run.typed_events for run in loaded.runs] == [
        _lines(STREAMS / "agent-tool" / "events.ndjson"),
        _lines(STREAMS / "parallel-agents" / "events.ndjson")]
    assert [run.typed_run_ids for run in loaded.runs] == [
        [_lines(STREAMS / "agent-tool" / "events.ndjson")[0]["meta"]["runId"]],
        [_lines(STREAMS / "parallel-agents" / "events.ndjson")[0]["meta"]["runId"]]]
    assert any("2 runs" in note for note in loaded.notes)
    one = load_recording(first + second)
    assert one.typed_events == loaded.runs[0].typed_events
    several = [gap for gap in one.gaps if gap.code == "several-runs"]
    assert len(several) == 1 and "holds 2 runs" in several[0].message


def test_interleaved_runs_are_told_apart_by_run_id():
    a = _lines(STREAMS / "agent-tool" / "events.ndjson")
    b = _lines(STREAMS / "parallel-agents" / "events.ndjson")
    mixed = [event for pair in zip(a, b) for event in pair] + a[len(b):] + b[len(a):]
    data = "".join(json.dumps(e) + "\n" for e in mixed).encode()
    assert [run.typed_events for run in load_file(data).runs] == [a, b]


def test_a_one_line_stream_is_a_stream():
    line = (STREAMS / "agent-tool" / "events.ndjson").read_bytes().splitlines()[0]
    for data in (line, line + b"\n"):
        loaded = load_file(data)
        assert loaded.kind == "event-stream"
        assert loaded.runs[0].typed_events == [json.loads(line)]


def test_a_bad_line_is_refused_by_its_number():
    lines = (STREAMS / "agent-tool" / "events.ndjson").read_bytes().splitlines(keepends=True)
    lines[4] = b'{"type": "agentfootprint.stream.llm_start", oops}\n'
    with pytest.raises(RecordingError, match="^line 5 of the event stream is not valid JSON"):
        load_file(b"".join(lines))


# ─── Rotation ──────────────────────────────────────────────────────────


def test_a_path_reads_its_rotated_generation_first(tmp_path):
    rotated = STREAMS / "agent-tool-rotated"
    older, current = (rotated / "events.ndjson.1").read_bytes(), (
        rotated / "events.ndjson").read_bytes()
    (tmp_path / "events.ndjson").write_bytes(current)
    (tmp_path / "events.ndjson.1").write_bytes(older)
    loaded = load_path_file(tmp_path / "events.ndjson")
    [run] = loaded.runs
    whole = _lines(rotated / "events.ndjson.1") + _lines(rotated / "events.ndjson")
    assert run.typed_events == whole  # nothing lost, nothing repeated
    assert "the run crashed" not in _messages(run)  # the end is in the current file
    assert "events.ndjson.1" in loaded.notes[0]
    assert load_path(tmp_path / "events.ndjson").typed_events == whole


def test_a_stream_just_rotated_is_its_older_generation(tmp_path):
    older = (STREAMS / "agent-tool-rotated" / "events.ndjson.1").read_bytes()
    (tmp_path / "events.ndjson").write_bytes(b"")
    (tmp_path / "events.ndjson.1").write_bytes(older)
    [run] = load_path_file(tmp_path / "events.ndjson").runs
    assert run.typed_events == _lines(STREAMS / "agent-tool-rotated" / "events.ndjson.1")


def test_a_dot_one_beside_a_recording_is_not_joined(tmp_path, plain):
    (tmp_path / "run.json").write_bytes(RECORDING.read_bytes())
    (tmp_path / "run.json.1").write_bytes(
        (STREAMS / "agent-tool-rotated" / "events.ndjson.1").read_bytes())
    loaded = load_path_file(tmp_path / "run.json")
    assert loaded.kind == "recording" and loaded.notes == []
    assert loaded.runs[0].typed_events == plain.typed_events


# ─── Trace ─────────────────────────────────────────────────────────────


@pytest.mark.parametrize("name", ["trace.json", "trace-with-snapshot.json"])
@pytest.mark.parametrize("profile", ["reference", "lens"])
def test_a_trace_gives_the_steps_of_the_recording_of_its_run(name, profile, plain):
    document = _json(TRACES / name)
    loaded = load_file((TRACES / name).read_bytes())
    assert loaded.kind == "trace"
    [run] = loaded.runs
    assert run.source_kind == "trace"
    assert run.boundary_events == document["events"]
    # The same boundary events as the recording's log; the Trace taken with its
    # snapshot stamped two of them a millisecond later (its own capture).
    assert _without_ts(run.boundary_events) == _without_ts(_boundary_log(_json(RECORDING)))
    assert run.typed_events == [] and "no-typed-stream" in _codes(run)
    assert "a Trace" in _messages(run)
    assert _steps(run, profile) == _steps(plain, profile)


def test_a_trace_with_its_snapshot_keeps_the_snapshot():
    run = load_recording((TRACES / "trace-with-snapshot.json").read_bytes())
    assert run.snapshot["sharedState"] == _json(TRACES / "trace-with-snapshot.json")[
        "snapshot"]["sharedState"]
    assert "no-snapshot" not in _codes(run)
    bare = load_recording((TRACES / "trace.json").read_bytes())
    assert bare.snapshot is None and "no-snapshot" in _codes(bare)


def test_a_trace_says_what_it_is():
    [note] = load_file((TRACES / "trace-redacted.json").read_bytes()).notes
    assert note.startswith("a Trace from localObservability, without its snapshot")
    assert note.endswith("its content is redacted")
    [note] = load_file((TRACES / "trace-with-snapshot.json").read_bytes()).notes
    assert "with its snapshot" in note and "redacted" not in note


def test_a_redacted_trace_says_it_is_redacted():
    run = load_recording((TRACES / "trace-redacted.json").read_bytes())
    assert "redacted" in _codes(run)
    assert "redaction: 'pii'" in _messages(run)
    assert "redacted" not in _codes(load_recording((TRACES / "trace.json").read_bytes()))


def test_a_mid_run_trace_opens_with_honest_gaps():
    run = load_recording((TRACES / "trace.mid-run.json").read_bytes())
    assert "the run has no run.exit" in _messages(run)
    assert "get_weather" in _messages(run)


def test_a_trace_of_another_version_is_refused_naming_it():
    document = _json(TRACES / "trace.json")
    document["version"] = 2
    with pytest.raises(RecordingError, match="Trace of version 2"):
        load_recording(json.dumps(document))


# ─── Bug report zip ────────────────────────────────────────────────────


@pytest.mark.parametrize("name", ["bug-report.zip", "bug-report-no-run-facts.zip"])
@pytest.mark.parametrize("profile", ["reference", "lens"])
def test_a_bug_report_opens_its_run_with_the_recordings_steps(name, profile, plain):
    loaded = load_file((ZIPS / name).read_bytes())
    assert loaded.kind == "bug-report"
    [run] = loaded.runs
    assert run.source_kind == "bug-report"
    assert run.typed_events == plain.typed_events
    assert run.boundary_events == plain.boundary_events
    assert _steps(run, profile) == _steps(plain, profile)


def test_a_bug_report_carries_the_reporters_fields():
    data = (ZIPS / "bug-report.zip").read_bytes()
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("manifest.json"))
    loaded = load_file(data)
    for field in ("title", "stepsToReproduce", "expected", "actual"):
        assert loaded.report[field] == manifest["report"][field]
    assert loaded.runs[0].complete is True  # envelope.json: the run facts are there
    no_facts = load_file((ZIPS / "bug-report-no-run-facts.zip").read_bytes())
    assert no_facts.runs[0].complete is None and no_facts.runs[0].envelope_format is None


def _report_zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_several_conversations_are_several_runs():
    """Layout 2 with more than one run: conversations/<id>.json each holding
    {id, runIds, envelopes} (or recordings), as exportBugReport writes them."""
    source = zipfile.ZipFile(io.BytesIO((ZIPS / "bug-report.zip").read_bytes()))
    manifest = json.loads(source.read("manifest.json"))
    envelope = json.loads(source.read("envelope.json"))
    recording = _json(RECORDING)
    first = {"id": "conv-1", "runIds": [envelope["run"]["runId"]], "envelopes": [envelope]}
    second = {"id": "conv-2", "runIds": ["a", "b"], "recordings": [recording, recording]}
    data = _report_zip({"manifest.json": json.dumps(manifest).encode(),
                        "conversations/conv-1.json": json.dumps(first).encode(),
                        "conversations/conv-2.json": json.dumps(second).encode(),
                        "conversation.json": source.read("conversation.json")})
    loaded = load_file(data)
    assert loaded.kind == "bug-report" and len(loaded.runs) == 3
    assert all(run.typed_events == recording["events"] for run in loaded.runs)
    assert [run.complete for run in loaded.runs] == [True, None, None]
    assert loaded.report["title"] == manifest["report"]["title"]
    assert "holds 3 runs" in _messages(load_recording(data))


def test_a_zip_without_a_manifest_is_not_a_bug_report():
    data = _report_zip({"recording.json": RECORDING.read_bytes()})
    with pytest.raises(RecordingError, match="no manifest.json: it is not an agentfootprint "
                                             "bug report"):
        load_file(data)


def test_a_broken_entry_is_named():
    source = zipfile.ZipFile(io.BytesIO((ZIPS / "bug-report.zip").read_bytes()))
    data = _report_zip({"manifest.json": source.read("manifest.json"),
                        "envelope.json": b'{"format": "agentfootprint.recording.v1"'})
    with pytest.raises(RecordingError, match="^envelope.json in the bug report: the JSON ends "
                                             "early"):
        load_file(data)


# ─── Artifact store ────────────────────────────────────────────────────


@pytest.mark.parametrize("profile", ["reference", "lens"])
def test_an_artifact_opens_as_the_recording_it_holds(profile):
    document = _json(ARTIFACT)
    inner = load_recording(document["payload"]["value"])
    loaded = load_file(ARTIFACT.read_bytes())
    assert loaded.kind == "artifact-recording"
    [run] = loaded.runs
    assert run.source_kind == "artifact-recording"
    assert run.typed_events == json.loads(document["payload"]["value"])["events"]
    assert run.boundary_events == inner.boundary_events
    assert _steps(run, profile) == _steps(inner, profile)


def test_an_artifact_of_another_kind_is_refused_by_its_kind():
    document = _json(ARTIFACT)
    document["meta"]["kind"] = "image/png"
    with pytest.raises(RecordingError, match="artifact-store entry of kind 'image/png', not a "
                                             "run's recording"):
        load_recording(json.dumps(document))
    document = _json(ARTIFACT)
    document["payload"] = {"shape": "bytes", "value": "AAAA"}
    with pytest.raises(RecordingError, match="shape 'bytes'"):
        load_recording(json.dumps(document))


def test_an_artifact_whose_recording_is_broken_says_where():
    document = _json(ARTIFACT)
    document["payload"]["value"] = document["payload"]["value"][:500]
    with pytest.raises(RecordingError, match=r"^payload.value \(the artifact's recording\): "
                                             "the JSON ends early"):
        load_recording(json.dumps(document))


# ─── Not a run ─────────────────────────────────────────────────────────


def _bug_report_part(name: str) -> bytes:
    return zipfile.ZipFile(io.BytesIO((ZIPS / "bug-report.zip").read_bytes())).read(name)


@pytest.mark.parametrize("data, named, instead", [
    (lambda: (DATA / "checkpoint" / "agent-tool" / "checkpoint.json").read_bytes(),
     "an agent checkpoint", "open the run's recording"),
    (lambda: (DATA / "att-trace" / "agent-tool" / "att-trace.json").read_bytes(),
     "an AgentThinkingUI trace", "open the run's recording"),
    (lambda: _bug_report_part("manifest.json"), "a bug report's manifest.json",
     "open the bug report .zip"),
    (lambda: _bug_report_part("conversation.json"), "a bug report's conversation.json",
     "open the bug report .zip"),
    (lambda: _bug_report_part("environment.json"), "a bug report's environment.json",
     "open the bug report .zip"),
], ids=["checkpoint", "att-trace", "manifest", "conversation", "environment"])
def test_files_that_are_not_runs_are_refused_naming_what_they_are(data, named, instead):
    with pytest.raises(NotARun) as refused:
        load_file(data())
    message = str(refused.value)
    assert message.startswith(f"this is {named}") and instead in message


# ─── Kinds that were read before ───────────────────────────────────────


def test_a_recording_is_one_run_of_kind_recording(plain):
    loaded = load_file(RECORDING.read_bytes())
    assert isinstance(loaded, LoadedFile) and loaded.kind == "recording"
    [run] = loaded.runs
    assert run.typed_events == plain.typed_events and loaded.notes == []
    assert not any(gap.code == "several-runs" for gap in run.gaps)


def test_a_compact_recording_followed_by_a_newline_is_not_a_stream(plain):
    loaded = load_file(RECORDING.read_bytes().rstrip() + b"\n\n")
    assert loaded.kind == "recording"
    assert loaded.runs[0].typed_events == plain.typed_events


def test_the_mid_run_recording_keeps_its_gaps():
    run = load_recording(MID_RUN_RECORDING.read_bytes())
    assert run.source_kind == "recording"
    assert "the run has no run.exit" in _messages(run)


def test_an_artifact_without_its_meta_says_so():
    document = _json(ARTIFACT)
    del document["meta"]
    with pytest.raises(RecordingError, match="^meta: expected the artifact's meta object"):
        load_recording(json.dumps(document))


# ─── Every view builds for every kind ──────────────────────────────────


@pytest.mark.parametrize("path", [
    STREAMS / "agent-tool" / "events.ndjson", STREAMS / "agent-tool" / "events.mid-run.ndjson",
    STREAMS / "parallel-agents" / "events.firehose.ndjson", TRACES / "trace-with-snapshot.json",
    TRACES / "trace.mid-run.json", TRACES / "trace-redacted.json", ZIPS / "bug-report.zip",
    ARTIFACT,
], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_view_of_the_app_builds_for_the_kind(path):
    from every_view import show_everywhere

    run = show_everywhere(path.read_bytes())
    assert run.recording.source_kind in ("event-stream", "trace", "bug-report",
                                         "artifact-recording")


def test_a_lone_surrogate_half_in_a_stream_is_mended_and_said_in_its_own_run():
    lines = (STREAMS / "agent-tool" / "events.ndjson").read_bytes().splitlines(keepends=True)
    first = json.loads(lines[1])
    first["payload"]["userPrompt"] = "cut emoji \ud83d"
    lines[1] = json.dumps(first).encode() + b"\n"
    other = (STREAMS / "parallel-agents" / "events.ndjson").read_bytes()
    loaded = load_file(b"".join(lines) + other)
    assert loaded.runs[0].typed_events[1]["payload"]["userPrompt"] == "cut emoji \ufffd"
    assert "lone-surrogates" in _codes(loaded.runs[0])
    assert "lone-surrogates" not in _codes(loaded.runs[1])


def test_the_first_run_says_once_that_there_are_more():
    from recorders.loading import first_run

    both = load_file((STREAMS / "agent-tool" / "events.ndjson").read_bytes()
                     + (STREAMS / "parallel-agents" / "events.ndjson").read_bytes())
    assert first_run(both) is first_run(both) is both.runs[0]
    assert _codes(both.runs[0]).count("several-runs") == 1
    assert "several-runs" not in _codes(both.runs[1])

"""The command line and the archive accept every kind, through the one loader."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from archive.embedded import index_folder
from archive.folder import scan_folder
from archive.query import open_index, select
from lens_cli.main import main as lens_main
from recorders.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "formats"
RECORDING = DATA / "recording" / "agent-tool" / "recording.json"
STREAMS = DATA / "ndjson"
ROTATED = STREAMS / "agent-tool-rotated"
TRACE = DATA / "trace" / "agent-tool" / "trace.json"
REPORT = DATA / "bug-report-zip" / "agent-tool" / "bug-report.zip"
ARTIFACT_STORE = DATA / "artifact-store" / "agent-tool" / "store"
ARTIFACT = next(ARTIFACT_STORE.rglob("art_*.json"))
CHECKPOINT = DATA / "checkpoint" / "agent-tool" / "checkpoint.json"


def _run(capsys, entry, *argv: str) -> tuple[int, object, str]:
    code = entry(list(argv))
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else None, err


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("path, kind", [
    (RECORDING, "recording"), (STREAMS / "agent-tool" / "events.ndjson", "event-stream"),
    (TRACE, "trace"), (REPORT, "bug-report"), (ARTIFACT, "artifact-recording"),
], ids=["recording", "stream", "trace", "bug-report", "artifact"])
def test_info_names_the_kind(capsys, path, kind):
    code, info, _ = _run(capsys, main, "info", str(path))
    assert code == 0 and info["sourceKind"] == kind and info["runsInFile"] == 1


@pytest.mark.parametrize("path", [TRACE, REPORT], ids=["trace", "bug-report"])
def test_steps_of_a_kind_with_a_boundary_log_equal_the_recordings(capsys, path):
    _, plain, _ = _run(capsys, main, "steps", str(RECORDING), "--profile", "reference")
    code, steps, _ = _run(capsys, main, "steps", str(path), "--profile", "reference")
    assert code == 0 and steps == plain and len(plain["steps"]) > 0


def test_steps_of_an_artifact_equal_those_of_the_recording_inside(capsys, tmp_path):
    inner = tmp_path / "inner.json"
    inner.write_text(json.loads(ARTIFACT.read_text("utf-8"))["payload"]["value"], "utf-8")
    _, plain, _ = _run(capsys, main, "steps", str(inner), "--profile", "reference")
    code, steps, _ = _run(capsys, main, "steps", str(ARTIFACT), "--profile", "reference")
    assert code == 0 and steps == plain and len(plain["steps"]) > 0


def test_steps_of_a_stream_are_none_and_say_why(capsys):
    code, steps, _ = _run(capsys, main, "steps", str(STREAMS / "agent-tool" / "events.ndjson"))
    assert code == 0 and steps["steps"] == []
    assert any("steps need the boundary log" in note for note in steps["notes"])


def test_info_of_an_empty_stream_is_not_an_error(capsys, tmp_path):
    empty = tmp_path / "events.ndjson"
    empty.write_bytes(b"")
    code, info, err = _run(capsys, main, "info", str(empty))
    assert code == 0 and err == ""
    assert info["sourceKind"] == "event-stream" and info["runsInFile"] == 0
    assert "nothing written yet" in info["fileNotes"][0]
    code, _, err = _run(capsys, main, "steps", str(empty))
    assert code == 2 and "nothing written yet" in err


def test_run_picks_a_run_of_a_file_with_several(capsys, tmp_path):
    both = tmp_path / "events.ndjson"
    both.write_bytes((STREAMS / "agent-tool" / "events.ndjson").read_bytes()
                     + (STREAMS / "parallel-agents" / "events.ndjson").read_bytes())
    second_id = _lines(STREAMS / "parallel-agents" / "events.ndjson")[0]["meta"]["runId"]
    code, info, _ = _run(capsys, main, "info", str(both), "--run", "2")
    assert code == 0 and info["typedRunIds"] == [second_id] and info["runsInFile"] == 2
    code, first, _ = _run(capsys, main, "info", str(both))
    assert any(g["code"] == "several-runs" and "--run N" in g["message"] for g in first["gaps"])
    code, _, err = _run(capsys, main, "info", str(both), "--run", "3")
    assert code == 2 and err.strip() == "--run 3: the file holds 2 runs"


def test_info_reads_the_rotated_generation_first(capsys, tmp_path):
    shutil.copy(ROTATED / "events.ndjson", tmp_path / "events.ndjson")
    shutil.copy(ROTATED / "events.ndjson.1", tmp_path / "events.ndjson.1")
    code, info, _ = _run(capsys, main, "info", str(tmp_path / "events.ndjson"))
    whole = _lines(ROTATED / "events.ndjson.1") + _lines(ROTATED / "events.ndjson")
    assert code == 0 and info["typedEvents"] == len(whole)
    assert "events.ndjson.1" in info["fileNotes"][0]


def test_info_of_a_bug_report_carries_its_fields(capsys):
    code, info, _ = _run(capsys, main, "info", str(REPORT))
    assert code == 0 and info["report"]["title"] == "Lens format sample: agent-tool"
    assert set(info["report"]) >= {"title", "stepsToReproduce", "expected", "actual"}


def test_a_checkpoint_is_refused_in_one_line_naming_it(capsys):
    code, _, err = _run(capsys, main, "info", str(CHECKPOINT))
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("this is an agent checkpoint")


def test_causes_and_compare_read_the_new_kinds(capsys):
    code, causes, _ = _run(capsys, lens_main, "causes",
                           str(STREAMS / "agent-tool" / "events.mid-run.ndjson"))
    assert code == 0 and isinstance(causes, list)
    code, compared, _ = _run(capsys, lens_main, "compare", str(RECORDING), str(REPORT))
    assert code == 0 and compared["identical"] is True


# ─── The archive ───────────────────────────────────────────────────────


@pytest.fixture
def folder_of_kinds(tmp_path):
    runs = tmp_path / "runs"
    (runs / "live").mkdir(parents=True)
    shutil.copy(ROTATED / "events.ndjson", runs / "live" / "events.ndjson")
    shutil.copy(ROTATED / "events.ndjson.1", runs / "live" / "events.ndjson.1")
    (runs / "live" / "two.ndjson").write_bytes(
        (STREAMS / "agent-tool" / "events.ndjson").read_bytes()
        + (STREAMS / "parallel-agents" / "events.ndjson").read_bytes())
    (runs / "live" / "new.ndjson").write_bytes(b"")
    shutil.copy(REPORT, runs / "report.zip")
    shutil.copy(TRACE, runs / "trace.json")
    shutil.copytree(ARTIFACT_STORE, runs / "store")
    shutil.copy(CHECKPOINT, runs / "checkpoint.json")
    return runs, tmp_path / "index.duckdb"


def test_the_archive_lists_streams_zips_and_artifacts_but_not_a_rotated_generation(
        folder_of_kinds):
    runs, _ = folder_of_kinds
    listed = {stat.file for stat in scan_folder(runs)}
    artifact = ARTIFACT.relative_to(ARTIFACT_STORE.parent).as_posix()
    assert listed == {"live/events.ndjson", "live/two.ndjson", "live/new.ndjson",
                      "report.zip", "trace.json", artifact, "checkpoint.json"}


def test_the_archive_indexes_every_kind(folder_of_kinds):
    runs, db = folder_of_kinds
    index_folder(runs, db)
    con = open_index(db)
    try:
        rows = {r["file"]: r for r in select(con, "SELECT file, source_kind, run_id, model_calls, "
                                                  "tool_calls FROM runs")}
        files = {r["file"]: r for r in select(con, "SELECT file, status, problem FROM files")}
        gaps = select(con, "SELECT file, code, message FROM gaps WHERE code = 'several-runs'")
    finally:
        con.close()
    artifact = ARTIFACT.relative_to(ARTIFACT_STORE.parent).as_posix()
    assert {f: r["source_kind"] for f, r in rows.items()} == {
        "live/events.ndjson": "event-stream", "live/two.ndjson": "event-stream",
        "report.zip": "bug-report", "trace.json": "trace", artifact: "artifact-recording"}
    # The rotated stream is indexed whole: both tool calls, the one in the .1 included.
    whole = _lines(ROTATED / "events.ndjson.1") + _lines(ROTATED / "events.ndjson")
    assert rows["live/events.ndjson"]["tool_calls"] == sum(
        e["type"] == "agentfootprint.stream.tool_start" for e in whole)
    assert rows["live/events.ndjson"]["tool_calls"] == 2
    # Two runs in one file: the first is indexed and a gap says so.
    first_id = _lines(STREAMS / "agent-tool" / "events.ndjson")[0]["meta"]["runId"]
    assert rows["live/two.ndjson"]["run_id"] == first_id
    assert [(g["file"], "holds 2 runs" in g["message"]) for g in gaps] == [
        ("live/two.ndjson", True)]
    assert files["live/new.ndjson"]["status"] == "unreadable"
    assert "nothing written yet" in files["live/new.ndjson"]["problem"]
    assert files["checkpoint.json"]["status"] == "not-a-run"
    assert files["checkpoint.json"]["problem"].startswith("this is an agent checkpoint")

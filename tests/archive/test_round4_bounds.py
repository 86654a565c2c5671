"""Hostile inputs on the newer surfaces (issue #40 items 3, 4, 6 and 7), each
built here: a pattern file that is a device, a FIFO or too large; a bug
report of many members each just under the per-entry ratio floor; a step
label past what the run has; an audit bundle with a tampered header. Each
gets one line and exit status 2 (or, in an index pass, its reason under
``unreadable``), never a traceback, a hang or unbounded reading."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from archive.embedded import index_folder
from archive.labels import LabelStore
from archive.query import open_index, select
from archive_support import cli
from lens.share.redaction import MAX_PATTERN_FILE_BYTES
from recorders.errors import RecordingError
from recorders.loading import load_file

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
RUN = TESTS / "corpus" / "agent-no-tools" / "recording.json"
AUDIT = TESTS / "data" / "formats" / "audit-bundle" / "agent-tool" / "audit-bundle.json"


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


# ─── item 3: --redact-patterns FILE ────────────────────────────────────


@pytest.fixture
def export_args(tmp_path):
    def args(patterns: str) -> list[str]:
        return ["export", "recording", str(RUN), "--redact-patterns", patterns,
                "-o", str(tmp_path / "out.json")]
    return args


def test_a_device_as_pattern_file_is_refused_without_reading_it(export_args, capsys, tmp_path):
    status, _, err = cli(capsys, *export_args("/dev/zero"))
    assert status == 2 and one_line(err)
    assert "not a regular file" in err and "/dev/zero" in err
    assert not (tmp_path / "out.json").exists()


def test_a_fifo_as_pattern_file_is_refused_at_once(tmp_path):
    fifo = tmp_path / "patterns.fifo"
    os.mkfifo(fifo)
    # Run as its own process: a read that waited for a writer would hang the test.
    done = subprocess.run(
        [sys.executable, "-c", "from lens_cli.main import entry_point; entry_point()",
         "export", "recording", str(RUN),
         "--redact-patterns", str(fifo), "-o", str(tmp_path / "out.json")],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 2, done.stderr
    assert one_line(done.stderr) and "not a regular file" in done.stderr


def test_a_pattern_file_too_large_is_refused(export_args, capsys, tmp_path):
    big = tmp_path / "patterns.txt"
    big.write_text("order A-\\d+\n" * (MAX_PATTERN_FILE_BYTES // 10), encoding="utf-8")
    assert big.stat().st_size > MAX_PATTERN_FILE_BYTES
    status, _, err = cli(capsys, *export_args(str(big)))
    assert status == 2 and one_line(err) and "not a list of patterns" in err
    # Just under the cap it is read.
    big.write_text("order A-\\d+\n", encoding="utf-8")
    status, _, err = cli(capsys, *export_args(str(big)))
    assert status == 0, err


def test_archive_export_takes_a_pattern_file_with_the_same_checks(capsys, tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    status, _, err = cli(capsys, "archive", "export", str(folder), "--label", "x",
                         "-o", str(tmp_path / "out.jsonl"), "--redact-patterns", "/dev/zero")
    assert status == 2 and one_line(err) and "not a regular file" in err
    bad = tmp_path / "bad.txt"
    bad.write_text("# a comment\nfine\n(unclosed\n", encoding="utf-8")
    status, _, err = cli(capsys, "archive", "export", str(folder), "--label", "x",
                         "-o", str(tmp_path / "out.jsonl"), "--redact-patterns", str(bad))
    assert status == 2 and one_line(err) and "line 3" in err


# ─── item 4: a bug report's total inflation ────────────────────────────


def bomb_of_small_members(members: int, size: int) -> bytes:
    """A bug report whose members each inflate to ``size`` bytes of one byte repeated."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as written:
        written.writestr("manifest.json", json.dumps({"manifestVersion": 2}))
        written.writestr("recording.json", RUN.read_bytes())
        filler = b" " * size
        for number in range(members):
            written.writestr(f"attachments/{number}.txt", filler)
    return out.getvalue()


def test_many_members_each_under_the_ratio_floor_are_refused_as_a_whole(tmp_path, capsys):
    from recorders.bug_report import MAX_RATIO, RATIO_FLOOR_BYTES

    data = bomb_of_small_members(40, RATIO_FLOOR_BYTES - 1)
    declared = sum(i.file_size for i in zipfile.ZipFile(io.BytesIO(data)).infolist())
    assert declared > MAX_RATIO * len(data)  # no member alone is past the floor
    with pytest.raises(RecordingError, match="entries expand .* times in all"):
        load_file(data)
    source = tmp_path / "report.zip"
    source.write_bytes(data)
    status, _, err = cli(capsys, "export", "recording", str(source), "--redact",
                         "-o", str(tmp_path / "out.zip"))
    assert status == 2 and one_line(err) and "zip bomb" in err
    assert not (tmp_path / "out.zip").exists()


def test_a_stored_report_with_many_members_still_opens(tmp_path):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as written:
        written.writestr("manifest.json", json.dumps({"manifestVersion": 2}))
        written.writestr("recording.json", RUN.read_bytes())
        for number in range(40):
            written.writestr(f"attachments/{number}.txt", b"x" * 50_000)
    assert load_file(out.getvalue()).runs


# ─── item 6: a step label the run does not have ────────────────────────


@pytest.fixture
def indexed(indexed_copy):
    folder, db = indexed_copy
    with open_index(db) as con:
        (row,) = select(con, "SELECT file FROM runs ORDER BY file LIMIT 1")
    return folder, db, row["file"]


@pytest.mark.parametrize("step,said", [
    ("__root__:2147483648", "that scope has"),
    ("__root__:99999", "that scope has"),
    ("../../nope:3", "no scope"),
    ("__root__:\u0663", "PATH:N"),     # an Arabic-Indic three
    ("__root__:\u00b3", "PATH:N"),     # a superscript three
    ("__root__:0", "PATH:N"),
])
def test_a_step_the_run_does_not_have_is_refused_and_not_stored(indexed, capsys, step, said):
    folder, db, file = indexed
    status, _, err = cli(capsys, "archive", "label", str(folder), "--db", str(db),
                         "--file", file, "--add", "look", "--step", step)
    assert status == 2 and one_line(err) and said in err, err
    with LabelStore.open(db) as store:
        assert store.labelled("look") == []


def test_a_step_the_run_has_is_stored(indexed, capsys):
    folder, db, file = indexed
    status, out, err = cli(capsys, "archive", "label", str(folder), "--db", str(db),
                           "--file", file, "--add", "look", "--step", "__root__:1")
    assert status == 0, err
    assert json.loads(out)["labels"][0]["step"] == {"path": ["__root__"], "index": 0}


# ─── item 7: an audit bundle with a tampered header ────────────────────


@pytest.mark.parametrize("field,value", [("firstSeq", -1), ("firstSeq", True),
                                         ("format", None),
                                         ("format", "agentfootprint.audit/9")])
def test_an_audit_bundle_that_cannot_be_read_is_listed_unreadable_with_the_loaders_reason(
        tmp_path, capsys, field, value):
    bundle = json.loads(AUDIT.read_text(encoding="utf-8"))
    bundle["header"][field] = value
    folder = tmp_path / "runs"
    folder.mkdir()
    tampered = folder / "audit.json"
    tampered.write_text(json.dumps(bundle), encoding="utf-8")
    shutil.copy(RUN, folder / "good.json")
    with pytest.raises(RecordingError) as refused:
        load_file(tampered.read_bytes())
    report = index_folder(folder, tmp_path / "index.duckdb")
    assert report.runs == 1
    (listed,) = report.unreadable
    assert listed["file"] == "audit.json"
    assert listed["problem"] == str(refused.value).splitlines()[0][:len(listed["problem"])]
    status, _, err = cli(capsys, "info", str(tampered))
    assert status == 2 and one_line(err)

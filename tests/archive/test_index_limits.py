"""What a pass does when a file cannot be read now: it is read on the next pass.

A server hands the indexer a memory gate (its budget, shared with open runs);
a file the gate has no room for is left unread, with the reason, and tried
again on the next pass, as is any file that was never read (a read error),
whose size and time may never move once the cause is gone.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from contextlib import contextmanager

from archive.embedded import index_folder
from archive.limits import INDEXING_PER_BYTE, NoRoomNow
from archive_support import copy_archive


def _folder(tmp_path):
    sample = copy_archive(tmp_path / "sample")
    run = sorted(p for p in sample.rglob("*.json") if p.stat().st_size > 1000)[0]
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(run, folder / "run.json")
    return folder


def test_a_file_the_memory_gate_has_no_room_for_is_read_on_the_next_pass(tmp_path):
    folder = _folder(tmp_path)
    db = tmp_path / "index.duckdb"
    asked: list[int] = []

    @contextmanager
    def full(need):
        asked.append(need)
        raise NoRoomNow("not read now: the server's memory budget is held by open runs; "
                        "read again on the next pass")
        yield

    first = index_folder(folder, db, admit=full)
    assert first.runs == 0
    assert first.unreadable == [{"file": "run.json", "problem": (
        "not read now: the server's memory budget is held by open runs; read again on the "
        "next pass")}]
    assert asked == [int((folder / "run.json").stat().st_size * INDEXING_PER_BYTE)]

    held: list[int] = []

    @contextmanager
    def roomy(need):
        held.append(need)
        yield

    second = index_folder(folder, db, admit=roomy)
    assert (second.runs, second.unreadable, len(held)) == (1, [], 1)


def test_a_zip_is_admitted_by_what_its_entries_inflate_to(tmp_path):
    import zipfile

    folder = tmp_path / "runs"
    folder.mkdir()
    report = (Path(__file__).resolve().parents[1] / "data" / "formats" / "bug-report-zip"
              / "agent-tool" / "bug-report.zip")
    # agentfootprint stores its entries; the same report zipped again deflated
    # (as a user passing it on may) is a fraction of what it inflates to.
    deflated = folder / "report.zip"
    with zipfile.ZipFile(report) as source, zipfile.ZipFile(
            deflated, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for entry in source.infolist():
            target.writestr(entry.filename, source.read(entry))
        inflated = sum(entry.file_size for entry in source.infolist())
    assert inflated > 3 * deflated.stat().st_size  # its own size would ask for too little
    asked: list[int] = []

    @contextmanager
    def roomy(need):
        asked.append(need)
        yield

    outcome = index_folder(folder, tmp_path / "index.duckdb", admit=roomy)
    assert outcome.runs == 1
    assert asked == [int(inflated * INDEXING_PER_BYTE)]


def test_a_file_that_failed_to_read_is_tried_again_and_counted_unchanged_meanwhile(
        tmp_path, monkeypatch):
    import archive.indexing

    folder = _folder(tmp_path)
    db = tmp_path / "index.duckdb"
    real = archive.indexing.read_file

    def denied(root, file, max_bytes):
        raise PermissionError(13, "Permission denied", file)
    monkeypatch.setattr(archive.indexing, "read_file", denied)
    first = index_folder(folder, db)
    again = index_folder(folder, db)
    assert first.unreadable == again.unreadable == [
        {"file": "run.json", "problem": "cannot read run.json: Permission denied"}]
    assert (again.added, again.updated, again.unchanged) == (0, 0, 1)

    monkeypatch.setattr(archive.indexing, "read_file", real)  # the permission is fixed
    fixed = index_folder(folder, db)
    assert (fixed.runs, fixed.unreadable) == (1, [])

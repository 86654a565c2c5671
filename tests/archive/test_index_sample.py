"""The embedded index of the sample archive against the manifest's ground truth."""

from __future__ import annotations

import gzip
import json
import os

import pytest

from archive.embedded import index_folder
from archive.query import open_index, select
from archive_support import (assert_model_calls_match_manifest, assert_runs_match_manifest,
                             assert_tool_totals_match_manifest, copy_archive,
                             unreadable_files)


def test_every_runs_row_equals_the_manifest(query, facts):
    assert_runs_match_manifest(query, facts)


def test_tool_calls_by_name_equal_the_manifest_totals(query, facts):
    assert_tool_totals_match_manifest(query, facts)


def test_model_calls_rows_add_up_to_each_run(query, facts):
    assert_model_calls_match_manifest(query, facts)


def test_first_index_adds_every_run_and_lists_the_unreadable(indexed_sample, facts):
    _, _, report = indexed_sample
    assert report.runs == len(facts["files"]) == facts["runs"]
    assert report.added == len(facts["files"]) + len(unreadable_files(facts))
    assert (report.updated, report.unchanged, report.removed) == (0, 0, 0)
    assert {u["file"] for u in report.unreadable} == unreadable_files(facts)


def test_skill_route_rows_follow_the_runs_skills(query):
    runs = {r["file"]: r["skills"] for r in query("SELECT file, skills FROM runs")}
    hops = query("SELECT file, to_skill FROM route_hops WHERE NOT rejected ORDER BY file, hop_index")
    by_file: dict[str, list[str]] = {}
    for hop in hops:
        visited = by_file.setdefault(hop["file"], [])
        if not visited or visited[-1] != hop["to_skill"]:
            visited.append(hop["to_skill"])
    assert by_file == {file: skills for file, skills in runs.items() if skills}


def test_lean_runs_carry_the_lean_gap(query):
    lean = {r["file"] for r in query("SELECT file FROM runs WHERE lean")}
    with_gap = {r["file"] for r in query("SELECT DISTINCT file FROM gaps WHERE code = 'lean'")}
    assert lean == with_gap


def test_reindexing_an_unchanged_folder_adds_and_updates_nothing(indexed_sample, facts):
    folder, db, first = indexed_sample
    again = index_folder(folder, db)
    assert (again.added, again.updated, again.removed) == (0, 0, 0)
    assert again.unchanged == first.added
    assert again.runs == first.runs


def test_add_change_delete_one_file_each(archive_copy, facts):
    folder, db = archive_copy
    index_folder(folder, db)
    entries = facts["files"]
    added, changed, deleted = entries[0], entries[1], entries[2]

    (folder / "more").mkdir()
    (folder / "more" / "copy.json.gz").write_bytes(
        gzip.compress((folder / added["file"]).read_bytes()))
    envelope = json.loads((folder / changed["file"]).read_text("utf-8"))
    envelope["run"]["runId"] = "run-renamed-by-test"
    (folder / changed["file"]).write_text(json.dumps(envelope), "utf-8")
    (folder / deleted["file"]).unlink()

    report = index_folder(folder, db)
    assert (report.added, report.updated, report.removed) == (1, 1, 1)
    assert report.unchanged == len(entries) - 2
    assert report.runs == len(entries)

    con = open_index(db)
    rows = {r["file"]: r for r in select(con, "SELECT file, run_id, tool_calls FROM runs")}
    assert rows["more/copy.json.gz"]["run_id"] == added["runId"]
    assert rows["more/copy.json.gz"]["tool_calls"] == added["toolCalls"]
    assert rows[changed["file"]]["run_id"] == "run-renamed-by-test"
    assert deleted["file"] not in rows
    for table in ("model_calls", "tool_calls", "route_hops", "gaps", "files"):
        left = select(con, f"SELECT count(*) AS n FROM {table} WHERE file = '{deleted['file']}'")
        assert left[0]["n"] == 0, table
    renamed = select(con, f"SELECT DISTINCT run_id FROM model_calls WHERE file = '{changed['file']}'")
    assert [r["run_id"] for r in renamed] == (["run-renamed-by-test"] if changed["modelCalls"]
                                              else [])
    con.close()


def test_a_touched_file_with_the_same_bytes_is_unchanged(archive_copy, facts):
    folder, db = archive_copy
    index_folder(folder, db)
    path = folder / facts["files"][0]["file"]
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    report = index_folder(folder, db)
    assert (report.added, report.updated, report.unchanged) == (0, 0, len(facts["files"]))
    con = open_index(db)
    stored = select(con, f"SELECT mtime_ns FROM files WHERE file = '{facts['files'][0]['file']}'")
    assert stored[0]["mtime_ns"] == path.stat().st_mtime_ns  # not read again next time
    con.close()


def test_damaged_files_are_listed_with_a_reason_and_the_rest_indexed(archive_copy, facts):
    folder, db = archive_copy
    whole = (folder / facts["files"][0]["file"]).read_bytes()
    (folder / "damaged").mkdir()
    (folder / "damaged" / "truncated.json").write_bytes(whole[: len(whole) // 2])
    (folder / "damaged" / "empty.json").write_bytes(b"")
    (folder / "damaged" / "cut.json.gz").write_bytes(gzip.compress(whole)[:-200])
    (folder / "damaged" / "not-a-run.json").write_text('{"name": "a config file"}')
    report = index_folder(folder, db)
    problems = {u["file"]: u["problem"] for u in report.unreadable}
    assert set(problems) == unreadable_files(facts) | {
        "damaged/truncated.json", "damaged/empty.json", "damaged/cut.json.gz"}
    assert "truncated" in problems["damaged/truncated.json"]
    assert "empty" in problems["damaged/empty.json"]
    assert "gzip" in problems["damaged/cut.json.gz"]
    assert all("\n" not in p and p for p in problems.values())
    assert report.runs == len(facts["files"])
    con = open_index(db)
    indexed = {r["file"] for r in select(con, "SELECT file FROM runs")}
    assert indexed == {e["file"] for e in facts["files"]}
    con.close()


def test_symlinks_in_the_folder_are_listed_and_never_read(tmp_path, facts):
    """No symlink below the folder is followed, whether it leads outside, inside,
    nowhere or round in a loop: each is listed with the same reason, and no row
    of the file it names is indexed under its name."""
    folder = copy_archive(tmp_path / "runs")
    db = tmp_path / "index.duckdb"
    entry = facts["files"][0]
    outside = tmp_path / "elsewhere" / "secret.json"
    outside.parent.mkdir()
    outside.write_bytes((folder / entry["file"]).read_bytes())
    os.symlink(outside, folder / "linked-out.json")
    os.symlink(folder / entry["file"], folder / "linked-in.json")
    os.symlink(folder / "moved-away.json", folder / "dangling.json")
    os.symlink(folder / "loop-b.json", folder / "loop-a.json")
    os.symlink(folder / "loop-a.json", folder / "loop-b.json")
    links = ("linked-out.json", "linked-in.json", "dangling.json", "loop-a.json", "loop-b.json")

    report = index_folder(folder, db)

    listed = {u["file"]: u["problem"] for u in report.unreadable}
    assert set(listed) == unreadable_files(facts) | set(links)
    for name in links:
        assert listed[name] == (f"{name} is a symlink; symlinks inside an archive folder "
                                "are not followed, not read")
    assert report.runs == len(facts["files"])
    con = open_index(db)
    try:
        files = {r["file"] for r in select(con, "SELECT file FROM runs")}
        rows = select(con, "SELECT count(*) AS n FROM tool_calls WHERE file LIKE 'l%.json'")
    finally:
        con.close()
    assert not files & set(links)
    assert rows[0]["n"] == 0
    # Unchanged on the next pass: nothing is read again, the reasons stay listed.
    again = index_folder(folder, db)
    assert (again.added, again.updated, again.unchanged) == (0, 0, report.added)
    assert {u["file"] for u in again.unreadable} == set(listed)


def test_a_file_whose_name_is_not_utf8_is_listed_with_a_readable_name(tmp_path, facts):
    folder = copy_archive(tmp_path / "runs")
    db = tmp_path / "index.duckdb"
    run = (folder / facts["files"][0]["file"]).read_bytes()
    (folder / "line\nbreak.json").write_bytes(run)  # odd, but text: indexed as it is
    try:
        with open(os.fsencode(folder) + b"/caf\xe9-latin1.json", "wb") as latin1:
            latin1.write(run)
    except OSError as error:  # a file system that only takes UTF-8 names
        pytest.skip(f"this file system refuses a name that is not UTF-8: {error}")

    report = index_folder(folder, db)

    listed = {u["file"]: u["problem"] for u in report.unreadable}
    assert set(listed) == unreadable_files(facts) | {"caf\\xe9-latin1.json"}
    assert listed["caf\\xe9-latin1.json"].startswith("the file's path is not valid UTF-8")
    assert report.runs == len(facts["files"]) + 1
    con = open_index(db)
    try:
        files = {r["file"] for r in select(con, "SELECT file FROM runs")}
    finally:
        con.close()
    assert "line\nbreak.json" in files
    again = index_folder(folder, db)
    assert (again.added, again.updated, again.removed) == (0, 0, 0)
    assert "caf\\xe9-latin1.json" in {u["file"] for u in again.unreadable}


def test_an_index_written_under_other_rules_is_rebuilt(archive_copy, facts):
    """The same bytes under newer rules may be another verdict (a run, or not):
    an index of another SCHEMA_VERSION is read again in full, not trusted."""
    folder, db = archive_copy
    first = index_folder(folder, db)
    import duckdb

    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE archive_meta SET schema_version = schema_version - 1")
    again = index_folder(folder, db)
    assert (again.added, again.unchanged) == (first.added, 0)
    assert again.runs == first.runs


def test_a_folder_that_cannot_be_listed_is_said_and_its_runs_kept(tmp_path, facts,
                                                                  monkeypatch):
    """Before, os.walk skipped it without a word and its runs counted as removed.
    (Tests run as root, which lists any folder: the refusal is the OS's answer
    given by scandir, as it gives it to a user without the permission.)"""
    import archive.folder

    folder = copy_archive(tmp_path / "runs")
    db = tmp_path / "index.duckdb"
    first = index_folder(folder, db)
    hidden = sorted({e["file"].split("/")[0] for e in facts["files"] if "/" in e["file"]})[0]
    real_scandir = os.scandir

    def refusing(path="."):
        if _listed_path(path) == str(folder / hidden):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)
    monkeypatch.setattr(archive.folder.os, "scandir", refusing)
    report = index_folder(folder, db)
    assert (report.runs, report.removed, report.added) == (first.runs, 0, 0)
    assert {"file": f"{hidden}/", "problem": "cannot list this folder (Permission denied); "
            "the runs in it are not read, and those indexed before are kept"} \
        in report.unreadable
    monkeypatch.setattr(archive.folder.os, "scandir", real_scandir)
    again = index_folder(folder, db)
    assert (again.runs, again.removed, again.added) == (first.runs, 0, 0)
    assert not [u for u in again.unreadable if u["file"].endswith("/")]


def _listed_path(path) -> str:
    """The folder scandir was asked to list, given by path or by descriptor."""
    if isinstance(path, int):
        return os.readlink(f"/proc/self/fd/{path}")
    return os.path.abspath(path)


def test_an_archive_folder_that_cannot_be_listed_is_one_error(tmp_path, monkeypatch):
    import archive.folder
    from archive.errors import ArchiveError

    folder = copy_archive(tmp_path / "runs")

    def refusing(path="."):
        raise PermissionError(13, "Permission denied", str(path))
    monkeypatch.setattr(archive.folder.os, "scandir", refusing)
    with pytest.raises(ArchiveError, match="cannot list the folder"):
        index_folder(folder, tmp_path / "index.duckdb")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_odd_entries_named_like_runs_are_listed_or_indexed_and_nothing_waits(tmp_path, facts):
    """A pipe named like a run is listed, never opened (a reader would wait
    for a writer); an upper-case suffix is still a run file; a folder named
    like one is walked."""
    folder = copy_archive(tmp_path / "runs")
    entry = facts["files"][0]
    os.mkfifo(folder / "pipe.json")
    (folder / "SHOUTED.JSON").write_bytes((folder / entry["file"]).read_bytes())
    (folder / "folder.json").mkdir()
    (folder / "folder.json" / "inside.json").write_bytes((folder / entry["file"]).read_bytes())
    report = index_folder(folder, tmp_path / "index.duckdb")
    assert report.runs == len(facts["files"]) + 2
    assert {"file": "pipe.json", "problem": "pipe.json is not a regular file (a pipe, a socket "
            "or a device); not read"} in report.unreadable


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_file_that_became_a_pipe_after_listing_is_not_waited_for(tmp_path):
    from archive.errors import ArchiveError
    from archive.folder import read_file

    os.mkfifo(tmp_path / "run.json")
    with pytest.raises(ArchiveError, match="not a regular file"):
        read_file(tmp_path, "run.json", 1024**2)

"""Causes across runs, labels, the labelled dataset and the nearest good run.

The folder is the sample archive plus every feature-family recording. What a
group must hold is worked out here from the run files' own typed events
(which tool ended with ``error: true``, which event the catalogue calls a
verdict), not from the code that builds the groups.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from archive.causes import cause_groups, group_files
from archive.embedded import index_folder
from archive.labels import LabelStore
from archive.query import open_index, select
from archive_support import cli, copy_archive
from family_files import family_names, family_recording
from recorders.catalogue import TOOL_END, TOOL_START, VERDICT, event_kind


@pytest.fixture(scope="module")
def folder_and_db(tmp_path_factory):
    base = tmp_path_factory.mktemp("causes")
    folder = copy_archive(base / "runs")
    (folder / "families").mkdir()
    for case in family_names():
        shutil.copy(family_recording(case), folder / "families" / f"{case}.json.gz")
    db = base / "index.duckdb"
    index_folder(folder, db)
    return folder, db


def typed_events(path: Path) -> list[dict]:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    document = json.loads(data)
    if isinstance(document, dict) and "recording" in document:
        document = document["recording"]
    events = document.get("events") if isinstance(document, dict) else None
    return events if isinstance(events, list) else []


def truths(folder: Path) -> tuple[dict[str, set[str]], set[str]]:
    """(tool name -> files where it failed, files with a failed tool or a verdict)."""
    failed: dict[str, set[str]] = {}
    judged: set[str] = set()
    for path in sorted(folder.rglob("*.json*")):
        file = path.relative_to(folder).as_posix()
        names = {}
        for event in typed_events(path):
            if not isinstance(event, dict):
                continue
            payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
            if event.get("type") == TOOL_START:
                names[payload.get("toolCallId")] = payload.get("toolName")
            elif event.get("type") == TOOL_END and payload.get("error") is True:
                failed.setdefault(names.get(payload.get("toolCallId")), set()).add(file)
                judged.add(file)
            if event_kind(event.get("type"), payload) == VERDICT:
                judged.add(file)
    return failed, judged


def test_every_run_with_a_failed_tool_or_a_verdict_is_in_a_group(folder_and_db):
    folder, db = folder_and_db
    _, judged = truths(folder)
    assert len(judged) >= 20
    with open_index(db) as con:
        grouped = {file for group in cause_groups(con) for file in group["files"]}
    assert judged <= grouped, sorted(judged - grouped)


def test_a_failed_tools_group_lists_exactly_the_runs_where_it_failed(folder_and_db):
    folder, db = folder_and_db
    failed, _ = truths(folder)
    assert len(failed) >= 5
    with open_index(db) as con:
        groups = cause_groups(con)
    for tool, files in failed.items():
        named = set().union(*[set(g["files"]) for g in groups
                              if g["kind"] == "failed tool" and g["subject"] == tool] or [set()])
        assert named == files, tool


def test_groups_are_largest_first_and_say_when_where_and_who(folder_and_db):
    _, db = folder_and_db
    with open_index(db) as con:
        groups = cause_groups(con)
        runs = {row["file"]: row for row in select(con, "SELECT file, agent, started_at FROM runs")}
    assert [g["runs"] for g in groups] == sorted((g["runs"] for g in groups), reverse=True)
    for group in groups:
        assert group["runs"] == len(group["files"]) == sum(group["agents"].values())
        stamps = sorted(runs[f]["started_at"] for f in group["files"] if runs[f]["started_at"])
        if stamps:
            assert (group["firstSeen"], group["lastSeen"]) == (stamps[0], stamps[-1])
            assert sum(group["days"].values()) == len(stamps)
        assert group["example"]["file"] in group["files"]
        assert set(group["agents"]) == {runs[f]["agent"] or "" for f in group["files"]}


def test_a_where_narrows_the_runs_grouped(folder_and_db):
    _, db = folder_and_db
    with open_index(db) as con:
        every = cause_groups(con)
        travel = cause_groups(con, "agent = 'travel-desk'")
        first = travel[0]
        members = group_files(con, first["kind"], first["subject"], first["text"],
                              "agent = 'travel-desk'")
    assert travel and len(travel) < len(every)
    assert all(set(g["agents"]) == {"travel-desk"} for g in travel)
    assert {row["file"] for row in members} == set(first["files"])


def test_the_causes_command_prints_the_groups_as_json(folder_and_db, capsys):
    folder, db = folder_and_db
    status, out, _ = cli(capsys, "archive", "causes", str(folder), "--db", str(db), "--json")
    assert status == 0
    groups = json.loads(out)
    assert groups and {"kind", "subject", "text", "runs", "files", "firstSeen", "lastSeen",
                       "agents"} <= set(groups[0])
    status, _, err = cli(capsys, "archive", "causes", str(folder), "--db", str(db),
                         "--where", "nope(")
    assert status == 2 and err.count("\n") == 1


# ─── labels ────────────────────────────────────────────────────────────


@pytest.fixture
def labelled(indexed_copy):
    folder, db = indexed_copy
    with open_index(db) as con:
        rows = select(con, "SELECT file, agent, user_message FROM runs WHERE failed_tool_calls > 0 "
                           "ORDER BY file")
    return folder, db, rows


def test_a_label_leaves_the_recording_as_it_was_and_survives_a_reindex(labelled, capsys):
    folder, db, rows = labelled
    file = rows[0]["file"]
    before = hashlib.sha256((folder / file).read_bytes()).hexdigest()
    status, out, _ = cli(capsys, "archive", "label", str(folder), "--db", str(db), "--file", file,
                         "--add", "wrong answer", "--note", "said the fare was held")
    assert status == 0 and json.loads(out)["labels"][0]["note"] == "said the fare was held"
    assert hashlib.sha256((folder / file).read_bytes()).hexdigest() == before
    index_folder(folder, db)  # nothing changed
    with open_index(db) as con:
        con.execute("SELECT 1")  # the read-only index opens with the labels in it
    with LabelStore.open(db) as store:
        store.connection.execute("UPDATE archive_meta SET schema_version = 1")
    index_folder(folder, db)  # a rebuild of every table of the index
    status, out, _ = cli(capsys, "archive", "runs", str(folder), "--db", str(db),
                         "--label", "wrong answer", "--json")
    assert status == 0 and [row["file"] for row in json.loads(out)] == [file]


def test_a_label_stays_with_the_content_it_was_put_on(labelled, capsys):
    folder, db, rows = labelled
    file = rows[0]["file"]
    cli(capsys, "archive", "label", str(folder), "--db", str(db), "--file", file,
        "--add", "needs a look")
    path = folder / file
    path.write_bytes(path.read_bytes() + b"\n")  # the file changed (the same run, other bytes)
    index_folder(folder, db)
    status, out, _ = cli(capsys, "archive", "label", str(folder), "--db", str(db), "--file", file,
                         "--add", "right answer")
    said = json.loads(out)
    assert [l["label"] for l in said["labels"]] == ["right answer"]
    assert [l["label"] for l in said["earlierContent"]] == ["needs a look"]
    status, out, _ = cli(capsys, "archive", "runs", str(folder), "--db", str(db),
                         "--label", "needs a look", "--json")
    assert json.loads(out) == []


def test_labels_refuse_what_is_not_a_label(labelled, capsys):
    folder, db, rows = labelled
    for bad in ("", "   ", "x" * 61, "wrong\u200banswer"):
        status, _, err = cli(capsys, "archive", "label", str(folder), "--db", str(db),
                             "--file", rows[0]["file"], "--add", bad)
        assert status == 2 and err.count("\n") == 1, bad
    status, _, err = cli(capsys, "archive", "label", str(folder), "--db", str(db),
                         "--file", "no/such.json", "--add", "x")
    assert status == 2 and "not a run" in err
    status, _, err = cli(capsys, "archive", "label", str(folder), "--db", str(db),
                         "--file", rows[0]["file"], "--add", "x", "--step", "root")
    assert status == 2 and "PATH:N" in err


def test_the_dataset_has_one_line_per_labelled_run_with_its_answer_and_note(labelled, capsys,
                                                                           tmp_path):
    folder, db, rows = labelled
    hostile = "</script><img src=x onerror=alert(1)>\u2028next\u2029\x00"
    chosen = rows[:2]
    for number, row in enumerate(chosen):
        cli(capsys, "archive", "label", str(folder), "--db", str(db), "--file", row["file"],
            "--add", "wrong answer", "--note", f"{hostile} #{number}")
    cli(capsys, "archive", "label", str(folder), "--db", str(db), "--file", rows[-1]["file"],
        "--add", "right answer")
    out = tmp_path / "wrong.jsonl"
    status, said, _ = cli(capsys, "archive", "export", str(folder), "--db", str(db),
                          "--label", "wrong answer", "-o", str(out))
    assert status == 0 and json.loads(said)["runs"] == len(chosen)
    lines = out.read_text("utf-8").split("\n")
    assert lines[-1] == "" and len(lines) - 1 == len(chosen)
    exported = [json.loads(line) for line in lines[:-1]]
    with open_index(db) as con:
        truth = {r["file"]: r for r in select(con, "SELECT * FROM runs")}
    for line in exported:
        row = truth[line["file"]]
        assert (line["finalAnswer"], line["userMessage"], line["runId"]) == \
            (row["final_answer"], row["user_message"], row["run_id"])
        assert line["labels"][0]["note"].startswith(hostile)
        assert line["causes"] and line["causes"][0]["kind"]
        assert line["servedContext"] is not None and line["servedContext"]["slots"]


def test_the_nearest_good_run_is_of_the_same_agent_and_lacks_the_cause(labelled, capsys):
    folder, db, rows = labelled
    found = 0
    for row in rows:
        status, out, _ = cli(capsys, "archive", "nearest", str(folder), "--db", str(db),
                             "--file", row["file"])
        assert status == 0
        said = json.loads(out)
        nearest = said["nearest"]
        if nearest is None:
            continue
        found += 1
        with open_index(db) as con:
            other = select(con, "SELECT agent, user_message FROM runs WHERE file = ?",
                           [nearest["file"]])[0]
            causes = select(con, "SELECT kind, subject, signature FROM causes WHERE file = ?",
                            [nearest["file"]])
            same = select(con, "SELECT count(*) AS n FROM runs WHERE agent = ? AND file <> ? "
                               "AND user_message = ?", [row["agent"], row["file"],
                                                        row["user_message"]])[0]["n"]
        cause = said["cause"]
        assert other["agent"] == row["agent"] and nearest["file"] != row["file"]
        assert (cause["kind"], cause["subject"], cause["text"]) not in \
            {(c["kind"], c["subject"], c["signature"]) for c in causes}
        if same and nearest["userMessage"] != row["user_message"]:
            # Only when every run with the same message has the cause too.
            with open_index(db) as con:
                twins = select(con, "SELECT file FROM runs WHERE agent = ? AND user_message = ? "
                                    "AND file <> ?", [row["agent"], row["user_message"],
                                                      row["file"]])
                for twin in twins:
                    assert (cause["kind"], cause["subject"], cause["text"]) in {
                        (c["kind"], c["subject"], c["signature"]) for c in select(
                            con, "SELECT kind, subject, signature FROM causes WHERE file = ?",
                            [twin["file"]])}
    assert found

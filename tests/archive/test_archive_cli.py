"""``footprint-lens archive index|runs|sql`` end to end, and the read-only guard."""

from __future__ import annotations

import json

import pytest

from archive_support import cli
from archive.schema import RUNS


def test_index_prints_what_changed_as_json(capsys, archive_copy, facts):
    folder, db = archive_copy
    status, out, err = cli(capsys, "archive", "index", str(folder), "--db", str(db))
    assert status == 0 and err == ""  # no progress bar when stderr is not a terminal
    report = json.loads(out)
    assert set(report) == {"runs", "added", "updated", "unchanged", "removed", "unreadable"}
    assert report["runs"] == len(facts["files"])
    status, out, _ = cli(capsys, "archive", "index", str(folder), "--db", str(db))
    assert json.loads(out)["unchanged"] == report["added"]


def test_runs_lists_filtered_runs_with_every_column(capsys, indexed_sample, facts):
    folder, db, _ = indexed_sample
    status, out, _ = cli(capsys, "archive", "runs", str(folder), "--db", str(db),
                             "--where", "failed_tool_calls > 0", "--json", "--limit", "0")
    assert status == 0
    rows = json.loads(out)
    assert {r["file"] for r in rows} == {e["file"] for e in facts["files"]
                                         if e["failedToolCalls"] > 0}
    assert all(list(r) == list(RUNS.column_names) for r in rows)
    started = [r["started_at"] for r in rows]
    assert started == sorted(started, reverse=True)


def test_runs_as_a_table_keeps_terminal_control_characters_out(capsys, indexed_sample):
    folder, db, _ = indexed_sample
    status, out, _ = cli(capsys, "archive", "runs", str(folder), "--db", str(db),
                             "--limit", "3")
    assert status == 0
    assert out.splitlines()[0].split()[:2] == ["started_at", "agent"]
    assert out.rstrip().endswith("(3 runs)")
    assert "\x1b" not in out


def test_sql_answers_with_json_rows(capsys, indexed_sample, facts):
    folder, db, _ = indexed_sample
    status, out, _ = cli(capsys, "archive", "sql", str(folder), "--db", str(db),
                             "SELECT agent, count(*) AS n FROM runs GROUP BY agent")
    assert status == 0
    by_agent = {r["agent"]: r["n"] for r in json.loads(out)}
    assert by_agent == {a: t["runs"] for a, t in facts["totals"]["byAgent"].items()}


REFUSED = [
    ("DELETE FROM runs", "DELETE"),
    ("DROP TABLE runs", "DROP"),
    ("CREATE TABLE x AS SELECT * FROM runs", "CREATE"),
    ("UPDATE runs SET agent = 'x'", "UPDATE"),
    ("ATTACH '{tmp}/other.duckdb' AS other", "ATTACH"),
    ("COPY runs TO '{tmp}/out.csv'", "COPY"),
    ("INSTALL httpfs", "LOAD"),
    ("SET enable_external_access = true", "SET"),
    ("SELECT 1; DELETE FROM runs", "2 statements"),
    ("SELECT * FROM read_csv('/etc/passwd')", "disabled"),
    ("SELECT * FROM read_text('{tmp}/secret.txt')", "disabled"),
    ("SELECT * FROM glob('/*')", "disabled"),
]


@pytest.mark.parametrize("sql, reason", REFUSED)
def test_sql_that_writes_attaches_or_reads_outside_is_refused_in_one_line(
        capsys, indexed_sample, tmp_path, sql, reason):
    folder, db, _ = indexed_sample
    (tmp_path / "secret.txt").write_text("not for the query")
    status, out, err = cli(capsys, "archive", "sql", str(folder), "--db", str(db),
                               sql.format(tmp=tmp_path))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and reason in err and "Traceback" not in err
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "other.duckdb").exists()


def test_a_where_clause_cannot_smuggle_a_second_statement(capsys, indexed_sample):
    folder, db, _ = indexed_sample
    status, _, err = cli(capsys, "archive", "runs", str(folder), "--db", str(db),
                             "--where", "true); DELETE FROM runs; SELECT (1")
    assert status == 2 and "statements" in err
    status, out, _ = cli(capsys, "archive", "sql", str(folder), "--db", str(db),
                             "SELECT count(*) AS n FROM runs")
    assert json.loads(out)[0]["n"] > 0


@pytest.mark.parametrize("argv, message", [
    (["archive", "runs", "{tmp}/never-indexed"], "no index"),
    (["archive", "index", "{tmp}/no-such-folder"], "not a folder"),
    (["archive", "index", "{tmp}", "--engine", "dask"], "--scheduler"),
    (["archive", "sql", "{tmp}"], "one query"),
    (["archive", "sql", "--parquet", "{tmp}/nothing", "SELECT 1"], "Parquet"),
])
def test_bad_command_lines_fail_in_one_line(capsys, tmp_path, argv, message):
    (tmp_path / "never-indexed").mkdir()
    status, out, err = cli(capsys, *[a.format(tmp=tmp_path) for a in argv])
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_an_index_file_whose_folder_cannot_be_made_is_one_line(capsys, archive_copy, tmp_path):
    folder, _ = archive_copy
    (tmp_path / "a-file").write_text("not a folder")
    status, out, err = cli(capsys, "archive", "index", str(folder),
                               "--db", str(tmp_path / "a-file" / "index.duckdb"))
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "cannot create the folder for the index" in err


def test_a_duckdb_file_that_is_not_an_index_is_refused_and_left_alone(capsys, archive_copy,
                                                                     tmp_path):
    import duckdb

    folder, _ = archive_copy
    theirs = tmp_path / "theirs.duckdb"
    with duckdb.connect(str(theirs)) as con:
        con.execute("CREATE TABLE runs (id INTEGER)")
    status, out, err = cli(capsys, "archive", "index", str(folder), "--db", str(theirs))
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "not a Lens archive index" in err and "runs" in err
    with duckdb.connect(str(theirs)) as con:
        assert con.execute("SELECT table_name FROM information_schema.tables").fetchall() \
            == [("runs",)]


def test_an_index_in_use_by_another_writer_is_said_plainly(capsys, archive_copy):
    folder, db = archive_copy
    import multiprocessing

    holder = multiprocessing.get_context("spawn").Process(target=_hold_lock, args=(str(db),))
    ready = db.with_suffix(".ready")
    holder.start()
    try:
        import time

        deadline = time.monotonic() + 30
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        status, _, err = cli(capsys, "archive", "index", str(folder), "--db", str(db))
        assert status == 2 and "in use by another process" in err
    finally:
        holder.terminate()
        holder.join(10)


def _hold_lock(db: str) -> None:
    import pathlib
    import time

    import duckdb

    con = duckdb.connect(db)
    pathlib.Path(db).with_suffix(".ready").write_text("ok")
    time.sleep(60)
    con.close()


def test_the_command_line_starts_without_the_replay_compare_or_pandas():
    # `footprint-lens archive runs` is a query a person waits for in a fresh
    # process: the loader, projections, evidence index, compare and pandas
    # are not imported until a command needs them.
    import subprocess
    import sys as _sys

    heavy = ("recorders.loading", "recorders.projections", "recorders.evidence",
             "lens.compare", "lens.run", "pandas", "streamlit", "plotly")
    probe = ("import sys, lens_cli.main; "
             f"print(','.join(m for m in {heavy!r} if m in sys.modules))")
    found = subprocess.run([_sys.executable, "-c", probe], capture_output=True, text=True,
                           timeout=120)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == ""

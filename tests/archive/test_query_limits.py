"""Limits on a query's work (issue 31): ``archive sql`` and ``archive runs``
stop at a time limit, a memory limit and a cap on the answer, each with one
line and status 2; ``--where`` and ``--order-by`` are parsed by DuckDB as an
expression and an ORDER BY list, so no text in them reaches past ``--limit``.

The attacks that could hang or exhaust the machine run in a child process
with a timeout of its own, so a broken limit fails the test instead of
hanging the suite.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from archive_support import cli
from archive.schema import TABLES

REPO = Path(__file__).resolve().parents[2]
ENDLESS = "SELECT count(*) AS n FROM range(1000000000000)"  # days of work for one core
# A 2 GB string built from 2,000,000 rows: the old code reached 6 GB resident on it.
STRING_AGG_ATTACK = "SELECT length(string_agg(repeat('x', 1000), '')) AS n FROM range(2000000)"
# Runs the command line and leaves its own peak resident memory (KiB) in a file:
# VmHWM, not ru_maxrss, which Linux carries across exec from the forking process
# (a child of a pytest process of 700 MB reported 700 MB).
CHILD = ("import sys\n"
         "from lens_cli.main import main\n"
         "status = main(sys.argv[2:])\n"
         "peak = next(line.split()[1] for line in open('/proc/self/status')\n"
         "            if line.startswith('VmHWM:'))\n"
         "with open(sys.argv[1], 'w') as out:\n"
         "    out.write(peak)\n"
         "sys.exit(status)\n")


def run_child(tmp_path, *argv: str, env: dict[str, str] | None = None):
    """``footprint-lens ARGV`` in a fresh process: status, stdout, stderr, seconds
    taken and peak resident memory in MB."""
    peak_file = tmp_path / "peak-kib"
    child_env = {**os.environ, **(env or {})}
    child_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO),
                                                            child_env.get("PYTHONPATH")]))
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", CHILD, str(peak_file), *argv],
                          capture_output=True, text=True, timeout=180, env=child_env,
                          cwd=tmp_path)
    elapsed = time.monotonic() - started
    peak_mb = int(peak_file.read_text()) / 1024 if peak_file.exists() else float("nan")
    return done.returncode, done.stdout, done.stderr, elapsed, peak_mb


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.strip()


def sql_args(indexed_sample, *rest: str) -> list[str]:
    folder, db, _ = indexed_sample
    return ["archive", "sql", str(folder), "--db", str(db), *rest]


def runs_args(indexed_sample, *rest: str) -> list[str]:
    folder, db, _ = indexed_sample
    return ["archive", "runs", str(folder), "--db", str(db), "--json", *rest]


# ─── time ──────────────────────────────────────────────────────────────


def test_an_endless_query_stops_at_its_time_limit_in_one_line(indexed_sample, tmp_path):
    status, out, err, elapsed, _ = run_child(tmp_path, *sql_args(indexed_sample, "--timeout", "1",
                                                                 ENDLESS))
    assert status == 2 and out == ""
    assert one_line(err) == ("the query ran past its time limit of 1 s "
                             "(--timeout / LENS_SQL_TIMEOUT_S); refused")
    assert elapsed < 15  # measured 1.5 s: start-up, one second, the interrupt


def test_the_time_limit_can_be_set_in_the_environment(indexed_sample, tmp_path):
    status, _, err, elapsed, _ = run_child(tmp_path, *sql_args(indexed_sample, ENDLESS),
                                           env={"LENS_SQL_TIMEOUT_S": "1.5"})
    assert status == 2 and "time limit of 1.5 s" in one_line(err)
    assert elapsed < 15


def test_runs_is_held_to_the_time_limit_too(indexed_sample, tmp_path):
    status, _, err, elapsed, _ = run_child(tmp_path, *runs_args(
        indexed_sample, "--timeout", "1",
        "--where", "(SELECT count(*) FROM runs a, runs b, runs c, runs d, runs e, runs f) > 0"))
    assert status == 2 and "time limit of 1 s" in one_line(err)
    assert elapsed < 15


# ─── memory ────────────────────────────────────────────────────────────


def test_the_string_agg_attack_is_refused_at_the_memory_limit(indexed_sample, tmp_path):
    _, db, _ = indexed_sample
    status, out, err, _, peak_mb = run_child(
        tmp_path, *sql_args(indexed_sample, "--memory-mb", "64", STRING_AGG_ATTACK))
    assert status == 2 and out == ""
    assert one_line(err) == ("the query needed more than its memory limit of 64 MB "
                             "(--memory-mb / LENS_SQL_MEMORY_MB); refused")
    assert peak_mb < 400  # measured ~150 MB; the old code reached 6,000 MB
    assert not Path(f"{db}.tmp").exists(), "the query spilled to disk beside the index"


@pytest.mark.parametrize("attack", [
    "SELECT len(range(0, 200000000)) AS n",  # a 1.6 GB list: 14 GB and 45 s uncapped
    "SELECT length(repeat('x', 900000000)) AS n",
])
def test_a_huge_value_from_a_scalar_function_is_refused_at_the_memory_limit(
        indexed_sample, tmp_path, attack):
    # DuckDB's memory_limit does not count these; the process cap does.
    status, out, err, elapsed, peak_mb = run_child(
        tmp_path, *sql_args(indexed_sample, "--memory-mb", "64", attack))
    assert status == 2 and out == ""
    assert one_line(err).startswith("the query needed more than its memory limit of 64 MB")
    assert peak_mb < 400 and elapsed < 30


def test_the_default_memory_limit_refuses_the_string_agg_attack(indexed_sample, tmp_path):
    status, _, err, _, peak_mb = run_child(tmp_path, *sql_args(indexed_sample,
                                                               STRING_AGG_ATTACK))
    assert status == 2 and "memory limit of 1,024 MB" in one_line(err)
    assert peak_mb < 1024 + 400  # DuckDB's 1 GB and the process around it


def test_the_memory_limit_holds_over_parquet_too(indexed_sample, tmp_path):
    _, db, _ = indexed_sample
    dataset = tmp_path / "parquet"
    with duckdb.connect(str(db), read_only=True) as con:
        for table in TABLES:
            (dataset / table.name).mkdir(parents=True)
            con.execute(f'COPY "{table.name}" TO '
                        f"'{dataset / table.name / 'part-0.parquet'}' (FORMAT parquet)")
    status, _, err, _, peak_mb = run_child(
        tmp_path, "archive", "sql", "--parquet", str(dataset), "--memory-mb", "64",
        STRING_AGG_ATTACK)
    assert status == 2 and "memory limit of 64 MB" in one_line(err)
    assert peak_mb < 400
    assert not (tmp_path / ".tmp").exists(), "the in-memory database spilled to the cwd"


# ─── the answer's size ─────────────────────────────────────────────────


def test_a_huge_answer_is_refused_at_the_default_row_cap(indexed_sample, tmp_path):
    status, out, err, elapsed, peak_mb = run_child(
        tmp_path, *sql_args(indexed_sample, "SELECT * FROM range(3000000)"))
    assert status == 2 and out == ""
    assert one_line(err).startswith("the answer has more rows than its limit of 100,000 rows "
                                    "(--max-rows / LENS_SQL_MAX_ROWS)")
    assert peak_mb < 400 and elapsed < 30


def test_the_row_cap_lets_an_answer_of_exactly_that_many_rows_through(capsys, indexed_sample):
    status, out, _ = cli(capsys, *sql_args(indexed_sample, "--max-rows", "10",
                                               "SELECT * FROM range(10)"))
    assert status == 0 and [r["range"] for r in json.loads(out)] == list(range(10))
    status, out, err = cli(capsys, *sql_args(indexed_sample, "--max-rows", "10",
                                                 "SELECT * FROM range(11)"))
    assert status == 2 and out == "" and "limit of 10 rows" in one_line(err)


def test_a_few_rows_of_huge_values_are_refused_at_the_byte_cap(capsys, indexed_sample):
    # 2 MB of text in 200 rows, under a 1 MB cap
    status, out, err = cli(capsys, *sql_args(indexed_sample, "--max-result-mb", "1",
                                                 "SELECT repeat('x', 10000) AS s "
                                                 "FROM range(200)"))
    assert status == 2 and out == ""
    assert one_line(err).startswith("the answer is larger than its limit of 1 MB "
                                    "(--max-result-mb / LENS_SQL_MAX_RESULT_MB)")
    status, out, _ = cli(capsys, *sql_args(indexed_sample, "--max-result-mb", "1",
                                               "SELECT repeat('x', 10000) AS s FROM range(50)"))
    assert status == 0 and len(json.loads(out)) == 50


@pytest.mark.parametrize("argv_tail, env, named", [
    (["--timeout", "0"], {}, "--timeout"),
    (["--memory-mb", "lots"], {}, "--memory-mb"),
    ([], {"LENS_SQL_TIMEOUT_S": "soon"}, "LENS_SQL_TIMEOUT_S"),
    ([], {"LENS_SQL_MAX_ROWS": "-5"}, "LENS_SQL_MAX_ROWS"),
])
def test_a_limit_that_is_not_a_positive_number_is_one_line(capsys, monkeypatch, indexed_sample,
                                                             argv_tail, env, named):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    status, out, err = cli(capsys, *sql_args(indexed_sample, *argv_tail, "SELECT 1"))
    assert status == 2 and out == ""
    assert named in one_line(err) and "positive number" in err


# ─── --where and --order-by ────────────────────────────────────────────


@pytest.mark.parametrize("option, text", [
    # the probes: both listed every run past --limit 2
    ("--where", "TRUE) ORDER BY file --"),
    ("--order-by", "file LIMIT 1000 --"),
    # more of the same kind
    ("--where", "TRUE) UNION ALL SELECT * FROM runs --"),
    ("--where", "true); DELETE FROM runs; SELECT (1"),
    ("--where", "TRUE ORDER BY file"),
    ("--where", "1 FROM runs"),
    ("--where", "TRUE /*"),
    ("--where", "file = ?"),
    ("--order-by", "file LIMIT 1000 OFFSET 0"),
    ("--order-by", "file; SELECT 1"),
    ("--order-by", "file) --"),
    # a subquery may read the archive's tables, and nothing else
    ("--where", "EXISTS (SELECT * FROM duckdb_settings())"),
    ("--where", "file IN (SELECT table_name FROM information_schema.tables)"),
    ("--where", "EXISTS (SELECT * FROM range(10))"),
    ("--order-by", "(SELECT count(*) FROM duckdb_tables())"),
])
def test_text_that_reaches_past_its_option_is_refused_naming_it(capsys, indexed_sample,
                                                                 option, text):
    status, out, err = cli(capsys, *runs_args(indexed_sample, option, text, "--limit", "2"))
    assert status == 2 and out == ""
    assert one_line(err).startswith(option + " "), err


@pytest.mark.parametrize("depth", [300, 900])
def test_a_deeply_nested_where_answers_or_is_one_line_naming_it(capsys, indexed_sample, depth):
    # DuckDB parses up to 1,000 levels; writing the tree back (duckdb 2.0 stops
    # at 256) or reading it in Python (the recursion limit) may stop sooner,
    # and must then say so plainly.
    status, out, err = cli(capsys, *runs_args(indexed_sample, "--limit", "0",
                                                  "--where", "NOT " * depth + "TRUE"))
    if status == 0:  # an even number of NOTs: every run
        assert len(json.loads(out)) == len(_files(capsys, indexed_sample))
    else:
        assert status == 2 and out == "" and "--where" in one_line(err)


def _sql_rows(capsys, indexed_sample, sql: str) -> list[dict]:
    status, out, err = cli(capsys, *sql_args(indexed_sample, sql))
    assert status == 0, err
    return json.loads(out)


def _files(capsys, indexed_sample, *options: str) -> list[str]:
    status, out, err = cli(capsys, *runs_args(indexed_sample, "--limit", "0", *options))
    assert status == 0, err
    return [row["file"] for row in json.loads(out)]


def test_ordinary_predicates_still_work(capsys, indexed_sample, facts):
    def manifest_files(keep) -> set[str]:
        return {e["file"] for e in facts["files"] if keep(e)}

    assert set(_files(capsys, indexed_sample, "--where", "failed_tool_calls > 0")) == \
        manifest_files(lambda e: e["failedToolCalls"] > 0)
    assert _files(capsys, indexed_sample, "--where", "agent = 'x' AND complete") == []
    assert set(_files(capsys, indexed_sample, "--where",
                      "agent = 'travel-desk' AND complete")) == \
        manifest_files(lambda e: e["agent"] == "travel-desk" and e["complete"])
    # a trailing comment ends the predicate and nothing else
    assert set(_files(capsys, indexed_sample, "--where",
                      "failed_tool_calls > 0 -- only the failures")) == \
        manifest_files(lambda e: e["failedToolCalls"] > 0)
    # a subquery over another of the archive's tables
    assert set(_files(capsys, indexed_sample, "--where",
                      "file IN (SELECT file FROM tool_calls WHERE error)")) == \
        manifest_files(lambda e: e["failedToolCalls"] > 0)


def test_a_predicate_on_time_compares_with_now(capsys, indexed_sample):
    week_ago = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=7)
    expected = {r["file"] for r in _sql_rows(capsys, indexed_sample,
                                             "SELECT file, started_at FROM runs")
                if r["started_at"] and dt.datetime.fromisoformat(r["started_at"]) > week_ago}
    assert set(_files(capsys, indexed_sample, "--where",
                      "started_at > now() - INTERVAL 7 DAY")) == expected


def test_order_by_a_list_with_directions_and_nulls(capsys, indexed_sample):
    runs = _sql_rows(capsys, indexed_sample, "SELECT file, duration_ms FROM runs")
    nulls_last_then_longest = sorted(runs, key=lambda r: (r["duration_ms"] is None,
                                                           -(r["duration_ms"] or 0), r["file"]))
    expected = [r["file"] for r in nulls_last_then_longest]
    assert _files(capsys, indexed_sample, "--order-by", "duration_ms DESC NULLS LAST, file") == \
        expected
    status, out, _ = cli(capsys, *runs_args(indexed_sample, "--order-by",
                                                "duration_ms DESC NULLS LAST, file",
                                                "--limit", "3"))
    assert status == 0 and [r["file"] for r in json.loads(out)] == expected[:3]


# DuckDB writes the assembled query back out from its parse tree; each of
# these must select what the same predicate selects in a hand-written query.
ROUND_TRIP = [
    "agent SIMILAR TO 'travel.*' OR agent LIKE 'acme%'",
    "agent ILIKE '%DESK%' AND NOT complete IS NULL",
    "duration_ms BETWEEN 0 AND 5000",
    "agent IS DISTINCT FROM 'acme-support'",
    "CASE WHEN complete THEN input_tokens ELSE 0 END > 500",
    "input_tokens::VARCHAR LIKE '1%'",
    "agent IN ('travel-desk', 'release-notes')",
    "coalesce(final_answer, '') <> ''",
    "regexp_matches(file, 'run-\\d+-1\\d\\.json')",
    "'it''s' <> agent AND E'a\\tb' <> agent",
    "agent COLLATE NOCASE = 'TRAVEL-DESK'",
    "EXISTS (SELECT 1 FROM model_calls m WHERE m.file = runs.file AND m.input_tokens > 500)",
    "(input_tokens + output_tokens) % 3 = 0",
]


@pytest.mark.parametrize("predicate", ROUND_TRIP)
def test_a_predicate_selects_what_it_selects_in_sql(capsys, indexed_sample, predicate):
    by_sql = {r["file"] for r in _sql_rows(capsys, indexed_sample,
                                           f"SELECT file FROM runs WHERE ({predicate})")}
    assert set(_files(capsys, indexed_sample, "--where", predicate)) == by_sql

"""Limits on a query's work (issue 31): ``archive sql`` and ``archive runs``
stop at a time limit, a memory limit and a cap on the answer, each with one
line and status 2.

The attacks that could hang or exhaust the machine run in a child process
with a timeout of its own, so a broken limit fails the test instead of
hanging the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from lens.cli import main
from archive.schema import TABLES

REPO = Path(__file__).resolve().parents[2]
ENDLESS = "SELECT count(*) AS n FROM range(1000000000000)"  # days of work for one core
# A 2 GB string built from 2,000,000 rows: the old code reached 6 GB resident on it.
STRING_AGG_ATTACK = "SELECT length(string_agg(repeat('x', 1000), '')) AS n FROM range(2000000)"
# Runs the command line and leaves its own peak resident memory (KiB) in a file.
CHILD = ("import resource, sys\n"
         "from lens.cli import main\n"
         "status = main(sys.argv[2:])\n"
         "with open(sys.argv[1], 'w') as out:\n"
         "    out.write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))\n"
         "sys.exit(status)\n")


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


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
    status, out, _ = run_cli(capsys, *sql_args(indexed_sample, "--max-rows", "10",
                                               "SELECT * FROM range(10)"))
    assert status == 0 and [r["range"] for r in json.loads(out)] == list(range(10))
    status, out, err = run_cli(capsys, *sql_args(indexed_sample, "--max-rows", "10",
                                                 "SELECT * FROM range(11)"))
    assert status == 2 and out == "" and "limit of 10 rows" in one_line(err)


def test_a_few_rows_of_huge_values_are_refused_at_the_byte_cap(capsys, indexed_sample):
    # 2 MB of text in 200 rows, under a 1 MB cap
    status, out, err = run_cli(capsys, *sql_args(indexed_sample, "--max-result-mb", "1",
                                                 "SELECT repeat('x', 10000) AS s "
                                                 "FROM range(200)"))
    assert status == 2 and out == ""
    assert one_line(err).startswith("the answer is larger than its limit of 1 MB "
                                    "(--max-result-mb / LENS_SQL_MAX_RESULT_MB)")
    status, out, _ = run_cli(capsys, *sql_args(indexed_sample, "--max-result-mb", "1",
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
    status, out, err = run_cli(capsys, *sql_args(indexed_sample, *argv_tail, "SELECT 1"))
    assert status == 2 and out == ""
    assert named in one_line(err) and "positive number" in err

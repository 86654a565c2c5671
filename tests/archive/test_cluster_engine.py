"""The Dask engine on a real local cluster (a scheduler and two worker
processes), writing Parquet that DuckDB then answers SQL over."""

from __future__ import annotations

import json
import shutil

import pytest

distributed = pytest.importorskip(
    "distributed", reason="the Dask engine needs the cluster extra: pip install -e '.[cluster]'")

from archive.cluster import META_FILE, index_to_parquet  # noqa: E402
from archive.query import open_parquet, select  # noqa: E402
from archive.schema import SCHEMA_VERSION  # noqa: E402
from archive_support import (assert_model_calls_match_manifest,  # noqa: E402
                             assert_runs_match_manifest, assert_tool_totals_match_manifest,
                             copy_archive, unreadable_files)
from lens_cli.main import main  # noqa: E402


@pytest.fixture(scope="module")
def scheduler():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.fixture(scope="module")
def parquet_index(tmp_path_factory, scheduler):
    base = tmp_path_factory.mktemp("cluster")
    folder = copy_archive(base / "runs")
    url = (base / "parquet").as_uri()
    report = index_to_parquet(folder, url, scheduler)
    return folder, url, report


@pytest.fixture
def parquet_query(parquet_index):
    _, url, _ = parquet_index
    con = open_parquet(url)
    yield lambda sql: select(con, sql)
    con.close()


def test_every_runs_row_equals_the_manifest(parquet_query, facts):
    assert_runs_match_manifest(parquet_query, facts)


def test_tool_calls_by_name_equal_the_manifest_totals(parquet_query, facts):
    assert_tool_totals_match_manifest(parquet_query, facts)
    assert_model_calls_match_manifest(parquet_query, facts)


def test_first_pass_adds_every_run(parquet_index, facts):
    _, _, report = parquet_index
    assert report.runs == len(facts["files"])
    assert {u["file"] for u in report.unreadable} == unreadable_files(facts)


def test_each_table_is_a_parquet_dataset(parquet_index):
    folder, url, _ = parquet_index
    base = url.removeprefix("file://")
    import pathlib

    for table in ("runs", "model_calls", "tool_calls", "route_hops", "gaps", "causes", "files"):
        parts = list(pathlib.Path(base, table).glob("*.parquet"))
        assert len(parts) == 1 and parts[0].read_bytes()[:4] == b"PAR1", table


def test_incremental_passes_on_the_cluster(tmp_path, scheduler, facts):
    folder = copy_archive(tmp_path / "runs")
    url = (tmp_path / "parquet").as_uri()
    first = index_to_parquet(folder, url, scheduler)
    again = index_to_parquet(folder, url, scheduler)
    assert (again.added, again.updated, again.removed) == (0, 0, 0)
    assert again.unchanged == first.added

    entries = facts["files"]
    added, changed, deleted = entries[0], entries[1], entries[2]
    shutil.copy(folder / added["file"], folder / "copy.json")
    envelope = json.loads((folder / changed["file"]).read_text("utf-8"))
    envelope["run"]["runId"] = "run-renamed-by-test"
    (folder / changed["file"]).write_text(json.dumps(envelope), "utf-8")
    (folder / deleted["file"]).unlink()
    whole = (folder / entries[3]["file"]).read_bytes()
    (folder / "truncated.json").write_bytes(whole[: len(whole) // 3])
    (folder / "empty.json").write_bytes(b"")

    report = index_to_parquet(folder, url, scheduler)
    assert (report.added, report.updated, report.removed) == (3, 1, 1)
    assert {u["file"] for u in report.unreadable} == unreadable_files(facts) | {
        "truncated.json", "empty.json"}
    assert report.runs == len(entries)
    con = open_parquet(url)
    runs = {r["file"]: r["run_id"] for r in select(con, "SELECT file, run_id FROM runs")}
    assert runs["copy.json"] == added["runId"]
    assert runs[changed["file"]] == "run-renamed-by-test"
    assert deleted["file"] not in runs
    gone = select(con, f"SELECT count(*) AS n FROM tool_calls WHERE file = '{deleted['file']}'")
    assert gone[0]["n"] == 0
    con.close()


def test_parquet_written_under_other_rules_is_rebuilt(tmp_path, scheduler):
    folder = copy_archive(tmp_path / "runs")
    url = (tmp_path / "parquet").as_uri()
    first = index_to_parquet(folder, url, scheduler)
    meta = tmp_path / "parquet" / META_FILE
    assert json.loads(meta.read_text())["schema_version"] == SCHEMA_VERSION
    meta.unlink()  # as a pass before the version was written leaves it
    again = index_to_parquet(folder, url, scheduler)
    assert (again.added, again.unchanged, again.runs) == (first.added, 0, first.runs)
    assert index_to_parquet(folder, url, scheduler).unchanged == first.added


def test_the_cli_indexes_on_the_cluster_and_queries_the_parquet(capsys, tmp_path, scheduler,
                                                                  facts):
    folder = copy_archive(tmp_path / "runs")
    url = (tmp_path / "parquet").as_uri()
    assert main(["archive", "index", str(folder), "--engine", "dask",
                 "--scheduler", scheduler, "--parquet", url]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == len(facts["files"])
    assert main(["archive", "sql", "--parquet", url,
                 "SELECT count(*) AS n FROM runs WHERE NOT complete"]) == 0
    crashed = sum(1 for e in facts["files"] if e["complete"] is False)
    assert json.loads(capsys.readouterr().out)[0]["n"] == crashed
    assert main(["archive", "runs", "--parquet", url, "--where", "failed_tool_calls > 0",
                 "--json", "--limit", "0"]) == 0
    failed = {r["file"] for r in json.loads(capsys.readouterr().out)}
    assert failed == {e["file"] for e in facts["files"] if e["failedToolCalls"]}


@pytest.mark.parametrize("sql", [
    "SELECT * FROM read_csv('/etc/passwd')",
    "COPY runs TO '/tmp/lens-archive-test-out.csv'",
    "CREATE TABLE x AS SELECT 1",
    "SELECT 1; SELECT 2",
])
def test_sql_over_parquet_is_read_only_too(capsys, parquet_index, sql):
    _, url, _ = parquet_index
    assert main(["archive", "sql", "--parquet", url, sql]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_an_unreachable_scheduler_is_one_line(capsys, tmp_path):
    folder = copy_archive(tmp_path / "runs")
    status = main(["archive", "index", str(folder), "--engine", "dask",
                   "--scheduler", "tcp://127.0.0.1:9", "--parquet", (tmp_path / "pq").as_uri(),
                   "--connect-timeout", "1"])
    err = capsys.readouterr().err
    assert status == 2 and "cannot reach the Dask scheduler" in err and err.count("\n") == 1


def test_batches_are_a_few_per_worker_and_bounded_in_bytes():
    from archive.cluster import MAX_BATCH_BYTES, MAX_BATCH_FILES, batch_bytes
    from archive.folder import FileStat
    from archive.indexing import ReadTask, batches

    def groups(count: int, size: int, workers: int) -> list[list[ReadTask]]:
        tasks = [ReadTask(FileStat(f"f{i}.json", size, 0), None) for i in range(count)]
        return list(batches(tasks, batch_bytes(count * size, workers), MAX_BATCH_FILES))

    two = groups(448, 480_000, workers=2)  # the sample eight times over, about
    assert 4 <= len(two) <= 12
    assert max(len(g) for g in two) - min(len(g) for g in two[:-1]) <= 1
    assert len(groups(448, 480_000, workers=8)) > len(two)
    assert len(groups(10, 1_000, workers=2)) == 1  # a handful of small files: one task
    huge = groups(2_000, 10 * 1024**2, workers=2)  # 20 GB: the byte bound holds
    assert all(sum(t.stat.size_bytes for t in g) <= MAX_BATCH_BYTES for g in huge)


def test_the_causes_on_parquet_are_the_embedded_indexs(parquet_index, tmp_path, capsys):
    """The Dask engine writes the same causes; the same command reads them."""
    from archive.embedded import index_folder

    folder, url, _ = parquet_index
    db = tmp_path / "index.duckdb"
    index_folder(folder, db)
    assert main(["archive", "causes", str(folder), "--db", str(db), "--json"]) == 0
    embedded = json.loads(capsys.readouterr().out)
    assert main(["archive", "causes", "--parquet", url, "--json"]) == 0
    on_parquet = json.loads(capsys.readouterr().out)
    assert embedded and on_parquet == embedded

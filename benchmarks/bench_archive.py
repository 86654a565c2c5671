"""The run archive's benchmarks, side by side.

    python -m benchmarks.bench_archive [--runs 100000] [--copies 4] [--quick]

1. indexing vs a bare ``json.loads`` of the same bytes, per byte, one core
   (the sample archive's 56 runs, bytes in memory: parse only vs the per-file
   function);
2. the Dask engine with two worker processes vs the embedded index in one
   process, each building a fresh index of ``--copies`` copies of the sample;
3. a synthetic archive of ``--runs`` runs (``benchmarks/synthetic_archive.py``):
   its first index, a filtered, sorted first page of ``archive runs``
   (opening the sealed index and running the query, in process; and the query
   alone on an open connection, as the app runs it), and
   re-indexing the unchanged folder.

Figures go to stdout and ``benchmarks/results/archive.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from archive.embedded import index_folder
from archive.query import open_index, runs_sql, select
from archive.rows import index_file
from benchmarks.synthetic_archive import generate
from benchmarks.timing import median, side_by_side

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "tests" / "archive_sample" / "runs.tar.gz"
RESULTS = REPO / "benchmarks" / "results" / "archive.json"
FIRST_PAGE = dict(where="failed_tool_calls > 0 AND agent = 'acme-support'",
                  order_by="input_tokens + output_tokens DESC", limit=50)


def unpack_sample(target: Path) -> Path:
    with tarfile.open(SAMPLE) as tar:
        tar.extractall(target, filter="data")
    return target


def per_byte(sample: Path, repeat: int) -> dict:
    files = [(str(p.relative_to(sample)), p.read_bytes()) for p in sorted(sample.rglob("*.json"))]
    total = sum(len(d) for _, d in files)
    times = side_by_side({
        "json.loads": lambda: [json.loads(d) for _, d in files],
        "index_file": lambda: [index_file(f, d) for f, d in files],
    }, repeat)
    loads, index = median(times["json.loads"]), median(times["index_file"])
    return {"files": len(files), "bytes": total, "json_loads_s": loads, "index_file_s": index,
            "ratio": index / loads, "ns_per_byte_index": index / total * 1e9,
            "ns_per_byte_loads": loads / total * 1e9}


def dask_vs_one_process(sample: Path, work: Path, copies: int, repeat: int) -> dict:
    from distributed import LocalCluster

    from archive.cluster import index_to_parquet

    folder = work / "copies"
    for n in range(copies):
        shutil.copytree(sample, folder / f"copy-{n}")
    count = sum(1 for _ in folder.rglob("*.json"))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        passes = {"n": 0}

        def fresh(name: str) -> Path:
            passes["n"] += 1
            return work / f"{name}-{passes['n']}"

        index_folder(sample, fresh("warm.duckdb"))  # imports and caches warm
        times = side_by_side({
            "one process (embedded)": lambda: index_folder(folder, fresh("one.duckdb")),
            "dask, 2 workers": lambda: index_to_parquet(folder, fresh("pq").as_uri(), address),
        }, repeat)
    one, two = median(times["one process (embedded)"]), median(times["dask, 2 workers"])
    return {"files": count, "one_process_s": one, "dask_two_workers_s": two,
            "speedup": one / two, "runs": {k: [round(v, 3) for v in vs] for k, vs in times.items()}}


def synthetic(sample: Path, work: Path, runs: int, repeat: int) -> dict:
    folder = work / "synthetic"
    start = time.perf_counter()
    generate(sample, folder, runs)
    made = time.perf_counter() - start
    db = work / "synthetic.duckdb"
    start = time.perf_counter()
    first = index_folder(folder, db)
    first_s = time.perf_counter() - start
    sql = runs_sql(**FIRST_PAGE)

    def first_page():
        con = open_index(db)
        try:
            return select(con, sql)
        finally:
            con.close()

    page_rows = len(first_page())
    pages = side_by_side({"first page": first_page}, max(repeat * 4, 20))["first page"]
    held = open_index(db)  # as the app queries: its connection stays open
    try:
        query_only = side_by_side({"query": lambda: select(held, sql)},
                                  max(repeat * 4, 20))["query"]
    finally:
        held.close()
    again = side_by_side({"re-index": lambda: index_folder(folder, db)}, repeat)["re-index"]
    check = index_folder(folder, db)
    return {"runs": first.runs, "generate_s": made, "first_index_s": first_s,
            "first_page_query": sql, "first_page_rows": page_rows,
            "first_page_median_ms": median(pages) * 1000,
            "first_page_query_only_median_ms": median(query_only) * 1000,
            "reindex_unchanged_median_s": median(again),
            "reindex_report": check.to_json()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_archive")
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, 2,000 runs")
    parser.add_argument("--only", default="bytes,dask,synthetic")
    args = parser.parse_args(argv)
    repeat = 2 if args.quick else 5
    runs = 2_000 if args.quick else args.runs
    only = set(args.only.split(","))
    work = Path(tempfile.mkdtemp(prefix="lens-bench-archive-"))
    results: dict = {}
    try:
        sample = unpack_sample(work / "sample")
        if "bytes" in only:
            results["per_byte"] = per_byte(sample, repeat * 2)
            print(json.dumps({"per_byte": results["per_byte"]}, indent=1), flush=True)
        if "dask" in only:
            results["dask"] = dask_vs_one_process(sample, work, args.copies, repeat)
            print(json.dumps({"dask": results["dask"]}, indent=1), flush=True)
        if "synthetic" in only:
            results["synthetic"] = synthetic(sample, work, runs, 3 if not args.quick else 2)
            print(json.dumps({"synthetic": results["synthetic"]}, indent=1), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

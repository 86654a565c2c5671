"""The run archive's benchmarks, side by side.

    python -m benchmarks.bench_archive [--runs 100000] [--copies 4] [--quick]

1. indexing vs a bare ``json.loads`` of the same bytes, per byte, one core
   (the sample archive's 56 runs, bytes in memory: parse only vs the per-file
   function);
2. the Dask engine with two worker processes vs the embedded index in one
   process, each building a fresh index of ``--copies`` copies of the sample;
3. a synthetic archive of ``--runs`` runs (``benchmarks/synthetic_archive.py``,
   or an existing one with ``--synthetic-folder`` and ``--synthetic-db``):
   its first index; ``archive causes`` over all of it (held connection, and
   open-query-close); a filtered, sorted first page of ``archive runs`` as a
   short-lived caller pays it in process (open the sealed index, query, close:
   each part's wall and CPU time), the query alone on an open connection (as
   the app runs it), and the whole command in a fresh Python process (beside
   a bare Python start and an ``import duckdb``); and re-indexing the
   unchanged folder;
4. the safe open (``--only open``): every run file of ``--copies`` copies of
   the sample, nested three folders deep, read the way the indexer read them
   before (the path resolved inside the folder, then opened by name) and
   through a descriptor beneath the folder (``archive/beneath.py``), side by
   side: the reads alone, and the reads with each file's indexing
   (``archive.indexing.read_one``'s work); and the folder listed both ways.

Figures go to stdout and ``benchmarks/results/archive.json`` (``--json FILE``
for a partial or quick run).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from archive.embedded import index_folder
from archive.query import open_index, runs_sql, select
from archive.rows import index_file
from benchmarks.synthetic_archive import generate
from benchmarks.timing import median, ratios, side_by_side

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


def safe_open(sample: Path, work: Path, copies: int, repeat: int) -> dict:
    """The indexer's reads before and after the safe open, side by side (see the
    module doc). The page cache is warm for both: what differs is the system
    calls and Python around them, not the disk."""
    from archive.beneath import list_beneath, read_beneath
    from archive.limits import file_limits
    from archive.rows import file_digest
    from recorders.loading import read_regular_file

    folder = work / "open"
    for n in range(copies):
        shutil.copytree(sample, folder / "team" / "2026" / f"copy-{n}")
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.json"))
    limit = file_limits().max_indexed_bytes

    def by_name(file: str) -> bytes:  # the reader before: check, then open by name
        root = folder.resolve()
        path = (root / file).resolve()
        assert root in path.parents
        return read_regular_file(path)

    def beneath(file: str) -> bytes:
        return read_beneath(folder, file, limit).data

    def indexed(read):
        return lambda: [index_file(f, data, file_digest(data)) for f in files
                        for data in (read(f),)]
    reads = side_by_side({"by name": lambda: [by_name(f) for f in files],
                          "beneath": lambda: [beneath(f) for f in files]}, repeat * 4)
    with_index = side_by_side({"by name": indexed(by_name), "beneath": indexed(beneath)},
                              repeat)
    listing = side_by_side({
        "os.walk": lambda: [os.stat(os.path.join(d, n)) for d, _, names in os.walk(folder)
                            for n in names],
        "list_beneath": lambda: list_beneath(folder)}, repeat * 4)
    return {
        "files": len(files), "bytes": sum((folder / f).stat().st_size for f in files),
        "read_by_name_s": median(reads["by name"]), "read_beneath_s": median(reads["beneath"]),
        "read_ratio": ratios(reads["beneath"], reads["by name"]),
        "read_and_index_by_name_s": median(with_index["by name"]),
        "read_and_index_beneath_s": median(with_index["beneath"]),
        "read_and_index_ratio": ratios(with_index["beneath"], with_index["by name"]),
        "list_os_walk_s": median(listing["os.walk"]),
        "list_beneath_s": median(listing["list_beneath"]),
        "list_ratio": ratios(listing["list_beneath"], listing["os.walk"]),
        "load_average": os.getloadavg()}


def dask_vs_one_process(sample: Path, work: Path, copies: int, repeat: int) -> dict:
    """Both sides build a fresh index of the same files: list the folder, read and
    index every file, and write every table (the embedded side into a DuckDB file,
    the Dask side as Parquet datasets). The cluster is already running and both
    sides are warm (one unmeasured pass each over the sample), as a long-lived
    cluster is: worker start-up and first imports are not counted."""
    from distributed import Client, LocalCluster

    from archive.cluster import index_to_parquet

    folder = work / "copies"
    for n in range(copies):
        shutil.copytree(sample, folder / f"copy-{n}")
    count = sum(1 for _ in folder.rglob("*.json"))
    load_before = os.getloadavg()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        passes = {"n": 0}

        def fresh(name: str) -> Path:
            passes["n"] += 1
            return work / f"{name}-{passes['n']}"

        index_folder(sample, fresh("warm.duckdb"))  # imports and caches warm
        index_to_parquet(sample, fresh("warm-pq").as_uri(), address)  # the workers' too
        with Client(address, set_as_default=False) as watcher:
            cpu: dict[str, list[float]] = {"one process (embedded)": [], "dask, 2 workers": []}

            def with_cpu(name: str, work):
                def run():
                    workers = sum(watcher.run(_own_cpu_s).values())
                    here = time.process_time()
                    value = work()
                    cpu[name].append(time.process_time() - here
                                     + sum(watcher.run(_own_cpu_s).values()) - workers)
                    return value
                return run

            times = side_by_side({
                "one process (embedded)": with_cpu(
                    "one process (embedded)", lambda: index_folder(folder, fresh("one.duckdb"))),
                "dask, 2 workers": with_cpu(
                    "dask, 2 workers",
                    lambda: index_to_parquet(folder, fresh("pq").as_uri(), address)),
            }, repeat)
    one_times, two_times = times["one process (embedded)"], times["dask, 2 workers"]
    one, two = median(one_times), median(two_times)
    return {"files": count, "bytes": sum(p.stat().st_size for p in folder.rglob("*.json")),
            "one_process_s": one, "dask_two_workers_s": two, "speedup": one / two,
            "speedup_median_per_round": ratios(one_times, two_times)["median_per_round"],
            "runs": {k: [round(v, 3) for v in vs] for k, vs in times.items()},
            # CPU seconds of a pass: this process (with the scheduler's thread and
            # DuckDB's) plus both workers; the workers idle between passes.
            "cpu_median_s": {k: round(median(v), 3) for k, v in cpu.items()},
            "cpu_runs_s": {k: [round(x, 3) for x in v] for k, v in cpu.items()},
            "load_average_before": load_before, "load_average_after": os.getloadavg()}


def _own_cpu_s() -> float:
    """CPU seconds of the calling process (run on each worker)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def synthetic(sample: Path, work: Path, runs: int, repeat: int,
              existing: tuple[Path, Path] | None = None) -> dict:
    """``existing`` (folder, index) skips generating and first indexing: the index
    is copied, so re-indexing it leaves the given one as it was."""
    db = work / "synthetic.duckdb"
    if existing is None:
        folder = work / "synthetic"
        start = time.perf_counter()
        generate(sample, folder, runs)
        made = time.perf_counter() - start
        start = time.perf_counter()
        first = index_folder(folder, db)
        first_s = time.perf_counter() - start
        built = {"runs": first.runs, "generate_s": made, "first_index_s": first_s}
    else:
        folder = existing[0]
        shutil.copy(existing[1], db)
        built = {"runs": None, "reused_index": str(existing[1])}
    with open_index(db) as con:  # the query is assembled by DuckDB's parser
        sql = runs_sql(con, **FIRST_PAGE)
    page_rows = len(first_page_parts(db, sql)[0])
    cold = {"open": [], "query": [], "close": [], "total": []}
    for _ in range(max(repeat * 7, 21)):
        _, parts = first_page_parts(db, sql)
        for name, value in parts.items():
            cold[name].append(value)
    held = open_index(db)  # as the app queries: its connection stays open
    try:
        query_only = side_by_side({"query": lambda: select(held, sql)},
                                  max(repeat * 4, 20))["query"]
    finally:
        held.close()
    causes = causes_across(db, max(repeat * 4, 20))
    fresh = fresh_processes(folder, db, max(repeat * 2, 5))
    again = side_by_side({"re-index": lambda: index_folder(folder, db)}, repeat)["re-index"]
    check = index_folder(folder, db)
    return {**built, "runs": check.runs,
            "first_page_query": sql, "first_page_rows": page_rows,
            "first_page_median_ms": _ms(median([t[0] for t in cold["total"]])),
            "first_page_cpu_median_ms": _ms(median([t[1] for t in cold["total"]])),
            "first_page_parts_median_ms": {name: {"wall": _ms(median([t[0] for t in v])),
                                                  "cpu": _ms(median([t[1] for t in v]))}
                                           for name, v in cold.items()},
            "first_page_query_only_median_ms": _ms(median(query_only)),
            "causes": causes,
            "fresh_process": fresh,
            "reindex_unchanged_median_s": median(again),
            "reindex_report": check.to_json(),
            "load_average": os.getloadavg()}


def causes_across(db: Path, repeat: int) -> dict:
    """``archive causes`` over the whole index, as a held connection answers it
    (the Archive page's Causes view) and as a short-lived command pays for it."""
    from archive.causes import cause_groups

    held = open_index(db)
    try:
        groups = cause_groups(held)
        times = side_by_side({"cause_groups": lambda: cause_groups(held)}, repeat)
    finally:
        held.close()
    cold = []
    for _ in range(max(repeat // 2, 5)):
        start = time.perf_counter()
        with open_index(db) as con:
            cause_groups(con)
        cold.append(time.perf_counter() - start)
    return {"groups": len(groups), "largest_group_runs": groups[0]["runs"] if groups else 0,
            "cause_rows": sum(g["runs"] for g in groups),
            "held_connection_median_ms": _ms(median(times["cause_groups"])),
            "open_query_close_median_ms": _ms(median(cold))}


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def first_page_parts(db: Path, sql: str) -> tuple[list, dict[str, tuple[float, float]]]:
    """One first page as a short-lived caller pays it: open the sealed index, run
    the query, close; each part's (wall, CPU of this process's threads) seconds.
    CPU is given beside wall time because on a loaded machine the wall time of a
    DuckDB start is mostly waiting for a core."""
    gc.collect()
    marks = [(time.perf_counter(), time.process_time())]
    con = open_index(db)
    marks.append((time.perf_counter(), time.process_time()))
    rows = select(con, sql)
    marks.append((time.perf_counter(), time.process_time()))
    con.close()
    marks.append((time.perf_counter(), time.process_time()))
    parts = {name: (marks[i + 1][0] - marks[i][0], marks[i + 1][1] - marks[i][1])
             for i, name in enumerate(("open", "query", "close"))}
    parts["total"] = (marks[-1][0] - marks[0][0], marks[-1][1] - marks[0][1])
    return rows, parts


def fresh_processes(folder: Path, db: Path, repeat: int) -> dict:
    """``footprint-lens archive runs`` as a user runs it: a new Python process each
    time (wall and CPU), beside a bare Python start and one that only imports
    duckdb, in alternating rounds."""
    python = sys.executable
    where, order = FIRST_PAGE["where"], FIRST_PAGE["order_by"]
    cases = {
        "python -c pass": [python, "-c", "pass"],
        "python -c 'import duckdb'": [python, "-c", "import duckdb"],
        "footprint-lens archive runs": [
            python, "-c", "import sys; from lens_cli.main import main; sys.exit(main())",
            "archive", "runs", str(folder), "--db", str(db), "--where", where,
            "--order-by", order, "--limit", str(FIRST_PAGE["limit"]), "--json"],
    }
    wall: dict[str, list[float]] = {name: [] for name in cases}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    names = list(cases)
    for number in range(repeat):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(cases[name], cwd=REPO, capture_output=True, text=True)
            wall[name].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            if done.returncode != 0:
                raise RuntimeError(f"{name} failed: {done.stderr.strip()[-300:]}")
    return {name: {"wall_median_ms": _ms(median(wall[name])),
                   "cpu_median_ms": _ms(median(cpu[name]))} for name in names}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_archive")
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, 2,000 runs")
    parser.add_argument("--only", default="bytes,open,dask,synthetic")
    parser.add_argument("--dask-rounds", type=int, default=9,
                        help="rounds of the Dask comparison (each: both sides once)")
    parser.add_argument("--synthetic-folder", help="an existing synthetic archive (with "
                        "--synthetic-db, its index): skips generating and first indexing")
    parser.add_argument("--synthetic-db")
    parser.add_argument("--json", help="write the figures here instead of "
                        "benchmarks/results/archive.json (for partial or quick runs)")
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
        if "open" in only:
            results["safe_open"] = safe_open(sample, work, args.copies, repeat)
            print(json.dumps({"safe_open": results["safe_open"]}, indent=1), flush=True)
        if "dask" in only:
            results["dask"] = dask_vs_one_process(sample, work, args.copies,
                                                  repeat if args.quick else args.dask_rounds)
            print(json.dumps({"dask": results["dask"]}, indent=1), flush=True)
        if "synthetic" in only:
            existing = None
            if args.synthetic_folder:
                existing = (Path(args.synthetic_folder), Path(args.synthetic_db))
            results["synthetic"] = synthetic(sample, work, runs, 3 if not args.quick else 2,
                                             existing)
            print(json.dumps({"synthetic": results["synthetic"]}, indent=1), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    target = Path(args.json) if args.json else RESULTS
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

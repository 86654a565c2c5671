"""Following a run while it is written (issue 28), side by side in one run.

    python -m benchmarks.bench_follow [--quick] [--json PATH]
    python -m benchmarks --only follow        (the same, in the main table)

1. Latency: an event written to the stream, to its count printed by
   ``footprint-lens follow`` (a subprocess, as a user runs it). The writer
   appends the 20x run's events in 100-event batches at irregular intervals
   (as ``fileObservability`` appends one batch at a time); each batch's
   latency runs from the moment its write returned to the moment the command
   printed a line whose ``typedEvents`` counts it. Median and p95; target
   p95 <= 1.0 s.
2. CPU: following the 20x run's stream (``large-agent-300-tool-calls`` scaled
   20 times, ``benchmarks/scale_recording.py``; its typed events written as
   NDJSON lines, one ``JSON.stringify``-like line each) in 100-event batches —
   :meth:`lens.follow.FollowedFile.poll` and ``summary()`` after each batch,
   what the command does — against one open of the final file (read, decode,
   validate and build the evidence index: :func:`open_final`), in rotating
   rounds. Only the follower's CPU time is counted (``time.process_time``
   around its calls; the appends are the writer's). Target <= 1.5x. Beside
   it, poll alone, and the same follow with the collector not frozen.
3. ``open_run()`` near the end of the 20x run (what the app's page asks for
   on each rerun): one call after each of the last :data:`OPEN_RUN_CALLS`
   batches, CPU time, median and p95.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.inputs import CACHE, scaled_path
from benchmarks.machine import machine
from benchmarks.timing import median, ms, percentile

RESULTS = Path(__file__).resolve().parent / "results" / "follow.json"
REPO = Path(__file__).resolve().parent.parent
LATENCY_TARGET_S = 1.0
CPU_TARGET = 1.5
BATCH = 100
OPEN_RUN_CALLS = 20
FACTOR = 20


def stream_path(factor: int = FACTOR) -> Path:
    """The scaled run's typed events as an NDJSON stream (written once, cached)."""
    source = scaled_path(factor)
    path = CACHE / f"{source.stem}.ndjson"
    if not path.exists():
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
        document = json.loads(source.read_bytes())
        partial = path.with_suffix(".partial")
        with open(partial, "w", encoding="utf-8") as out:
            for event in document["events"]:
                out.write(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")
        partial.replace(path)
    return path


def batches(data: bytes, size: int = BATCH) -> list[bytes]:
    """``data`` cut into chunks of ``size`` whole lines."""
    lines = data.splitlines(keepends=True)
    return [b"".join(lines[i:i + size]) for i in range(0, len(lines), size)]


def open_final(data: bytes):
    """One open of the whole stream, as the app opens a file: the loader
    (decode, validate) and the evidence index built on open."""
    from lens.run import OpenRun
    from recorders.loading import load_recording

    return OpenRun(load_recording(data))


def follow_cpu(chunks: list[bytes], directory: Path, *, summary: bool = True,
               freeze: bool = True, open_runs: list[float] | None = None
               ) -> tuple[float, dict]:
    """CPU seconds the follower spends over the whole stream, appended chunk by
    chunk; with ``freeze``, what was folded is frozen after each poll, as the
    command does (``lens_cli/follow_command.py``)."""
    from lens.follow import FollowedFile

    path = directory / "events.ndjson"
    path.write_bytes(b"")
    followed = FollowedFile(path)
    spent = 0.0
    last: dict = {}
    with open(path, "ab", buffering=0) as out:
        for index, chunk in enumerate(chunks):
            out.write(chunk)
            started = time.process_time()
            followed.poll()
            if freeze:
                gc.freeze()
            if summary:
                last = followed.summary().to_json()
            spent += time.process_time() - started
            if open_runs is not None and len(chunks) - index <= OPEN_RUN_CALLS:
                started = time.process_time()
                followed.open_run()
                open_runs.append(time.process_time() - started)
    followed.close()
    if freeze:
        gc.unfreeze()
    return spent, last


def measure_cpu(repeat: int) -> dict:
    data = stream_path().read_bytes()
    chunks = batches(data)
    times: dict[str, list[float]] = {"open": [], "follow": [], "poll_only": [],
                                      "follow_no_freeze": []}
    open_runs: list[float] = []
    last: dict = {}
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        for round_number in range(repeat):
            cases = [("open", None), ("follow", dict(summary=True)),
                     ("poll_only", dict(summary=False)),
                     ("follow_no_freeze", dict(summary=True, freeze=False))]
            shift = round_number % len(cases)
            for name, options in cases[shift:] + cases[:shift]:
                if name == "open":
                    started = time.process_time()
                    run = open_final(data)
                    times[name].append(time.process_time() - started)
                    opened_calls = len(run.evidence.calls)
                    del run
                else:
                    if name == "follow":
                        options = dict(options, open_runs=open_runs)
                    spent, summary = follow_cpu(chunks, directory, **options)
                    times[name].append(spent)
                    last = summary or last
    open_s = median(times["open"])
    return {
        "events": data.count(b"\n"), "file_mb": round(len(data) / 1e6, 1), "batches": len(chunks),
        "open_ms": ms(open_s),
        "follow_ms": ms(median(times["follow"])),
        "poll_only_ms": ms(median(times["poll_only"])),
        "open_run_at_end_ms": ms(median(open_runs)),
        "open_run_at_end_p95_ms": ms(percentile(open_runs, 0.95)),
        "follow_over_open": round(median(times["follow"]) / open_s, 3),
        "poll_only_over_open": round(median(times["poll_only"]) / open_s, 3),
        "follow_no_freeze_ms": ms(median(times["follow_no_freeze"])),
        "follow_no_freeze_over_open": round(median(times["follow_no_freeze"]) / open_s, 3),
        "per_round_ms": {k: [ms(v) for v in vs] for k, vs in times.items()},
        "final_summary": {k: last.get(k) for k in ("typedEvents", "modelCalls", "toolCalls",
                                                   "failedToolCalls", "status")},
        "open_model_calls": opened_calls,
        "met": median(times["follow"]) / open_s <= CPU_TARGET,
    }


def measure_latency(batch_count: int) -> dict:
    """Write ``batch_count`` batches while ``footprint-lens follow`` runs."""
    chunks = batches(stream_path().read_bytes())[:batch_count]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "events.ndjson"
        path.write_bytes(b"")
        command = [sys.executable, "-c", "import sys; from lens_cli.main import main; "
                   "sys.exit(main(sys.argv[1:]))", "follow", str(path), "--idle-exit", "3"]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   cwd=REPO, env=env, text=True, bufsize=1)
        seen: list[tuple[float, int]] = []  # (when printed, typedEvents)

        def read() -> None:
            for line in process.stdout:
                seen.append((time.monotonic(), json.loads(line).get("typedEvents", 0)))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        while not seen:  # the command is up: it printed 'waiting'
            time.sleep(0.01)
        written: list[tuple[float, int]] = []
        total = 0
        rng = _Irregular()
        with open(path, "ab", buffering=0) as out:
            for chunk in chunks:
                time.sleep(rng.next())
                out.write(chunk)
                total += chunk.count(b"\n")
                written.append((time.monotonic(), total))
        process.wait(timeout=120)
        reader.join(timeout=10)
        errors = process.stderr.read()
    latencies = []
    for when, count in written:
        printed = next((at for at, known in seen if known >= count), None)
        if printed is not None:
            latencies.append(max(0.0, printed - when))
    return {
        "batches": len(written), "printed_lines": len(seen), "matched": len(latencies),
        "median_ms": ms(median(latencies)), "p95_ms": ms(percentile(latencies, 0.95)),
        "max_ms": ms(max(latencies)) if latencies else None,
        "stderr": errors.strip()[:300],
        "met": len(latencies) == len(written) and percentile(latencies, 0.95) <= LATENCY_TARGET_S,
    }


class _Irregular:
    """Pauses of 0.05-0.6 s in a fixed irregular order (the writer flushes on
    its own clock, never in step with the follower's polls)."""

    def __init__(self) -> None:
        self.state = 12345

    def next(self) -> float:
        self.state = (self.state * 1103515245 + 12345) % (2 ** 31)
        return 0.05 + (self.state % 1000) / 1000 * 0.55


def measure_follow(rounds: int, batch_count: int) -> dict:
    """Both measurements, as ``python -m benchmarks --only follow`` runs them."""
    return {"latency": measure_latency(batch_count), "cpu": measure_cpu(rounds)}


def table_rows(report: dict, row: str, met) -> list[str]:
    """The figures as rows of a table laid out by ``row`` (six columns)."""
    cpu, latency = report["cpu"], report["latency"]
    return [
        row.format(f"8 follow: written -> printed ({latency['batches']} batches)",
                   f"p95 {latency['p95_ms']:.0f} ms", f"med {latency['median_ms']:.0f} ms",
                   "", "<= 1000 ms", met(latency["met"])),
        row.format(f"8 follow 20x stream, {cpu['batches']} x {BATCH} events",
                   f"{cpu['follow_ms']:.0f} ms", f"{cpu['open_ms']:.0f} ms open",
                   f"{cpu['follow_over_open']:.2f}x", "<= 1.5x", met(cpu["met"])),
        row.format("    poll only", f"{cpu['poll_only_ms']:.0f} ms", "",
                   f"{cpu['poll_only_over_open']:.2f}x", "", ""),
        row.format("    collector not frozen", f"{cpu['follow_no_freeze_ms']:.0f} ms", "",
                   f"{cpu['follow_no_freeze_over_open']:.2f}x", "", ""),
        row.format("    open_run() near the end", f"{cpu['open_run_at_end_ms']:.1f} ms",
                   f"p95 {cpu['open_run_at_end_p95_ms']:.1f}", "", "", ""),
    ]


def format_table(report: dict) -> str:
    row = "{:<52} {:>12} {:>14} {:>8} {:>10} {:>4}"
    lines = [row.format("measurement", "measured", "baseline", "ratio", "target", "met"),
             "-" * 105]
    lines += table_rows(report, row, lambda flag: "yes" if flag else "NO")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_follow",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (smoke check)")
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    report = {"command": "python -m benchmarks.bench_follow" + (" --quick" if args.quick else ""),
              "machine": machine()}
    report.update(measure_follow(1 if args.quick else 3, 20 if args.quick else 60))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(format_table(report))
    print(f"\nfigures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

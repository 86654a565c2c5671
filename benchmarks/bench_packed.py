"""Packed recordings against their plain twins: open time, peak memory, and the
hostile file's refusal.

    python -m benchmarks.bench_packed [--rounds 9] [--probes 3] [--json PATH]

Cases: ``large-loop-of-parallel`` (the corpus recording, 9.7 MB, and its
packed form, 6.3 MB) and the 20× copy of ``large-agent-300-tool-calls``
(``benchmarks/scale_recording.py``) packed the same way. The packed files are
made with ``tests/formats/packer.py``, which gives the packed sample of
``large-loop-of-parallel`` in ../shared/formats byte for byte; they are kept
beside the scaled copies.

- **open**: the open as measurement 1 of ``benchmarks/bench_open.py`` times
  it (read the file, ``lens.run.open_run``, the lens projection's root
  steps: what "open" means across these benchmarks), the same under the app's
  collector policy (``lens_ui.collector.open_kept``), and two of its parts:
  ``recorders.loading.load_recording(bytes)`` (the loader alone) and
  ``lens.run.open_run(bytes)`` (load and evidence index). Plain and packed in
  the same rotating rounds; medians and the ratios packed / plain. Target:
  the open ≤ 1.0×; the parts are reported beside it, not judged.
- **memory**: a fresh child process per probe reads the file, resets the
  kernel's high-water mark (``/proc/self/clear_refs``), notes VmRSS, loads it
  and reads VmHWM from ``/proc/self/status``: peak − baseline. Plain and packed
  probes alternate; medians. Target: packed ≤ plain. Linux only.
- **hostile**: ``tests/data/formats/packed/hostile/recording.packed.json`` (2 KB
  standing for ~74 TB), time to the refusal (median of many) and a child's
  peak − baseline while refusing it. Target ≤ 50 ms, memory flat.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import subprocess
import sys
from pathlib import Path

import hashlib

from benchmarks.bench_memory import proc_status
from benchmarks.inputs import CACHE, REPO, corpus_bytes, corpus_path, scaled_path
from benchmarks.machine import machine
from benchmarks.timing import median, side_by_side

RESULTS = Path(__file__).resolve().parent / "results" / "packed.json"
HOSTILE = REPO / "tests" / "data" / "formats" / "packed" / "hostile" / "recording.packed.json"
PACKER = REPO / "tests" / "formats" / "packer.py"
HOSTILE_TARGET_MS = 50.0


def _packed_copy(name: str, plain: bytes) -> Path:
    """``plain`` packed, kept in the benchmark cache (keyed by it and the packer)."""
    digest = hashlib.sha256(plain + PACKER.read_bytes()).hexdigest()[:16]
    path = CACHE / f"{name}-{digest}.packed.json"
    if not path.exists():
        sys.path.insert(0, str(REPO / "tests"))
        from formats.packer import packed_json

        CACHE.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_bytes(packed_json(json.loads(plain)))
        partial.replace(path)
    return path


def inputs() -> dict[str, tuple[Path, Path]]:
    """case: (plain file, packed file)."""
    loop = corpus_path("large-loop-of-parallel")
    scaled = scaled_path(20)
    return {
        "loop": (loop, _packed_copy("large-loop-of-parallel", corpus_bytes(
            "large-loop-of-parallel"))),
        "20x": (scaled, _packed_copy(scaled.stem, scaled.read_bytes())),
    }


def _open(path: Path):
    """Measurement 1's open (``bench_open._lens_open``, without its split):
    read the file, open it, list the lens root steps."""
    from lens.run import open_run

    def work():
        run = open_run(path.read_bytes())
        run.root_steps("lens")
        return run
    return work


def _app_open(path: Path):
    """:func:`_open` under the app's collector policy, unfrozen after each round."""
    from lens_ui.collector import open_kept

    build = _open(path)

    def work():
        try:
            return open_kept(build, lambda run: run.recording.source_chars)
        finally:
            gc.unfreeze()
    return work


def measure_open(cases: dict[str, tuple[Path, Path]], rounds: int) -> dict:
    from lens.run import open_run
    from recorders.loading import load_recording

    out = {}
    for name, (plain_path, packed_path) in cases.items():
        plain, packed = plain_path.read_bytes(), packed_path.read_bytes()
        times = side_by_side({
            "open_plain": _open(plain_path),
            "open_packed": _open(packed_path),
            "app_open_plain": _app_open(plain_path),
            "app_open_packed": _app_open(packed_path),
            "load_plain": lambda: load_recording(plain),
            "load_packed": lambda: load_recording(packed),
            "open_run_plain": lambda: open_run(plain),
            "open_run_packed": lambda: open_run(packed),
        }, rounds)
        ms = {key: median(values) * 1000 for key, values in times.items()}
        ratios = {f"{part}_packed_over_plain": round(ms[f"{part}_packed"] / ms[f"{part}_plain"], 3)
                  for part in ("open", "app_open", "load", "open_run")}
        out[name] = {
            "plain_mb": len(plain) / 1e6, "packed_mb": len(packed) / 1e6,
            "median_ms": {key: round(value, 1) for key, value in ms.items()},
            **ratios,
            "times_ms": {key: [round(v * 1000, 1) for v in values]
                         for key, values in times.items()},
            "met": ratios["open_packed_over_plain"] <= 1.0,
        }
    return out


def _probe(path: Path) -> dict:
    result = subprocess.run([sys.executable, "-m", "benchmarks.bench_packed", "--child",
                             str(path)], capture_output=True, text=True, cwd=REPO, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"memory probe failed: {result.stderr.strip()[-400:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def measure_memory(cases: dict[str, tuple[Path, Path]], probes: int) -> dict:
    out = {}
    for name, (plain_path, packed_path) in cases.items():
        peaks: dict[str, list[float]] = {"plain": [], "packed": []}
        for _ in range(probes):
            for side, path in (("plain", plain_path), ("packed", packed_path)):
                figures = _probe(path)
                peaks[side].append((figures["peak"] - figures["baseline"]) / 1e6)
        plain_mb, packed_mb = median(peaks["plain"]), median(peaks["packed"])
        out[name] = {"plain_peak_mb": round(plain_mb, 1), "packed_peak_mb": round(packed_mb, 1),
                     "packed_over_plain": round(packed_mb / plain_mb, 3),
                     "probes_mb": {k: [round(v, 1) for v in vs] for k, vs in peaks.items()},
                     "met": packed_mb <= plain_mb}
    return out


def measure_hostile(repeat: int = 200) -> dict:
    from time import perf_counter

    from recorders.errors import ExpansionRefused
    from recorders.loading import load_recording

    data = HOSTILE.read_bytes()
    times = []
    for _ in range(repeat):
        start = perf_counter()
        try:
            load_recording(data)
        except ExpansionRefused:
            pass
        else:
            raise AssertionError("the hostile file was not refused")
        times.append(perf_counter() - start)
    figures = _probe(HOSTILE)
    refused_ms = median(times) * 1000
    return {"file_bytes": len(data), "refused_median_ms": round(refused_ms, 3),
            "refused_max_ms": round(max(times) * 1000, 3),
            "child_peak_over_baseline_mb": round((figures["peak"] - figures["baseline"]) / 1e6, 2),
            "child_outcome": figures["outcome"], "met": refused_ms <= HOSTILE_TARGET_MS}


def _child(path: str) -> None:
    import gc

    from recorders.errors import RecordingError
    from recorders.loading import load_recording

    data = Path(path).read_bytes()
    gc.collect()
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")  # VmHWM back to the current resident size
    baseline = proc_status("VmRSS")
    try:
        kept = load_recording(data)
        outcome = f"opened {len(kept.typed_events)} typed events"
    except RecordingError as error:
        kept, outcome = None, f"refused: {error}"
    peak = proc_status("VmHWM")
    print(json.dumps({"baseline": baseline, "peak": peak, "outcome": outcome}))
    del kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_packed",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--probes", type=int, default=3)
    parser.add_argument("--json", type=Path, default=RESULTS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child)
        return 0
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    cases = inputs()
    report = {"command": "python -m benchmarks.bench_packed"
                         + " ".join(a for a in [""] + (argv or sys.argv[1:])),
              "started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "machine": machine(), "results": {}}
    report["results"]["hostile"] = measure_hostile()
    report["results"]["open"] = measure_open(cases, args.rounds)
    report["results"]["memory"] = measure_memory(cases, args.probes)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({key: {name: {k: v for k, v in figures.items()
                                   if k not in ("times_ms", "probes_mb")}
                            for name, figures in value.items()}
                      if key != "hostile" else value
                      for key, value in report["results"].items()}, indent=1))
    print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

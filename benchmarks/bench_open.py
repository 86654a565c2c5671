"""Measurements 1 and 2: the cost of opening a run, and how it scales.

1. Open against V8 (the target): reading the file and
   :func:`lens.run.open_run` plus the lens projection's root steps, against
   Node reading and ``JSON.parse``-ing the same file
   (:mod:`benchmarks.v8_anchor`), in alternating rounds of the same run, on
   both large corpus recordings and the 20x copy. Skipped, saying why, where
   ``node`` is not installed.
1b. Open cost in the app: :func:`benchmarks.page_work.open_for_page` (parse,
   evidence and every projection the run page builds on open) against the bare parse of the same
   bytes, ``json.loads`` with the recursion limit raised. A second baseline,
   ``json.loads`` with Python's cyclic collector paused, is the parser's own
   floor: the loader pauses the collector while it parses a large file and
   freezes the result (``lens_ui/collector.py``), so this column says what
   the open costs beyond the fastest stock parse.
2. Scaling: the same open path at 1×, 5× and 20× of
   ``large-agent-300-tool-calls`` (``benchmarks/scale_recording.py``), as time
   per boundary event. The scaled copies repeat the run's iterations but keep
   the source's snapshot (execution tree, subflow results), so a fixed ~13 MB
   of every file does not grow; the marginal cost per added event
   ((T20 - T5) / (N20 - N5) against (T5 - T1) / (N5 - N1)) and the time spent
   after the parse per event are reported beside it, since they see through
   that fixed part.
"""

from __future__ import annotations

import gc
import json
import sys
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from time import perf_counter
from typing import Iterator

from benchmarks import v8_anchor
from benchmarks.page_work import open_for_page
from benchmarks.inputs import LARGE, corpus_bytes, corpus_path, scaled_path
from benchmarks.timing import median, ms, ratios, side_by_side, timed

V8_TARGET = 1.0
OPEN_TARGET = 1.5
SCALING_TARGET = 1.3
FACTORS = (1, 5, 20)


def _bare(data: bytes):
    return lambda: json.loads(data)


def _bare_paused(data: bytes):
    def parse():
        gc.disable()
        try:
            return json.loads(data)
        finally:
            gc.enable()
    return parse


def _open(data: bytes, breakdowns: list[dict]):
    def work():
        timings: dict = {}
        run = open_for_page(data, timings=timings)
        breakdowns.append(timings)
        return run
    return work


def _breakdown(breakdowns: list[dict]) -> dict[str, float]:
    names = breakdowns[0].keys() if breakdowns else ()
    return {name: ms(median([b[name] for b in breakdowns])) for name in names}


def measure_open(repeat: int) -> dict:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    rows = {}
    for name in LARGE:
        data = corpus_bytes(name)
        breakdowns: list[dict] = []
        times = side_by_side({"bare_parse": _bare(data), "bare_parse_gc_paused": _bare_paused(data),
                              "open": _open(data, breakdowns)}, repeat)
        ratio = ratios(times["open"], times["bare_parse"])
        rows[name] = {
            "file_mb": round(len(data) / 1e6, 2),
            "repeat": repeat,
            "bare_parse_ms": ms(median(times["bare_parse"])),
            "bare_parse_gc_paused_ms": ms(median(times["bare_parse_gc_paused"])),
            "open_ms": ms(median(times["open"])),
            "open_over_bare": round(ratio["of_medians"], 3),
            "open_over_bare_per_round": round(ratio["median_per_round"], 3),
            "open_over_bare_gc_paused": round(
                ratios(times["open"], times["bare_parse_gc_paused"])["of_medians"], 3),
            "open_breakdown_ms": _breakdown(breakdowns),
            "all_ms": {k: [ms(v) for v in vs] for k, vs in times.items()},
            "target": f"open <= {OPEN_TARGET} x bare parse",
            "met": ratio["of_medians"] <= OPEN_TARGET,
        }
        del data
    return rows


def _lens_open(path: Path, breakdowns: list[dict]):
    """Read the file, open it with :func:`lens.run.open_run`, list the lens root
    steps; each round's split (read, load, evidence, views, and the part of
    all that the cyclic collector took) is appended to ``breakdowns``."""
    from lens.run import open_run as lens_open_run

    def work():
        timings: dict[str, float] = {}
        with _collector_clock() as collector:
            started = perf_counter()
            data = path.read_bytes()
            timings["read"] = perf_counter() - started
            run = lens_open_run(data, timings)
            started = perf_counter()
            run.root_steps("lens")
            timings["views"] = perf_counter() - started
        timings["collector"] = collector["seconds"]
        breakdowns.append(timings)
        return run
    return work


def _app_open(path: Path):
    """The same open as the app runs it: under its collector policy
    (``lens_ui.collector.open_kept``: the collector paused for the whole open,
    a large run frozen out of its walks). Unfrozen after each round, untimed."""
    from lens.run import open_run as lens_open_run
    from lens_ui.collector import open_kept

    def build():
        run = lens_open_run(path.read_bytes())
        run.root_steps("lens")
        return run

    def work():
        return open_kept(build, lambda run: run.recording.source_chars)
    return work


def _timed_unfrozen(work) -> float:
    try:
        return timed(work)
    finally:
        gc.unfreeze()


@contextmanager
def _collector_clock() -> Iterator[dict[str, float]]:
    """Seconds the cyclic collector runs inside the block (its walks of the
    objects just built: the open pauses it while it builds, and it walks them
    when it wakes)."""
    clock = {"seconds": 0.0}
    started: list[float] = []

    def note(phase: str, _info: dict) -> None:
        if phase == "start":
            started.append(perf_counter())
        elif started:
            clock["seconds"] += perf_counter() - started.pop()

    gc.callbacks.append(note)
    try:
        yield clock
    finally:
        gc.callbacks.remove(note)


def measure_open_v8(repeat: int) -> dict:
    """Target 1: the lens open against V8's read + JSON.parse, same rounds."""
    if v8_anchor.node_path() is None:
        return {"skipped": v8_anchor.MISSING}
    files = {name: corpus_path(name) for name in LARGE}
    files["large-agent-300-tool-calls x20"] = scaled_path(20)
    rows: dict = {"node": v8_anchor.node_version()}
    for name, path in files.items():
        rounds = repeat if "x20" not in name else max(3, (repeat + 1) // 2)
        breakdowns: list[dict] = []
        cases = {"lens_open": partial(timed, _lens_open(path, breakdowns)),
                 "app_open": partial(_timed_unfrozen, _app_open(path)),
                 "v8": partial(v8_anchor.v8_read_and_parse, path)}
        times: dict[str, list[float]] = {case: [] for case in cases}
        for round_number in range(rounds):  # rotate which goes first
            names = list(cases)
            for case in names[round_number % 3:] + names[:round_number % 3]:
                times[case].append(cases[case]())
        ratio = ratios(times["lens_open"], times["v8"])
        rows[name] = {
            "file_mb": round(path.stat().st_size / 1e6, 2),
            "repeat": rounds,
            "lens_open_ms": ms(median(times["lens_open"])),
            "v8_read_parse_ms": ms(median(times["v8"])),
            "open_over_v8": round(ratio["of_medians"], 3),
            "open_over_v8_per_round": round(ratio["median_per_round"], 3),
            "lens_open_breakdown_ms": _breakdown(breakdowns),
            # Not the target's measure (that is the library's open_run), but
            # what a user of the app waits for: the collector's walks skipped.
            "app_open_ms": ms(median(times["app_open"])),
            "app_open_over_v8": round(ratios(times["app_open"], times["v8"])["of_medians"], 3),
            "all_ms": {k: [ms(v) for v in vs] for k, vs in times.items()},
            "target": f"read + lens.run.open_run + lens root steps <= {V8_TARGET} x V8 read + parse",
            "met": ratio["of_medians"] <= V8_TARGET,
        }
    return rows


def measure_scaling(repeat: int, factors: tuple[int, ...] = FACTORS) -> dict:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    rows: dict = {}
    for factor in factors:
        data = scaled_path(factor).read_bytes()
        breakdowns: list[dict] = []
        # The larger files run fewer times: 20x is ~77 MB and a few seconds per open.
        times = side_by_side({"bare_parse": _bare(data), "open": _open(data, breakdowns)},
                             repeat if factor < 20 else max(2, (repeat + 1) // 2))
        events = _boundary_events(data)
        open_s = median(times["open"])
        after_parse = median([sum(v for k, v in b.items() if k not in ("load", "digest"))
                              for b in breakdowns])
        rows[f"{factor}x"] = {
            "factor": factor,
            "file_mb": round(len(data) / 1e6, 1),
            "boundary_events": events,
            "repeat": len(times["open"]),
            "bare_parse_ms": ms(median(times["bare_parse"])),
            "open_ms": ms(open_s),
            "open_over_bare": round(open_s / median(times["bare_parse"]), 3),
            "us_per_event": round(open_s / events * 1e6, 2),
            "after_parse_us_per_event": round(after_parse / events * 1e6, 2),
            "open_breakdown_ms": _breakdown(breakdowns),
        }
        del data
    summary: dict = {"rows": rows, "target": f"time per event at 20x <= {SCALING_TARGET} x at 1x"}
    if "1x" in rows and "20x" in rows:
        one, twenty = rows["1x"], rows["20x"]
        summary["per_event_20x_over_1x"] = round(twenty["us_per_event"] / one["us_per_event"], 3)
        summary["after_parse_per_event_20x_over_1x"] = round(
            twenty["after_parse_us_per_event"] / one["after_parse_us_per_event"], 3)
        summary["met"] = summary["per_event_20x_over_1x"] <= SCALING_TARGET
    if all(f"{f}x" in rows for f in (1, 5, 20)):
        one, five, twenty = rows["1x"], rows["5x"], rows["20x"]
        low = (five["open_ms"] - one["open_ms"]) / (five["boundary_events"] - one["boundary_events"])
        high = ((twenty["open_ms"] - five["open_ms"])
                / (twenty["boundary_events"] - five["boundary_events"]))
        summary["marginal_us_per_event_1x_to_5x"] = round(low * 1000, 2)
        summary["marginal_us_per_event_5x_to_20x"] = round(high * 1000, 2)
        summary["marginal_ratio"] = round(high / low, 3) if low > 0 else None
    return summary


def _boundary_events(data: bytes) -> int:
    document = json.loads(data)
    recording = document.get("recording", document)
    entry = next(r for r in recording["snapshot"]["recorders"] if r.get("name") == "BoundaryEvents")
    return len(entry["data"])

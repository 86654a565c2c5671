"""Measurement 3: what the server recomputes when the step changes, at 20×.

The 20× recording is opened once (:func:`benchmarks.page_work.open_for_page`),
the root scope's diagram built (the app keeps it per scope), then
:func:`benchmarks.page_work.step_change` is timed for a series of moves: a run
of consecutive Next presses from the start, one from the middle, and jumps to
evenly spread positions (slider drags). Median, 95th percentile and maximum
per move; the collector is left as a server has it, so a full collection
landing in a move shows in the maximum.
"""

from __future__ import annotations

import gc
import sys
from time import perf_counter

from benchmarks.inputs import scaled_path
from benchmarks.page_work import open_for_page, step_change
from benchmarks.timing import median, ms, percentile
from lens.scopes import ROOT

SLIDER_TARGET_MS = 15.0
FACTOR = 20


def _positions(count: int, moves: int) -> list[int]:
    run = max(1, moves // 3)
    middle = count // 2
    forward = list(range(0, min(run, count)))
    from_middle = list(range(middle, min(middle + run, count)))
    spread = [round(i * (count - 1) / max(1, moves - 2 * run - 1))
              for i in range(max(1, moves - 2 * run))]
    return forward + from_middle + spread


def measure_slider(moves: int, factor: int = FACTOR) -> dict:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    data = scaled_path(factor).read_bytes()
    run = open_for_page(data)
    del data
    gc.collect()
    rows = {}
    for profile in ("lens", "reference"):
        steps = run.root_steps(profile)
        diagram = run.diagram(profile, ROOT)  # built once per scope, as the app keeps it
        step_change(run, profile, ROOT, 0, diagram)  # imports, first-call costs
        totals: list[float] = []
        parts: dict[str, list[float]] = {}
        for index in _positions(len(steps), moves):
            timings: dict = {}
            start = perf_counter()
            step_change(run, profile, ROOT, index, diagram, timings)
            totals.append(perf_counter() - start)
            for name, value in timings.items():
                parts.setdefault(name, []).append(value)
        rows[profile] = {
            "factor": factor,
            "steps_at_root": len(steps),
            "moves": len(totals),
            "median_ms": ms(median(totals)),
            "p95_ms": ms(percentile(totals, 0.95)),
            "max_ms": ms(max(totals)),
            "parts_median_ms": {name: ms(median(v)) for name, v in parts.items()},
            "target": f"median <= {SLIDER_TARGET_MS:g} ms",
            "met": median(totals) * 1000 <= SLIDER_TARGET_MS,
        }
    return rows

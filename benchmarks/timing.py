"""Timing helpers: medians over repeated runs, cases run side by side.

The machine is shared and noisy, so cases being compared run in the same
rounds, in rotating order, and each round starts from a collected heap. A
ratio is the ratio of the two medians, with the median of the per-round
ratios beside it.
"""

from __future__ import annotations

import gc
import statistics
from time import perf_counter
from typing import Any, Callable


def timed(work: Callable[[], Any]) -> float:
    """Seconds ``work`` takes, from a collected heap; its result is dropped after."""
    gc.collect()
    start = perf_counter()
    value = work()
    elapsed = perf_counter() - start
    del value
    gc.collect()
    return elapsed


def side_by_side(cases: dict[str, Callable[[], Any]], repeat: int) -> dict[str, list[float]]:
    """Each case ``repeat`` times, all cases once per round, in rotating order."""
    names = list(cases)
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_number in range(repeat):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(timed(cases[name]))
    return times


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def ratios(top: list[float], bottom: list[float]) -> dict[str, float]:
    """Ratio of medians, and median of per-round ratios (same rounds)."""
    per_round = [t / b for t, b in zip(top, bottom) if b > 0]
    return {"of_medians": median(top) / median(bottom), "median_per_round": median(per_round)}


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)

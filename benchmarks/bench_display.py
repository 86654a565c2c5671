"""Display transforms on hostile values: the clip-first versions against the
walk-then-clip ones they replaced, side by side.

Run on purpose: ``python -m benchmarks.bench_display``. The baselines are
written here as the earlier code computed them (flatten or serialise the
whole value, then cut), so the ratio is what the change bought.
"""

from __future__ import annotations

import json
import sys

from benchmarks.timing import median, side_by_side
from lens.event_tables import SUMMARY_CHARS, _summary
from lens.text import one_line, value_text, visible

NAME_CHARS = 5_000_000
STRING_CHARS = 50_000_000
DEPTH = 2_000
LABEL = 80


def _walk_then_clip(text: str, limit: int) -> str:
    flat = visible(text.replace("\t", " ").replace("\n", "⏎"))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _nested(levels: int) -> dict:
    value: object = "leaf"
    for _ in range(levels):
        value = {"a": value}
    return value  # type: ignore[return-value]


def main(repeat: int = 5) -> int:
    name = "tool\u202e" + "x" * NAME_CHARS
    event_rest = {"payload": {"result": "y" * STRING_CHARS}}
    deep_args = _nested(DEPTH)
    cases = {
        f"label of a {NAME_CHARS:,}-char name, clip first": lambda: one_line(name, LABEL),
        f"label of a {NAME_CHARS:,}-char name, walk then clip": lambda: _walk_then_clip(name, LABEL),
        f"table summary of a {STRING_CHARS:,}-char string, clipped while written":
            lambda: _summary(event_rest),
        f"table summary of a {STRING_CHARS:,}-char string, whole JSON then clip":
            lambda: one_line(json.dumps(event_rest, ensure_ascii=False), SUMMARY_CHARS),
        f"args nested {DEPTH:,} deep as text, compact past the indent depth":
            lambda: value_text(deep_args),
        f"args nested {DEPTH:,} deep as text, indented whole":
            lambda: json.dumps(deep_args, indent=2),
    }
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * DEPTH))
    times = side_by_side(cases, repeat)
    sizes = {n: len(work()) for n, work in cases.items()}
    for case, seconds in times.items():
        print(f"{median(seconds) * 1000:10.2f} ms  {sizes[case]:>12,} chars  {case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a key press's browser time goes: Chromium's own trace, per press.

The browser benchmark (``bench_browser.py``) gives wall-clock times, which a
busy machine stretches for every page alike. This reads the renderer's trace
instead (Chrome DevTools Protocol ``Tracing``): for each press, the page's
main thread CPU time (the trace's thread time, which excludes time the thread
waited for a core) from the keydown to the new label in the DOM, and to the
first frame after it. Comparing apps on this figure needs no quiet machine.

Run on purpose, never in the unit suite::

    python -m benchmarks.browser_trace [--served] [--kinds] [--presses 12] name=path/to/app.py ...

The trivial app (``benchmarks/trivial_app.py``) is always measured first.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Container, Iterable, Sequence

from benchmarks.bench_browser import (CHROMIUM, CHROMIUM_ARGS, SERVED_CASE, TRIVIAL_APP,
                                      SteppedPage, _server)
from benchmarks.inputs import corpus_path
from benchmarks.timing import median

KEY, SEEN, SHOWN = "bench-key", "bench-seen", "bench-shown"
TASK = "ThreadControllerImpl::RunTask"  # one task of a thread's loop
TRACE_CATEGORIES = ["toplevel", "blink.user_timing"]
# With --kinds: the renderer's own events, to say what a press's main-thread time was.
KIND_CATEGORIES = ["devtools.timeline"]
KINDS = ("FunctionCall", "EvaluateScript", "TimerFire", "EventDispatch", "FireAnimationFrame",
         "UpdateLayoutTree", "Layout", "PrePaint", "Paint", "Layerize", "HitTest", "MinorGC",
         "MajorGC")


def marks_script(event: str, probe: str, field: str) -> str:
    """Page script placing user-timing marks: at each ``event`` (captured on
    the window), when the page's probe ``window[probe]`` sets ``field`` anew,
    and at the frame after. Installed after that probe."""
    return """
() => {
  const probe = window['%s'];
  let last = null;
  window.addEventListener('%s', () => performance.mark('%s'), true);
  new MutationObserver(() => {
    if (probe['%s'] !== null && probe['%s'] !== last) {
      last = probe['%s'];
      performance.mark('%s');
      requestAnimationFrame(() => performance.mark('%s'));
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true,
                             attributes: true});
}
""" % (probe, event, KEY, field, field, field, SEEN, SHOWN)


# At the keydown, when the label is in the DOM (bench_browser's probe sets
# ``seen``), and the frame after.
MARKS = marks_script("keydown", "__bench", "seen")


@dataclass(frozen=True)
class Press:
    """One press in trace time (µs): keydown, label in the DOM, frame after."""

    key: float
    seen: float
    shown: float


def presses(events: Sequence[dict]) -> list[Press]:
    """The complete presses in a trace, in order: each keydown mark with the
    first label and frame marks after it (a press with either missing is left out)."""
    marks = sorted((e["ts"], e["name"]) for e in events if e.get("name") in (KEY, SEEN, SHOWN))
    found: list[Press] = []
    key = seen = None
    for ts, name in marks:
        if name == KEY:
            key, seen = ts, None
        elif name == SEEN and key is not None and seen is None:
            seen = ts
        elif name == SHOWN and seen is not None:
            found.append(Press(key, seen, ts))
            key = seen = None
    return found


def main_thread_events(events: Sequence[dict], names: Container[str]) -> list[dict]:
    """The complete events named in ``names`` on the thread that made the key
    marks (the page's main thread); none when the trace has no key mark."""
    marks = [e for e in events if e.get("name") == KEY]
    if not marks:
        return []
    thread = (marks[0]["pid"], marks[0]["tid"])
    return [e for e in events if e.get("ph") == "X" and e.get("name") in names
            and (e.get("pid"), e.get("tid")) == thread]


def main_thread_tasks(events: Sequence[dict]) -> list[dict]:
    """The tasks of the page's main thread."""
    return main_thread_events(events, (TASK,))


def cpu_ms(tasks: Iterable[dict], start: float, end: float) -> float:
    """Thread CPU of ``tasks`` within [start, end] (µs in, ms out); a task that
    straddles an edge counts in proportion to its wall time inside."""
    total = 0.0
    for task in tasks:
        begin, length = task["ts"], task.get("dur", 0)
        inside = min(begin + length, end) - max(begin, start)
        if inside <= 0 or length <= 0:
            continue
        total += task.get("tdur", length) * inside / length
    return total / 1000


def summarise(events: Sequence[dict]) -> dict:
    """Medians over the presses of a trace: wall and main-thread CPU from the
    keydown to the label in the DOM, and to the frame after it."""
    found = presses(events)
    tasks = main_thread_tasks(events)
    if not found:
        return {"presses": 0}
    return {
        "presses": len(found),
        "label_ms": round(median([(p.seen - p.key) / 1000 for p in found]), 1),
        "frame_ms": round(median([(p.shown - p.key) / 1000 for p in found]), 1),
        "cpu_to_label_ms": round(median([cpu_ms(tasks, p.key, p.seen) for p in found]), 1),
        "cpu_to_frame_ms": round(median([cpu_ms(tasks, p.key, p.shown) for p in found]), 1),
    }


def time_by_kind(events: Sequence[dict]) -> dict[str, float]:
    """Median over the presses of a trace of each kind's main-thread time (ms)
    from the keydown to the label's frame: script (``FunctionCall`` and the
    like), style (``UpdateLayoutTree``), layout, paint. A kind's events inside
    another's count for both: a layout that script forces is in ``Layout``
    and in the ``FunctionCall`` that forced it."""
    found = presses(events)
    if not found:
        return {}
    timed = main_thread_events(events, KINDS)
    per_press = []
    for press in found:
        spent: dict[str, float] = {}
        for event in timed:
            if press.key <= event["ts"] < press.shown:
                spent[event["name"]] = (spent.get(event["name"], 0.0)
                                        + event.get("tdur", event.get("dur", 0)) / 1000)
        per_press.append(spent)
    kinds = sorted({name for spent in per_press for name in spent})
    medians = {name: round(median([spent.get(name, 0.0) for spent in per_press]), 2)
               for name in kinds}
    return dict(sorted(medians.items(), key=lambda item: -item[1]))


def traced(context, page, action: Callable[[], object],
           categories: Sequence[str] = TRACE_CATEGORIES) -> list[dict]:
    """Run ``action`` under Chromium's trace of ``page`` (``categories``) and
    return the trace's events."""
    session = context.new_cdp_session(page)
    events: list[dict] = []
    done: list[bool] = []
    session.on("Tracing.dataCollected", lambda message: events.extend(message["value"]))
    session.on("Tracing.tracingComplete", lambda _: done.append(True))
    session.send("Tracing.start", {"traceConfig": {"includedCategories": list(categories)},
                                   "transferMode": "ReportEvents"})
    action()
    session.send("Tracing.end")
    for _ in range(100):  # bounded: ten seconds at most
        if done:
            break
        page.wait_for_timeout(100)
    session.detach()
    return events


def traced_summary(context, page, action: Callable[[], object], kinds: bool = False) -> dict:
    """:func:`summarise` of ``action`` run under a trace of ``page``; with
    ``kinds``, the trace also records the renderer's own events and the summary
    carries :func:`time_by_kind` as ``to_frame_by_kind_ms``."""
    events = traced(context, page, action,
                    TRACE_CATEGORIES + (KIND_CATEGORIES if kinds else []))
    summary = summarise(events)
    if kinds:
        summary["to_frame_by_kind_ms"] = time_by_kind(events)
    return summary


def trace_presses(app: Path, count: int, expand: str | None, kinds: bool = False) -> dict:
    """Open ``app`` (the large agent run uploaded, unless it is the trivial
    app), press N ``count`` times under a trace, and summarise (with ``kinds``,
    also :func:`time_by_kind`)."""
    from playwright.sync_api import sync_playwright

    trivial = app == TRIVIAL_APP
    with _server(app, f"trace-{app.parent.name}") as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
        try:
            page = SteppedPage(browser, server, app.name)
            page.open(upload=None if trivial else corpus_path("large-agent-300-tool-calls"),
                      expand=None if trivial else expand)
            page.page.evaluate(MARKS)
            page.press()  # first-use costs stay out of the trace
            return traced_summary(page.context, page.page,
                                  lambda: [page.press() for _ in range(count)], kinds)
        finally:
            browser.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("apps", nargs="*", metavar="NAME=APP", help="Lens app copies to trace")
    parser.add_argument("--presses", type=int, default=12)
    parser.add_argument("--served", action="store_true",
                        help=f"open the served context first ({SERVED_CASE})")
    parser.add_argument("--kinds", action="store_true",
                        help="also split the time to the label's frame by kind (script, "
                             "style, layout, paint)")
    options = parser.parse_args(argv)
    expand = "Served context" if options.served else None
    apps = [("trivial", TRIVIAL_APP)]
    for item in options.apps or ["lens=lens_app.py"]:
        name, _, path = item.partition("=")
        apps.append((name, Path(path).resolve()))
    for name, app in apps:
        result = trace_presses(app, options.presses, expand, options.kinds)
        print(f"{name:12s} load {os.getloadavg()[0]:4.1f}  " + "  ".join(
            f"{field} {value}" for field, value in result.items()), flush=True)


if __name__ == "__main__":
    main()

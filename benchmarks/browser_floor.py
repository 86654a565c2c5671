"""What a Streamlit page like the run page can reach: the stepping floor.

Prices, side by side with the trivial app (``benchmarks/trivial_app.py``), what
the run page must show, using :mod:`benchmarks.floor_app` (the trivial app
plus one thing, chosen by ``FLOOR_CASE``). Groups of cases:

- ``elements``: K = 25, 50, 100 static elements inside the fragment (re-sent
  every step) and outside it (sent once);
- ``diagram``: the run page's own diagram (a keyed ``st.vega_lite_chart``, one
  spec, the step as rows), the same chart with rows that never change, and the
  page's chart without its key (a new identity, so a new chart, every step);
- ``kinds``: 20 elements of one kind above the fragment, a case per kind;
- ``page``: Lens apps given as ``--lens NAME=path/to/lens_app.py`` (the large
  agent run uploaded), closed and with the served context open, to compare
  a change to the product with main in one run.

Every page sits in one headless Chromium and one server each; the pages take
turns in rounds (as in ``bench_browser.py``, whose press and probe this
reuses), and each page's presses run under Chromium's trace, so every case
gets both the wall-clock figures (keydown to the frame after the label) and
the page's main-thread CPU per press (:mod:`benchmarks.browser_trace`), which
a busy machine does not stretch. Run on purpose, one benchmark at a time::

    python -m benchmarks.browser_floor --group elements [--rounds 4 --presses 8]
    python -m benchmarks.browser_floor --group page --lens main=/path/lens_app.py ...
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from benchmarks.bench_browser import (CHROMIUM, CHROMIUM_ARGS, LOG_DIR, START_TIMEOUT_S,
                                      TRIVIAL_APP, SteppedPage)
from benchmarks.browser_trace import (MARKS, cpu_ms, main_thread_tasks, presses, summarise,
                                      traced)
from benchmarks.inputs import corpus_path
from benchmarks.timing import median
from tests.streamlit_server import StreamlitServer

FLOOR_APP = Path(__file__).resolve().parent / "floor_app.py"
GROUPS = {
    "elements": ["inside:25", "inside:50", "inside:100", "outside:25", "outside:50",
                 "outside:100"],
    "diagram": ["diagram", "diagram-fixed", "diagram-unkeyed"],
    "kinds": [f"kind:{name}:20" for name in ("text", "button", "code", "slider", "segmented",
                                             "expander", "json")],
}
SERVED = "Served context"


@dataclass(frozen=True)
class Case:
    """One page to step: an app, its ``FLOOR_CASE``, and for a Lens app what to open."""

    name: str
    app: Path
    floor_case: str | None = None
    upload: Path | None = None
    expand: str | None = None


@dataclass
class Measured:
    page: SteppedPage
    events: list[dict] = field(default_factory=list)


def cases_for(group: str, lens_apps: Sequence[tuple[str, Path]]) -> list[Case]:
    cases = [Case("trivial", TRIVIAL_APP)]
    if group == "page":
        agent = corpus_path("large-agent-300-tool-calls")
        for name, app in lens_apps:
            cases.append(Case(name, app, upload=agent))
            cases.append(Case(f"{name} served", app, upload=agent, expand=SERVED))
        return cases
    return cases + [Case(case, FLOOR_APP, floor_case=case) for case in GROUPS[group]]


def _traced_presses(measured: Measured, count: int) -> None:
    """``count`` presses under a Chromium trace, its events kept."""
    page = measured.page
    measured.events.extend(traced(page.context, page.page,
                                  lambda: [page.press() for _ in range(count)]))


def measure(cases: Sequence[Case], rounds: int, presses: int) -> dict:
    from playwright.sync_api import sync_playwright

    servers: dict[tuple[Path, str | None], StreamlitServer] = {}
    for case in cases:  # one server per app and FLOOR_CASE; Lens cases share theirs
        if (case.app, case.floor_case) not in servers:
            env = {"FLOOR_CASE": case.floor_case} if case.floor_case else {}
            servers[(case.app, case.floor_case)] = StreamlitServer(
                app=case.app, cwd=case.app.parent, env=env, start_timeout_s=START_TIMEOUT_S,
                log_path=LOG_DIR / f"streamlit-floor-{len(servers)}.log")
    started: list[StreamlitServer] = []
    load_before = os.getloadavg()
    try:
        for server in servers.values():
            server.start()
            started.append(server)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                 args=CHROMIUM_ARGS)
            try:
                measured = _run(browser, cases, servers, rounds, presses)
            finally:
                browser.close()
    finally:
        for server in started:
            server.stop()
    return _table(measured, load_before, os.getloadavg())


def _run(browser, cases, servers, rounds: int, presses: int) -> dict[str, Measured]:
    measured: dict[str, Measured] = {}
    for case in cases:
        page = SteppedPage(browser, servers[(case.app, case.floor_case)], case.name)
        page.open(upload=case.upload, expand=case.expand)
        page.page.evaluate(MARKS)
        page.press()  # first-use costs stay out of the figures
        page.times_ms.clear()
        page.dom_ms.clear()
        page.drawn_ms.clear()
        measured[case.name] = Measured(page)
    names = list(measured)
    for round_number in range(rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            _traced_presses(measured[name], presses)
    for item in measured.values():
        item.page.close()
    return measured


def _table(measured: dict[str, Measured], load_before, load_after) -> dict:
    rows = {}
    for name, item in measured.items():
        page = item.page
        rows[name] = {"label_ms": round(median(page.times_ms), 1),
                      "label_in_dom_ms": round(median(page.dom_ms), 1),
                      "step_drawn_ms": round(median(page.drawn_ms), 1),
                      **{f"trace_{k}": v for k, v in summarise(item.events).items()}}
        drawn_cpu = _cpu_to_drawn(item)
        if drawn_cpu is not None:
            rows[name]["trace_cpu_to_drawn_ms"] = drawn_cpu
    base = rows["trivial"]
    for row in rows.values():
        row["label_ratio"] = round(row["label_ms"] / base["label_ms"], 2)
        row["drawn_ratio"] = round(row["step_drawn_ms"] / base["step_drawn_ms"], 2)
        if base.get("trace_cpu_to_drawn_ms") and "trace_cpu_to_drawn_ms" in row:
            row["cpu_drawn_ratio"] = round(row["trace_cpu_to_drawn_ms"]
                                           / base["trace_cpu_to_drawn_ms"], 2)
        if base.get("trace_cpu_to_frame_ms"):
            row["cpu_frame_ratio"] = round(row["trace_cpu_to_frame_ms"]
                                           / base["trace_cpu_to_frame_ms"], 2)
    return {"load_1min_before_after": [round(load_before[0], 2), round(load_after[0], 2)],
            "presses_per_case": len(next(iter(measured.values())).page.times_ms), "cases": rows}


def _cpu_to_drawn(item: Measured) -> float | None:
    """Median main-thread CPU from the keydown to the frame after the whole step.
    The page timed each press from its keydown (the trace's key mark) to that
    frame, so the window ends that long after the mark; None unless every
    press is in the trace, which pairs them in order."""
    found = presses(item.events)
    if not found or len(found) != len(item.page.drawn_ms):
        return None
    tasks = main_thread_tasks(item.events)
    return round(median([cpu_ms(tasks, press.key, press.key + drawn * 1000)
                         for press, drawn in zip(found, item.page.drawn_ms)]), 1)


def _print(result: dict) -> None:
    before, after = result["load_1min_before_after"]
    print(f"load (1 min) before {before}, after {after}; "
          f"{result['presses_per_case']} presses a case")
    header = ("case", "label ms", "x", "in DOM", "drawn ms", "x", "CPU→label", "CPU→frame", "x",
              "CPU→drawn", "x")
    line = "{:22s} {:>9} {:>5} {:>7} {:>9} {:>5} {:>10} {:>10} {:>5} {:>10} {:>5}"
    print(line.format(*header))
    for name, row in result["cases"].items():
        print(line.format(name, *(row.get(field, "-") for field in (
            "label_ms", "label_ratio", "label_in_dom_ms", "step_drawn_ms", "drawn_ratio",
            "trace_cpu_to_label_ms", "trace_cpu_to_frame_ms", "cpu_frame_ratio",
            "trace_cpu_to_drawn_ms", "cpu_drawn_ratio"))))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--group", choices=[*GROUPS, "page"], default="elements")
    parser.add_argument("--lens", action="append", default=[], metavar="NAME=APP",
                        help="a Lens app to step (group page), e.g. main=/work/main/lens_app.py")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--presses", type=int, default=8, help="presses per case per round")
    parser.add_argument("--json", type=Path, help="also write the result here")
    options = parser.parse_args(argv)
    if not CHROMIUM.exists():
        parser.exit(2, f"{CHROMIUM} not found\n")
    lens_apps = []
    for item in options.lens:
        name, _, path = item.partition("=")
        lens_apps.append((name, Path(path).resolve()))
    if options.group == "page" and not lens_apps:
        parser.exit(2, "--group page needs at least one --lens NAME=APP\n")
    result = measure(cases_for(options.group, lens_apps), options.rounds, options.presses)
    result["group"] = options.group
    _print(result)
    if options.json:
        options.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

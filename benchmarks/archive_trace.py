"""Where an Archive filter's browser time goes: Chromium's own trace, per toggle.

The companion of ``browser_trace.py`` for the Archive page: the trivial filter
app and the Archive page each take ``--toggles`` cached toggles of "Only runs
with a failed tool" under a trace, and for each the page's main-thread CPU
(the trace's thread time, which excludes time spent waiting for a core) is
summed from the click to the table of runs being in, and to the frame after.
A busy machine stretches wall-clock times; this figure it barely moves.

Run on purpose, never in the unit suite::

    python -m benchmarks.archive_trace --folder DIR [--db FILE] [--toggles 12] [--kinds] \\
        [name=path/to/lens_app.py ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Sequence

from benchmarks.bench_archive_browser import (ARCHIVE_PATH, TRIVIAL_FILTER_APP, FilterPage,
                                              _lens_server, _seed_index)
from benchmarks.bench_browser import (CHROMIUM, CHROMIUM_ARGS, LENS_APP, LOG_DIR,
                                      START_TIMEOUT_S)
from benchmarks.browser_trace import marks_script, traced_summary
from tests.streamlit_server import StreamlitServer

# At the click, when the table of runs is in (bench_archive_browser's probe
# sets ``table``), and the frame after.
MARKS = marks_script("click", "__filter", "table")
WARM_TOGGLES = 3  # unmeasured: both filter states cached, first-use costs paid


def trace_toggles(page: FilterPage, count: int, kinds: bool = False) -> dict:
    page.page.evaluate(MARKS)
    result = traced_summary(page.context, page.page,
                            lambda: [page.toggle() for _ in range(count)], kinds)
    # In the trace's words a "label" is what the marks call seen: here the table.
    return {"toggles": result.pop("presses"), **{
        name.replace("label", "table"): value for name, value in result.items()}}


def trace_app(name: str, app: Path, folder: Path, db: Path | None, count: int,
              kinds: bool = False) -> dict:
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="lens-archive-trace-"))
    try:
        with ExitStack() as stack:
            if app == TRIVIAL_FILTER_APP:
                server = stack.enter_context(StreamlitServer(
                    app=app, cwd=app.parent, log_path=LOG_DIR / "streamlit-trace-filter.log",
                    start_timeout_s=START_TIMEOUT_S))
                path, checkbox = "/", "st-key-failed"
            else:
                _seed_index(db, folder, work / "cache")
                server = stack.enter_context(_lens_server(app, f"trace-{name}", folder,
                                                          work / "cache"))
                path, checkbox = ARCHIVE_PATH, "st-key-lens-archive-failed"
            playwright = stack.enter_context(sync_playwright())
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                 args=CHROMIUM_ARGS)
            try:
                page = FilterPage(browser, server, name, checkbox)
                page.open(path, "runs match")
                if app != TRIVIAL_FILTER_APP:
                    page.wait_indexed()
                for _ in range(WARM_TOGGLES):
                    page.toggle()
                return trace_toggles(page, count, kinds)
            finally:
                browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("apps", nargs="*", metavar="NAME=APP", help="Lens app copies to trace")
    parser.add_argument("--folder", required=True, help="the archive folder the app is given")
    parser.add_argument("--db", help="an index of that folder to start from (copied)")
    parser.add_argument("--toggles", type=int, default=12)
    parser.add_argument("--kinds", action="store_true",
                        help="also split the time to the table's frame by kind (script, "
                             "style, layout, paint)")
    options = parser.parse_args(argv)
    apps = [("trivial", TRIVIAL_FILTER_APP)]
    for item in options.apps or [f"lens={LENS_APP}"]:
        name, _, path = item.partition("=")
        apps.append((name, Path(path).resolve()))
    folder = Path(options.folder).resolve()
    db = Path(options.db) if options.db else None
    for name, app in apps:
        result = trace_app(name, app, folder, db, options.toggles, options.kinds)
        print(f"{name:12s} load {os.getloadavg()[0]:4.1f}  " + "  ".join(
            f"{field} {value}" for field, value in result.items()), flush=True)


if __name__ == "__main__":
    main()

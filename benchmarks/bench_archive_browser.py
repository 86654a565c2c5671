"""The Archive page in the browser against the trivial app, side by side.

    python -m benchmarks.bench_archive_browser --folder DIR [--db FILE] [--toggles 10 --rounds 3]

Two Streamlit servers on free 127.0.0.1 ports: the Lens app with ``DIR`` as
its one archive folder (``FOOTPRINT_LENS_ARCHIVE`` in the server's
environment; ``--db`` is copied to where the app looks for the folder's index,
so a large archive need not be indexed again), and
:mod:`benchmarks.trivial_filter_app` (a checkbox and a ``N of M runs match``
caption). One headless Chromium (Debian's, driven by Playwright; every request
beyond 127.0.0.1 aborted) holds a page on each.

One toggle is: wait until the page is idle, click "Only runs with a failed
tool", and time in the page from the click event to

- **caption**: the first animation frame after a new ``… runs match`` caption
  is in the DOM (the count the user asked for),
- **table**: the first frame after that with the table of runs no longer stale
  (the rows of that filter are in), and
- **done**: the first frame after the script run has ended with nothing stale
  left on the page (on the Archive page: the charts of that filter are in).

Toggles come in two kinds on the Archive page:

- **cached**: the filter was asked for before in this server (after the first
  two toggles, both states of the checkbox are), so the page's queries and
  figures come from its cache;
- **first-time**: before each such toggle (unmeasured) a search term never
  used before in this server is entered (``ticket 1``, ``ticket 2``, … : the
  synthetic runs' messages carry a ticket number, so each term matches
  hundreds of runs), so the toggled filter is one nobody asked for yet: its
  count, page of runs and charts are all queried and built.

The trivial app has no cache to miss; its toggles are the baseline for both.
A second trivial page is served with its collector frozen, as Lens's is
(:mod:`benchmarks.anchor_collector`); the ratios against it are reported
beside the target's, never judged.
The pages take turns in rounds; figures are medians over all toggles of a
kind, and the ratios those of the medians. Results go to stdout and, with
``--json``, to a file.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from benchmarks.anchor_collector import FREEZE_ENV
from benchmarks.bench_browser import (APP_IDLE, CHROMIUM, CHROMIUM_ARGS, FROZEN_TRIVIAL,
                                      LENS_APP, LOG_DIR, RUNNING_ICON, START_TIMEOUT_S,
                                      WAIT_MS, _local_only, wait_idle)
from benchmarks.timing import median, percentile
from tests.streamlit_server import StreamlitServer

TRIVIAL_FILTER_APP = Path(__file__).resolve().parent / "trivial_filter_app.py"
TARGET = 1.5
CAPTION = '[data-testid="stCaptionContainer"]'
TABLE = '[data-testid="stDataFrame"]'
SEARCH = ".st-key-lens-archive-text input"
KINDS = ("cached", "first-time")
ARCHIVE_PATH = "/run_archive"
INDEX_WAIT_MS = 600_000

PROBE = """
() => {
  if (window.__filter) return;
  const b = window.__filter = {before: null, t0: null, seen: null, shown: null,
                               table: null, tableShown: null, done: null, doneShown: null};
  document.addEventListener('click', () => {
    if (b.before !== null && b.t0 === null) b.t0 = performance.now();
  }, true);
  const caption = () => {
    for (const el of document.querySelectorAll('%s')) {
      if (el.closest('[data-stale="true"]')) continue;
      const text = el.textContent || '';
      if (/ of [\\d,]+ runs match/.test(text)) return text;
    }
    return null;
  };
  // No table on the page (the trivial app) counts as in.
  const tableIn = () => !document.querySelector('%s[data-stale="true"], [data-stale="true"] %s');
  const idle = () => document.querySelector('%s')
      && !document.querySelector('%s') && !document.querySelector('[data-stale="true"]');
  const check = () => {
    if (b.t0 === null) return;
    if (b.seen === null) {
      const text = caption();
      if (text !== null && text !== b.before) {
        b.seen = performance.now();
        requestAnimationFrame(() => { b.shown = performance.now(); });
      }
    }
    if (b.seen !== null && b.table === null && tableIn()) {
      b.table = performance.now();
      requestAnimationFrame(() => { b.tableShown = performance.now(); });
    }
    if (b.seen !== null && b.done === null && idle()) {
      b.done = performance.now();
      requestAnimationFrame(() => { b.doneShown = performance.now(); });
    }
  };
  window.__filterCaption = caption;
  new MutationObserver(check).observe(document.body,
    {subtree: true, childList: true, characterData: true, attributes: true});
}
""" % (CAPTION, TABLE, TABLE, APP_IDLE, RUNNING_ICON)


class FilterPage:
    """A page on one app, toggling its failed-tools filter and timing each toggle."""

    def __init__(self, browser, server, name: str, checkbox: str) -> None:
        self.name, self.checkbox = name, checkbox
        self.context = browser.new_context(viewport={"width": 1280, "height": 720},
                                           base_url=server.url, accept_downloads=False)
        self.context.set_default_timeout(WAIT_MS)
        self.context.route("**/*", _local_only)
        self.page = self.context.new_page()
        self.times: dict[str, dict[str, list[float]]] = {
            kind: {"caption": [], "table": [], "done": []} for kind in KINDS}

    def open(self, path: str, ready: str) -> str:
        page = self.page
        page.goto(path)
        page.wait_for_function(
            "(ready) => [...document.querySelectorAll('%s')].some("
            "e => (e.textContent || '').includes(ready))" % CAPTION,
            arg=ready, timeout=INDEX_WAIT_MS)
        wait_idle(page)
        page.evaluate(PROBE)
        return page.evaluate("() => window.__filterCaption()")

    def wait_indexed(self) -> None:
        """Until the Archive page's pass over its folder has ended ("Indexed …")
        and the page is idle again."""
        self.page.wait_for_function(
            "() => [...document.querySelectorAll('%s')].some("
            "e => (e.textContent || '').startsWith('Indexed '))" % CAPTION,
            timeout=INDEX_WAIT_MS)
        wait_idle(self.page)

    def search(self, term: str) -> None:
        """Enter a search term (unmeasured) and wait for its rerun to end."""
        box = self.page.locator(SEARCH)
        box.fill(term)
        box.press("Enter")
        self.page.wait_for_function(
            "(term) => [...document.querySelectorAll('%s')].some("
            "e => e.value === term)" % SEARCH, arg=term, timeout=WAIT_MS)
        wait_idle(self.page)

    def toggle(self, kind: str | None = None) -> str:
        """One timed toggle, kept under ``kind`` (None: timed but not kept)."""
        page = self.page
        before = page.evaluate("() => window.__filterCaption()")
        page.evaluate("(before) => Object.assign(window.__filter, {before, t0: null, "
                      "seen: null, shown: null, table: null, tableShown: null, done: null, "
                      "doneShown: null})", before)
        page.locator(f".{self.checkbox} label").click()
        page.wait_for_function("() => window.__filter.doneShown !== null", timeout=WAIT_MS)
        t0, shown, table, done = page.evaluate(
            "() => [window.__filter.t0, window.__filter.shown, window.__filter.tableShown, "
            "window.__filter.doneShown]")
        if t0 is None:
            raise RuntimeError(f"{self.name}: the click was not seen by the page")
        if kind is not None:
            kept = self.times[kind]
            kept["caption"].append(shown - t0)
            # The table is in by the end at the latest (a frame may hold both).
            kept["table"].append((table if table is not None else done) - t0)
            kept["done"].append(done - t0)
        wait_idle(page)
        return page.evaluate("() => window.__filterCaption()")

    def summary(self) -> dict:
        cases = {}
        for kind, kept in self.times.items():
            if not kept["caption"]:
                continue
            case = {"toggles": len(kept["caption"])}
            for milestone, values in kept.items():
                case[f"{milestone}_median_ms"] = round(median(values), 1)
                case[f"{milestone}_p95_ms"] = round(percentile(values, 0.95), 1)
            for milestone, values in kept.items():
                case[f"{milestone}_all_ms"] = [round(t, 1) for t in values]
            cases[kind] = case
        return cases


def _lens_server(app: Path, name: str, folder: Path, cache: Path) -> StreamlitServer:
    return StreamlitServer(app=app, cwd=app.parent, log_path=LOG_DIR / f"streamlit-{name}.log",
                           start_timeout_s=START_TIMEOUT_S,
                           env={"FOOTPRINT_LENS_ARCHIVE": str(folder),
                                "FOOTPRINT_LENS_CACHE": str(cache)})


def _seed_index(db: Path | None, folder: Path, cache: Path) -> None:
    """Copy ``db`` to where a server with this cache folder looks for the index."""
    from archive.database import default_db_path

    if db is not None:
        target = default_db_path(folder, cache)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(db, target)


def measure(folder: Path, db: Path | None, toggles: int, rounds: int,
            other: tuple[Path, str] | None = None, search: str = "ticket {}") -> dict:
    """``other`` (an app file and its Archive page's path) adds a third page on
    another build of Lens, e.g. the one before a change, in the same rounds."""
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="lens-bench-archive-browser-"))
    terms = (search.format(n) for n in range(1, 10**6))
    try:
        _seed_index(db, folder, work / "cache")
        with ExitStack() as stack:
            trivial, frozen = (stack.enter_context(StreamlitServer(
                app=TRIVIAL_FILTER_APP, cwd=TRIVIAL_FILTER_APP.parent,
                log_path=LOG_DIR / f"streamlit-trivial-filter{suffix}.log",
                start_timeout_s=START_TIMEOUT_S, env=env))
                for suffix, env in (("", {}), ("-frozen", {FREEZE_ENV: "1"})))
            lens = stack.enter_context(_lens_server(LENS_APP, "lens-archive", folder,
                                                    work / "cache"))
            apps = {"archive": (lens, ARCHIVE_PATH)}
            if other is not None:
                # Each build indexes its own copy: two servers cannot share one writer.
                _seed_index(db, folder, work / "cache-other")
                apps["archive (other build)"] = (stack.enter_context(_lens_server(
                    other[0], "lens-archive-other", folder, work / "cache-other")), other[1])
            playwright = stack.enter_context(sync_playwright())
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                 args=CHROMIUM_ARGS)
            try:
                pages = {"trivial": FilterPage(browser, trivial, "trivial", "st-key-failed"),
                         FROZEN_TRIVIAL: FilterPage(browser, frozen, FROZEN_TRIVIAL,
                                                    "st-key-failed")}
                opened = {name: page.open("/", "runs match") for name, page in pages.items()}
                for name, (server, path) in apps.items():
                    pages[name] = FilterPage(browser, server, name, "st-key-lens-archive-failed")
                    opened[name] = pages[name].open(path, "runs match")
                    pages[name].wait_indexed()
                for page in pages.values():  # unmeasured: first-use costs
                    page.toggle()
                    page.toggle()
                names = list(pages)
                for number in range(rounds):
                    shift = number % len(names)
                    for name in names[shift:] + names[:shift]:
                        page = pages[name]
                        for _ in range(toggles):
                            page.toggle("cached")
                        if name.startswith("trivial"):
                            continue  # nothing to search
                        for _ in range(toggles):
                            page.search(next(terms))
                            page.toggle("first-time")
                        page.search("")  # back to the unsearched, cached filters
                pages["archive"].page.screenshot(path=str(work / "archive.png"))
                shutil.copy(work / "archive.png", Path(tempfile.gettempdir()) /
                            "lens-bench-archive-browser.png")
                cases = {name: page.summary() for name, page in pages.items()}
            finally:
                browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    def against(anchor: str) -> dict:
        baseline = cases[anchor]["cached"]
        return {f"{name} ({kind})": {
            milestone: round(case[f"{milestone}_median_ms"] / baseline[f"{milestone}_median_ms"],
                             3) for milestone in ("caption", "table", "done")}
            for name, kinds in cases.items() if not name.startswith("trivial")
            for kind, case in kinds.items()}

    ratios = against("trivial")
    return {"folder": str(folder), "opened_caption": opened["archive"], "cases": cases,
            "ratios": ratios, "load_average": os.getloadavg(),
            # Reported, not judged: against the trivial app with its collector frozen.
            "ratios_against_frozen_trivial": against(FROZEN_TRIVIAL),
            "target": f"archive <= {TARGET} x trivial (table: the filter's count and rows in)",
            "met": {name: ratio["table"] <= TARGET for name, ratio in ratios.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_archive_browser")
    parser.add_argument("--folder", required=True, help="the archive folder the app is given")
    parser.add_argument("--db", help="an index of that folder to start from (copied)")
    parser.add_argument("--toggles", type=int, default=10, help="per page per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the result to this file")
    parser.add_argument("--search", default="ticket {}",
                        help="search terms for the first-time toggles ({} is 1, 2, …); each "
                        "must match runs with and without a failed tool")
    parser.add_argument("--other-app", help="another build's lens_app.py, measured alongside")
    parser.add_argument("--other-page", default="/archive",
                        help="that build's Archive page path (default /archive)")
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} not found", file=sys.stderr)
        return 2
    other = (Path(args.other_app).resolve(), args.other_page) if args.other_app else None
    result = measure(Path(args.folder).resolve(), Path(args.db) if args.db else None,
                     args.toggles, args.rounds, other, args.search)
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

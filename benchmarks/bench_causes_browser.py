"""The Archive page's Causes view in the browser against the trivial app, side by side.

    python -m benchmarks.bench_causes_browser --folder DIR [--db FILE] [--switches 10 --rounds 3]

Two Streamlit servers on free 127.0.0.1 ports, as in
:mod:`benchmarks.bench_archive_browser`: the Lens app with ``DIR`` as its one
archive folder (``--db`` is copied to where the app looks for the folder's
index, so a large archive need not be indexed again) and
:mod:`benchmarks.trivial_filter_app` (a checkbox and a ``N of M runs match``
caption). One headless Chromium holds a page on each (every request beyond
127.0.0.1 aborted).

One switch on the Archive page is: from the Runs view, idle, click "Causes"
and time in the page from the click event to

- **paint**: the first animation frame after the view's ``… kinds of cause in
  … runs`` caption is in the DOM (the groups' table is sent just after it), and
- **done**: the first frame after the script run has ended with nothing stale
  on the page (the groups' table and the trend chart in).

Then back to Runs, unmeasured. The first switch of a server is its **cold**
one (the cause groups of the index are queried and built); every later one
reads them from the page's cache (**cached**), as a person coming back to the
view does. On the trivial app a "switch" is a click on its checkbox to the
frame after its new caption: the least a Streamlit rerun that changes what is
on screen costs. Pages take turns in rounds; figures are medians; the ratio is
that of the medians. Results go to stdout and, with ``--json``, to a file.
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

from benchmarks.bench_archive_browser import (ARCHIVE_PATH, TRIVIAL_FILTER_APP, FilterPage,
                                              _lens_server, _seed_index)
from benchmarks.bench_browser import (APP_IDLE, CHROMIUM, CHROMIUM_ARGS, LOG_DIR,
                                      RUNNING_ICON, START_TIMEOUT_S, WAIT_MS, _local_only,
                                      wait_idle)
from benchmarks.timing import median, percentile
from tests.streamlit_server import StreamlitServer

TARGET = 1.5
CAUSES_TEXT = "kinds of cause in"
INDEX_WAIT_MS = 600_000
VIEW_BUTTONS = '[data-testid="stMain"] [data-testid="stButtonGroup"]:not([data-stale="true"])'

PROBE = """
() => {
  if (window.__causes) return;
  const b = window.__causes = {armed: false, t0: null, seen: null, shown: null,
                               done: null, doneShown: null};
  document.addEventListener('click', () => {
    if (b.armed && b.t0 === null) b.t0 = performance.now();
  }, true);
  const painted = () => [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
      .some(el => !el.closest('[data-stale="true"]')
                  && (el.textContent || '').includes('%s'));
  const idle = () => document.querySelector('%s')
      && !document.querySelector('%s') && !document.querySelector('[data-stale="true"]');
  const check = () => {
    if (b.t0 === null) return;
    if (b.seen === null && painted()) {
      b.seen = performance.now();
      requestAnimationFrame(() => { b.shown = performance.now(); });
    }
    if (b.seen !== null && b.done === null && idle()) {
      b.done = performance.now();
      requestAnimationFrame(() => { b.doneShown = performance.now(); });
    }
  };
  new MutationObserver(check).observe(document.body,
    {subtree: true, childList: true, characterData: true, attributes: true});
}
""" % (CAUSES_TEXT, APP_IDLE, RUNNING_ICON)


class CausesPage:
    """The Archive page, switched from Runs to Causes and back, each switch timed."""

    def __init__(self, browser, server) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 720},
                                           base_url=server.url, accept_downloads=False)
        self.context.set_default_timeout(WAIT_MS)
        self.context.route("**/*", _local_only)
        self.page = self.context.new_page()
        self.times: dict[str, dict[str, list[float]]] = {
            kind: {"paint": [], "done": []} for kind in ("cold", "cached")}

    def open(self) -> None:
        page = self.page
        page.goto(ARCHIVE_PATH)
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=\"stCaptionContainer\"]')]"
            ".some(e => (e.textContent || '').startsWith('Indexed '))", timeout=INDEX_WAIT_MS)
        wait_idle(page)
        page.evaluate(PROBE)

    def _view(self, name: str):
        return self.page.locator(VIEW_BUTTONS).get_by_role("radio", name=name, exact=True)

    def switch(self, kind: str) -> None:
        page = self.page
        page.evaluate("() => Object.assign(window.__causes, {armed: true, t0: null, "
                      "seen: null, shown: null, done: null, doneShown: null})")
        self._view("Causes").click()
        page.wait_for_function("() => window.__causes.doneShown !== null", timeout=WAIT_MS)
        t0, shown, done = page.evaluate(
            "() => [window.__causes.t0, window.__causes.shown, window.__causes.doneShown]")
        if t0 is None:
            raise RuntimeError("the click on Causes was not seen by the page")
        self.times[kind]["paint"].append(shown - t0)
        self.times[kind]["done"].append(done - t0)
        page.evaluate("() => { window.__causes.armed = false; }")
        wait_idle(page)
        self._view("Runs").click()  # back, unmeasured
        page.wait_for_selector(f'[data-testid="stDataFrame"]', timeout=WAIT_MS)
        wait_idle(page)

    def summary(self) -> dict:
        cases = {}
        for kind, kept in self.times.items():
            if kept["paint"]:
                cases[kind] = {"switches": len(kept["paint"]),
                               **{f"{m}_median_ms": round(median(v), 1) for m, v in kept.items()},
                               **{f"{m}_p95_ms": round(percentile(v, 0.95), 1)
                                  for m, v in kept.items()},
                               **{f"{m}_all_ms": [round(t, 1) for t in v]
                                  for m, v in kept.items()}}
        return cases


def measure(folder: Path, db: Path | None, switches: int, rounds: int) -> dict:
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="lens-bench-causes-browser-"))
    try:
        _seed_index(db, folder, work / "cache")
        with ExitStack() as stack:
            trivial = stack.enter_context(StreamlitServer(
                app=TRIVIAL_FILTER_APP, cwd=TRIVIAL_FILTER_APP.parent,
                log_path=LOG_DIR / "streamlit-trivial-filter-causes.log",
                start_timeout_s=START_TIMEOUT_S))
            lens = stack.enter_context(_lens_server(Path(__file__).resolve().parent.parent
                                                    / "lens_app.py", "lens-causes", folder,
                                                    work / "cache"))
            playwright = stack.enter_context(sync_playwright())
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                 args=CHROMIUM_ARGS)
            try:
                baseline = FilterPage(browser, trivial, "trivial", "st-key-failed")
                baseline.open("/", "runs match")
                causes = CausesPage(browser, lens)
                causes.open()
                causes.switch("cold")
                baseline.toggle()  # unmeasured: first-use costs
                baseline.toggle()
                for number in range(rounds):
                    order = (causes, baseline) if number % 2 == 0 else (baseline, causes)
                    for page in order:
                        for _ in range(switches):
                            if page is causes:
                                causes.switch("cached")
                            else:
                                baseline.toggle("cached")
                causes._view("Causes").click()
                wait_idle(causes.page)
                causes.page.screenshot(path=str(Path(tempfile.gettempdir()) /
                                                "lens-bench-causes-browser.png"))
                trivial_case = baseline.summary()["cached"]
                lens_cases = causes.summary()
            finally:
                browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base_paint = trivial_case["caption_median_ms"]
    base_done = trivial_case["done_median_ms"]
    ratios = {kind: {"paint": round(case["paint_median_ms"] / base_paint, 3),
                     "done": round(case["done_median_ms"] / base_done, 3)}
              for kind, case in lens_cases.items()}
    return {"folder": str(folder), "causes": lens_cases,
            "trivial": {key: trivial_case[key] for key in
                        ("toggles", "caption_median_ms", "caption_p95_ms", "done_median_ms",
                         "done_p95_ms")},
            "ratios": ratios, "load_average": os.getloadavg(),
            "target": f"Causes view's paint <= {TARGET} x trivial (cached switches)",
            "met": ratios["cached"]["paint"] <= TARGET}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_causes_browser")
    parser.add_argument("--folder", required=True, help="the archive folder the app is given")
    parser.add_argument("--db", help="an index of that folder to start from (copied)")
    parser.add_argument("--switches", type=int, default=10, help="per page per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the result to this file")
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} not found", file=sys.stderr)
        return 2
    result = measure(Path(args.folder).resolve(), Path(args.db) if args.db else None,
                     args.switches, args.rounds)
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

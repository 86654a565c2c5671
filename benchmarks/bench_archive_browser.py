"""The Archive page in the browser against the trivial app, side by side.

    python -m benchmarks.bench_archive_browser --folder DIR [--db FILE] [--toggles 10 --rounds 3]

Two Streamlit servers on free 127.0.0.1 ports: the Lens app with ``DIR`` as
its one archive folder (``FOOTPRINT_LENS_ARCHIVE``; ``--db`` is copied to where
the app looks for the folder's index, so a large archive need not be indexed
again), and :mod:`benchmarks.trivial_filter_app` (a checkbox and a
``N of M runs match`` caption). One headless Chromium (Debian's, driven by
Playwright; every request beyond 127.0.0.1 aborted) holds a page on each.

One toggle is: wait until the page is idle, click "Only runs with a failed
tool", and time in the page from the click event to

- **caption**: the first animation frame after a new ``… runs match`` caption
  is in the DOM (the count the user asked for), and
- **done**: the first frame after the script run has ended with nothing stale
  left on the page (on the Archive page: the charts and the table of that
  filter are in).

The pages take turns in rounds; figures are medians over all toggles, and the
ratios those of the medians. Results go to stdout and, with ``--json``, to a
file.
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

from benchmarks.bench_browser import (APP_CONNECTED, APP_IDLE, CHROMIUM, CHROMIUM_ARGS,
                                      LENS_APP, RUNNING_ICON, SETTLE_MS, WAIT_MS, _local_only,
                                      _server)
from benchmarks.timing import median, percentile

TRIVIAL_FILTER_APP = Path(__file__).resolve().parent / "trivial_filter_app.py"
TARGET = 1.5
CAPTION = '[data-testid="stCaptionContainer"]'
ARCHIVE_PATH = "/run_archive"
INDEX_WAIT_MS = 600_000

PROBE = """
() => {
  if (window.__filter) return;
  const b = window.__filter = {before: null, t0: null, seen: null, shown: null,
                               done: null, doneShown: null};
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
    if (b.seen !== null && b.done === null && idle()) {
      b.done = performance.now();
      requestAnimationFrame(() => { b.doneShown = performance.now(); });
    }
  };
  window.__filterCaption = caption;
  new MutationObserver(check).observe(document.body,
    {subtree: true, childList: true, characterData: true, attributes: true});
}
""" % (CAPTION, APP_IDLE, RUNNING_ICON)


class FilterPage:
    """A page on one app, toggling its failed-tools filter and timing each toggle."""

    def __init__(self, browser, server, name: str, checkbox: str) -> None:
        self.name, self.checkbox = name, checkbox
        self.context = browser.new_context(viewport={"width": 1280, "height": 720},
                                           base_url=server.url, accept_downloads=False)
        self.context.set_default_timeout(WAIT_MS)
        self.context.route("**/*", _local_only)
        self.page = self.context.new_page()
        self.caption_ms: list[float] = []
        self.done_ms: list[float] = []

    def open(self, path: str, ready: str) -> str:
        page = self.page
        page.goto(path)
        page.wait_for_function(
            "(ready) => [...document.querySelectorAll('%s')].some("
            "e => (e.textContent || '').includes(ready))" % CAPTION,
            arg=ready, timeout=INDEX_WAIT_MS)
        self.wait_idle()
        page.evaluate(PROBE)
        return page.evaluate("() => window.__filterCaption()")

    def wait_idle(self) -> None:
        page = self.page
        page.wait_for_timeout(SETTLE_MS)
        page.wait_for_selector(APP_CONNECTED, state="attached", timeout=WAIT_MS)
        page.wait_for_selector(APP_IDLE, state="attached", timeout=WAIT_MS)
        page.wait_for_selector(RUNNING_ICON, state="detached", timeout=WAIT_MS)
        page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')",
                               timeout=WAIT_MS)

    def toggle(self) -> str:
        page = self.page
        before = page.evaluate("() => window.__filterCaption()")
        page.evaluate("(before) => Object.assign(window.__filter, {before, t0: null, "
                      "seen: null, shown: null, done: null, doneShown: null})", before)
        page.locator(f".{self.checkbox} label").click()
        page.wait_for_function("() => window.__filter.doneShown !== null", timeout=WAIT_MS)
        t0, shown, done = page.evaluate(
            "() => [window.__filter.t0, window.__filter.shown, window.__filter.doneShown]")
        if t0 is None:
            raise RuntimeError(f"{self.name}: the click was not seen by the page")
        self.caption_ms.append(shown - t0)
        self.done_ms.append(done - t0)
        self.wait_idle()
        return page.evaluate("() => window.__filterCaption()")

    def summary(self) -> dict:
        return {"toggles": len(self.caption_ms),
                "caption_median_ms": round(median(self.caption_ms), 1),
                "caption_p95_ms": round(percentile(self.caption_ms, 0.95), 1),
                "done_median_ms": round(median(self.done_ms), 1),
                "done_p95_ms": round(percentile(self.done_ms, 0.95), 1),
                "caption_all_ms": [round(t, 1) for t in self.caption_ms],
                "done_all_ms": [round(t, 1) for t in self.done_ms]}


def measure(folder: Path, db: Path | None, toggles: int, rounds: int,
            other: tuple[Path, str] | None = None) -> dict:
    """``other`` (an app file and its Archive page's path) adds a third page on
    another build of Lens, e.g. the one before a change, in the same rounds."""
    from playwright.sync_api import sync_playwright

    from archive.database import default_db_path

    work = Path(tempfile.mkdtemp(prefix="lens-bench-archive-browser-"))
    saved = {k: os.environ.get(k) for k in ("FOOTPRINT_LENS_ARCHIVE", "FOOTPRINT_LENS_CACHE")}
    try:
        os.environ["FOOTPRINT_LENS_ARCHIVE"] = str(folder)
        os.environ["FOOTPRINT_LENS_CACHE"] = str(work / "cache")
        if db is not None:
            target = default_db_path(folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(db, target)
        with ExitStack() as stack:
            trivial = stack.enter_context(_server(TRIVIAL_FILTER_APP, "trivial-filter"))
            lens = stack.enter_context(_server(LENS_APP, "lens-archive"))
            apps = {"archive": (lens, ARCHIVE_PATH)}
            if other is not None:
                # Each build indexes its own copy: two servers cannot share one writer.
                cache = work / "cache-other"
                if db is not None:
                    target = cache / default_db_path(folder).relative_to(work / "cache")
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(db, target)
                os.environ["FOOTPRINT_LENS_CACHE"] = str(cache)
                other_server = stack.enter_context(_server(other[0], "lens-archive-other"))
                apps["archive (other build)"] = (other_server, other[1])
            playwright = stack.enter_context(sync_playwright())
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                 args=CHROMIUM_ARGS)
            try:
                pages = {"trivial": FilterPage(browser, trivial, "trivial", "st-key-failed")}
                opened = {"trivial": pages["trivial"].open("/", "runs match")}
                for name, (server, path) in apps.items():
                    pages[name] = FilterPage(browser, server, name, "st-key-lens-archive-failed")
                    opened[name] = pages[name].open(path, "runs match")
                    # "Indexed …" once the page's pass over the folder has ended
                    pages[name].page.wait_for_function(
                        "() => [...document.querySelectorAll('%s')].some("
                        "e => (e.textContent || '').startsWith('Indexed '))" % CAPTION,
                        timeout=INDEX_WAIT_MS)
                    pages[name].wait_idle()
                for page in pages.values():  # unmeasured: first-use costs
                    page.toggle()
                    page.toggle()
                    page.caption_ms.clear()
                    page.done_ms.clear()
                names = list(pages)
                for number in range(rounds):
                    shift = number % len(names)
                    for name in names[shift:] + names[:shift]:
                        for _ in range(toggles):
                            pages[name].toggle()
                pages["archive"].page.screenshot(path=str(work / "archive.png"))
                shutil.copy(work / "archive.png", Path(tempfile.gettempdir()) /
                            "lens-bench-archive-browser.png")
                cases = {name: page.summary() for name, page in pages.items()}
            finally:
                browser.close()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(work, ignore_errors=True)
    trivial = cases["trivial"]
    ratios = {name: {"caption": round(case["caption_median_ms"] / trivial["caption_median_ms"], 3),
                     "done": round(case["done_median_ms"] / trivial["done_median_ms"], 3)}
              for name, case in cases.items() if name != "trivial"}
    return {"folder": str(folder), "opened_caption": opened["archive"], "cases": cases,
            "ratios": ratios, "load_average": os.getloadavg(),
            "target": f"archive <= {TARGET} x trivial (done: the filter's table and charts in)",
            "met": ratios["archive"]["done"] <= TARGET}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_archive_browser")
    parser.add_argument("--folder", required=True, help="the archive folder the app is given")
    parser.add_argument("--db", help="an index of that folder to start from (copied)")
    parser.add_argument("--toggles", type=int, default=10, help="per page per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the result to this file")
    parser.add_argument("--other-app", help="another build's lens_app.py, measured alongside")
    parser.add_argument("--other-page", default="/archive",
                        help="that build's Archive page path (default /archive)")
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} not found", file=sys.stderr)
        return 2
    other = (Path(args.other_app).resolve(), args.other_page) if args.other_app else None
    result = measure(Path(args.folder).resolve(), Path(args.db) if args.db else None,
                     args.toggles, args.rounds, other)
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

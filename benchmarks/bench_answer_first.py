"""What a person waits for after an upload: the first screen, and the first open of
"Why this skill?", Timeline and Backtrack.

    python -m benchmarks.bench_answer_first [--runs N] [--json FILE]

One Lens server (``lens_app.py``) and the trivial app (``trivial_app.py``) on free
127.0.0.1 ports, one headless Chromium at 1280×720 (every request beyond 127.0.0.1
aborted). For each family run (``tests/data/families``, the recordings), in a fresh
page, so in a fresh session:

- **first screen**: on a settled page (the chart code the page warms has loaded: a
  person choosing a file takes longer), from the file input's ``change`` event (the
  upload) to the first animation frame after the new run's bar (its digest) and its
  outcome sentence (the words ``footprint-lens info`` gives as ``outcome.sentence``, up
  to their first quoted value) are on the page, and to the frame after the script run
  has ended with nothing stale; beside it, not judged, the same upload at once after
  the page opens, in a page of its own (``first_screen_at_once_ms``);
- **Why this skill?**, **Timeline**, **Backtrack**: from the click on the view's
  button to the first frame after that view is drawn (the script run has ended,
  nothing is stale, and a chart the view holds has drawn its SVG; the run's end is the
  server's script_finished message, read off the websocket). Each is the
  view's first open in the session; Steps is chosen again between them, unmeasured.

Beside it, not judged: the trivial app's Next button, click to the frame after its
new label (the least a Streamlit rerun that changes the screen costs), once per run.
Figures are medians over the runs; targets are the issue's (first screen ≤ 1.5 s,
each view ≤ 1 s).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import tempfile
from contextlib import ExitStack
from pathlib import Path

from benchmarks.bench_browser import (APP_IDLE, CHROMIUM, CHROMIUM_ARGS, LENS_APP, LOG_DIR,
                                      RUNNING_ICON, START_TIMEOUT_S, TRIVIAL_APP, WAIT_MS,
                                      _local_only, wait_idle)
from benchmarks.timing import median, percentile
from tests.family_files import family_names, family_recording
from tests.streamlit_server import StreamlitServer

FIRST_SCREEN_TARGET_MS = 1500
VIEW_TARGET_MS = 1000
VIEWS = ("Why this skill?", "Timeline", "Backtrack")
VIEWPORT = {"width": 1280, "height": 720}
VIEW_BUTTONS = '[data-testid="stMain"] [data-testid="stButtonGroup"]:not([data-stale="true"])'
UPLOADER = ".st-key-lens-uploader input[type=file]"
SENTENCE_CHARS = 90  # of the sentence, short of any quote and of the 104 the page shows
# The warm-up chart (lens_ui/chart_warmup.py) has drawn: the browser holds the chart code.
CHART_CODE_IN = '.st-key-lens-chart-warmup svg.main-svg'


# Installed before the page's scripts: notes each script_finished message the
# server sends (ForwardMsg field 6; status 2, "finished early for a rerun", is
# not an end), and the frame after it. A run's end is read from the wire, not
# from the page's running state: under load the browser may apply a whole
# script run in one render, so the page is never seen "running" and its idle
# state before the action cannot be told from the one after it.
WIRE = """
(() => {
  const wire = window.__wire = {finished: 0, framed: 0};
  const scriptFinished = (bytes) => {
    let i = 0;
    const varint = () => { let v = 0, m = 1, b;
      do { b = bytes[i++]; v += (b & 0x7f) * m; m *= 128; } while (b & 0x80 && i < bytes.length);
      return v; };
    while (i < bytes.length) {
      const tag = varint(), field = Math.floor(tag / 8), type = tag & 7;
      if (field === 6 && type === 0) return varint() !== 2;
      if (type === 0) varint();
      else if (type === 2) { const n = varint(); i += n; }
      else if (type === 1) i += 8;
      else if (type === 5) i += 4;
      else return false;
    }
    return false;
  };
  const seen = (data) => {
    if (!(data instanceof ArrayBuffer) || !scriptFinished(new Uint8Array(data))) return;
    const count = ++wire.finished;
    requestAnimationFrame(() => { wire.framed = Math.max(wire.framed, count);
                                  if (window.__first) window.__first.check(); });
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args);
      this.addEventListener('message', (event) => seen(event.data)); }
  };
})();
"""

PROBE = """
() => {
  if (window.__first) return;
  const b = window.__first = {want: null, mark: null, armed: false, t0: null, seen: null,
                              shown: null, done: null, doneShown: null, chart: false,
                              finishedBefore: 0};
  const wire = window.__wire;
  const start = () => { if (b.armed && b.t0 === null) {
      b.t0 = performance.now(); b.finishedBefore = wire.finished; } };
  document.addEventListener('change', start, true);
  document.addEventListener('click', start, true);
  const idle = () => document.querySelector('%s') && !document.querySelector('%s')
      && !document.querySelector('[data-stale="true"]');
  const leafWith = (scope, text) => {
    for (const el of document.querySelectorAll(scope + ' *')) {
      if (el.children.length || el.closest('[data-stale="true"]')) continue;
      if ((el.textContent || '').includes(text)) return true;
    }
    return false;
  };
  // The upload's first screen: its run bar names the new file (its digest's
  // start), so an old run whose sentence begins with the same words is not taken for it.
  const wanted = () => b.want === null || ((b.mark === null
      || [...document.querySelectorAll('.st-key-lens-run-bar [data-testid="stText"]')].some(
          el => !el.closest('[data-stale="true"]') && el.textContent.includes(b.mark)))
      && leafWith('[data-testid="stMain"]', b.want));
  const charted = () => !b.chart || [...document.querySelectorAll(
      '[data-testid="stMain"] [data-testid="stPlotlyChart"]')].some(
      c => !c.closest('[data-stale="true"]') && c.querySelector('svg.main-svg'));
  // The action's own script run has ended, and a frame has been drawn since.
  const ended = () => wire.framed > b.finishedBefore;
  const check = () => {
    if (b.t0 === null) return;
    if (b.seen === null && (b.want !== null || ended()) && wanted() && charted()) {
      b.seen = performance.now();
      requestAnimationFrame(() => { b.shown = performance.now(); });
    }
    if (b.seen !== null && b.done === null && ended() && idle() && charted()) {
      b.done = performance.now();
      requestAnimationFrame(() => { b.doneShown = performance.now(); });
    }
  };
  b.check = check;
  new MutationObserver(check).observe(document.body,
    {subtree: true, childList: true, characterData: true, attributes: true});
}
""" % (APP_IDLE, RUNNING_ICON)


def outcome_words(data: bytes) -> str:
    """The start of the run's outcome sentence as the first screen says it: up to its
    first quoted value (quotes may be drawn differently), at most SENTENCE_CHARS."""
    from lens.run import open_run

    run = open_run(data)
    facts = getattr(run, "facts", None)
    sentence = facts.outcome.sentence if facts is not None else _headline(run)
    words = re.split(r"[“”\"'‘’«]", sentence, maxsplit=1)[0]
    return words[:SENTENCE_CHARS].rstrip()


def digest_mark(data: bytes) -> str:
    """What the run bar shows of an upload's sha256 (lens/run_label.py's short digest)."""
    from lens.run_label import SHORT_DIGEST

    return hashlib.sha256(data).hexdigest()[:SHORT_DIGEST]


def _headline(run) -> str:
    from lens.evidence.outcome import run_outcome

    return run_outcome(run.evidence, run.recording).headline


class FirstScreenPage:
    """One fresh page on the Lens app: an upload, then each view opened once."""

    def __init__(self, browser, server: StreamlitServer, charted: frozenset[str]) -> None:
        self.charted = charted  # the views that draw a chart for this run
        self.context = browser.new_context(viewport=VIEWPORT, base_url=server.url,
                                           accept_downloads=False)
        self.context.set_default_timeout(WAIT_MS)
        self.context.route("**/*", _local_only)
        self.context.add_init_script(WIRE)
        self.page = self.context.new_page()

    def _arm(self, want: str | None, mark: str | None = None, chart: bool = False) -> None:
        self.page.evaluate("([want, mark, chart]) => Object.assign(window.__first, {want, mark, "
                           "chart, armed: true, t0: null, seen: null, shown: null, done: null, "
                           "doneShown: null})", [want, mark, chart])

    def _times(self, what: str) -> tuple[float, float]:
        page = self.page
        page.wait_for_function("() => { window.__first.check(); "
                               "return window.__first.doneShown !== null; }",
                               timeout=WAIT_MS // 4, polling=50)
        t0, shown, done = page.evaluate(
            "() => [window.__first.t0, window.__first.shown, window.__first.doneShown]")
        if t0 is None:
            raise RuntimeError(f"{what}: the page did not see the action start")
        page.evaluate("() => { window.__first.armed = false; }")
        wait_idle(page)
        return shown - t0, done - t0

    def upload(self, path: Path, sentence: str, settled: bool = True) -> tuple[float, float]:
        """The upload, by default on a settled page: a person choosing a file takes
        longer than the browser takes to load the chart code the page warms
        (``settled=False``: at once, while it may still be loading)."""
        page = self.page
        page.goto("/")
        wait_idle(page)
        if settled:
            page.wait_for_selector(CHART_CODE_IN, state="attached", timeout=WAIT_MS)
            wait_idle(page)
        page.evaluate(PROBE)
        self._arm(sentence, digest_mark(path.read_bytes()))
        page.locator(UPLOADER).set_input_files(str(path))
        return self._times(f"upload of {path.name}")

    def open_view(self, name: str) -> tuple[float, float]:
        page = self.page
        chart = name in self.charted
        self._arm(None, chart=chart)
        page.locator(VIEW_BUTTONS).get_by_role("radio", name=name, exact=True).first.click()
        times = self._times(name)
        page.locator(VIEW_BUTTONS).get_by_role("radio", name="Steps", exact=True).first.click()
        wait_idle(page)
        return times

    def close(self) -> None:
        self.context.close()


def _views_with_charts(data: bytes) -> frozenset[str]:
    """Which views draw a chart for this run (a run without a route shows a note)."""
    from lens.run import open_run
    from lens.timeline import build_timeline

    run = open_run(data)
    charted = set()
    if run.projection("lens").route.get_hops():
        charted.add("Why this skill?")
    if build_timeline(run.evidence).spans:
        charted.add("Timeline")
    return frozenset(charted)


def trivial_click(browser, server: StreamlitServer) -> float:
    """The trivial app's Next button: click to the frame after its new label."""
    context = browser.new_context(viewport=VIEWPORT, base_url=server.url)
    context.route("**/*", _local_only)
    context.add_init_script(WIRE)
    page = context.new_page()
    try:
        page.goto("/")
        wait_idle(page)
        page.evaluate(PROBE)
        label = page.locator('[data-testid="stText"]').first.inner_text()
        number = int(label.split()[1])
        page.evaluate("(want) => Object.assign(window.__first, {want, mark: null, chart: false,"
                      " armed: true, t0: null, seen: null, shown: null, done: null, "
                      "doneShown: null})", f"step {number + 1} of")
        page.get_by_role("button", name="Next").click()
        page.wait_for_function("() => { window.__first.check(); "
                               "return window.__first.shown !== null; }", timeout=WAIT_MS)
        t0, shown = page.evaluate("() => [window.__first.t0, window.__first.shown]")
        return shown - t0
    finally:
        context.close()


def measure(runs: int | None) -> dict:
    from playwright.sync_api import sync_playwright

    names = family_names()[:runs] if runs else family_names()
    work = Path(tempfile.mkdtemp(prefix="lens-bench-answer-first-"))
    cases = []
    failed: list[dict] = []
    trivial_ms = []
    with ExitStack() as stack:
        lens = stack.enter_context(StreamlitServer(
            app=LENS_APP, cwd=LENS_APP.parent, log_path=LOG_DIR / "streamlit-answer-first.log",
            start_timeout_s=START_TIMEOUT_S))
        trivial = stack.enter_context(StreamlitServer(
            app=TRIVIAL_APP, cwd=TRIVIAL_APP.parent,
            log_path=LOG_DIR / "streamlit-trivial-answer-first.log",
            start_timeout_s=START_TIMEOUT_S))
        playwright = stack.enter_context(sync_playwright())
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
        try:
            for name in names:
                data = gzip.decompress(family_recording(name).read_bytes())
                path = work / f"{name}.json"  # uploaded as a person would: the plain JSON
                path.write_bytes(data)
                page = FirstScreenPage(browser, lens, _views_with_charts(data))
                try:
                    try:
                        shown, done = page.upload(path, outcome_words(data))
                    except Exception as error:  # said in the figures, not hidden
                        state = page.page.evaluate("() => JSON.stringify(window.__first)")
                        failed.append({"run": name, "error": str(error).splitlines()[0],
                                       "probe": state})
                        continue
                    case = {"run": name, "first_screen_ms": round(shown, 1),
                            "first_screen_done_ms": round(done, 1)}
                    for view in VIEWS:
                        try:
                            view_shown, view_done = page.open_view(view)
                        except Exception as error:  # said in the figures, not hidden
                            failed.append({"run": name, "view": view,
                                           "error": str(error).splitlines()[0], "probe": None})
                            break  # the page's state is not known any more
                        case[f"{view}_ms"] = round(view_done, 1)
                    at_once = FirstScreenPage(browser, lens, frozenset())
                    try:  # the same upload at once after the page opens: said beside, not judged
                        case["first_screen_at_once_ms"] = round(
                            at_once.upload(path, outcome_words(data), settled=False)[0], 1)
                    except Exception as error:  # said in the figures, not hidden
                        failed.append({"run": name, "view": "upload at once",
                                       "error": str(error).splitlines()[0], "probe": None})
                    finally:
                        at_once.close()
                    if name == names[0]:
                        page.page.screenshot(path=str(work / "first-screen.png"))
                finally:
                    page.close()
                cases.append(case)
                trivial_ms.append(trivial_click(browser, trivial))
        finally:
            browser.close()
    columns = ["first_screen_ms", "first_screen_done_ms", "first_screen_at_once_ms",
               *(f"{view}_ms" for view in VIEWS)]
    summary = {}
    for column in columns:
        values = [c[column] for c in cases if c.get(column) is not None]
        summary[column] = {"n": len(values),
                           "median_ms": round(median(values), 1) if values else None,
                           "p95_ms": round(percentile(values, 0.95), 1) if values else None,
                           "max_ms": max(values) if values else None}
    def within(column: str, target: float) -> bool | None:
        value = summary[column]["median_ms"]
        return None if value is None else value <= target

    met = {"first screen": within("first_screen_ms", FIRST_SCREEN_TARGET_MS),
           **{view: within(f"{view}_ms", VIEW_TARGET_MS) for view in VIEWS}}
    return {"runs": len(cases), "failed": failed, "summary": summary, "met": met,
            "trivial_click_median_ms": round(median(trivial_ms), 1), "cases": cases,
            "load_average": os.getloadavg(), "screenshot": str(work / "first-screen.png")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_answer_first")
    parser.add_argument("--runs", type=int, help="only the first N family runs")
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args(argv)
    result = measure(args.runs)
    for column, figures in result["summary"].items():
        if figures["median_ms"] is None:
            print(f"{column:24} not measured")
            continue
        print(f"{column:24} median {figures['median_ms']:8.1f} ms  p95 {figures['p95_ms']:8.1f}"
              f"  max {figures['max_ms']:8.1f}  (n={figures['n']})")
    print(f"trivial app click         median {result['trivial_click_median_ms']:8.1f} ms")
    for failure in result["failed"]:
        print(f"not measured: {failure['run']} {failure.get('view', 'upload')}: "
              f"{failure['error']} (probe {failure['probe']})")
    print("targets met:", ", ".join(f"{k}: {'-' if v is None else 'yes' if v else 'no'}" for k, v in
                                    result["met"].items()))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

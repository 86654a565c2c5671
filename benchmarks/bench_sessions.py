"""Load test: several browser sessions on different large runs at once.

Run on purpose (never in the unit suite), against 127.0.0.1 only::

    python -m benchmarks.bench_sessions [--sessions 6] [--seconds 180] [--hostile]
        [--baseline-seconds 60] [--json /tmp/sessions.json]

Starts ``streamlit run lens_app.py`` on a free local port, opens N Chromium
pages (one browser context each, so N server sessions), has each upload a
different large recording (the two large corpus runs and scaled copies of
the first) and then step with Next, wrapping to First at the end, for the
given time. Each step is timed from the click to the new step label. With
``--hostile``, a further session uploads a gzip bomb and a gzipped file
whose one string is 400 MB, in the middle of the run; both must be refused
with a message while the others keep stepping.

First (``--baseline-seconds``, default 60) one session steps alone on the
first file, on the same server, so the N-session figures have their
single-session comparison measured in the same run.

Reports p50/p95/max step latency, the steps taken, the server's peak
resident memory (sampled every 0.25 s from /proc) against its budget, and
every error: a step that did not land within 60 s, an exception shown, an
upload not refused. Results go to ``benchmarks/results/sessions*.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import re
import statistics
import tempfile
import time
from pathlib import Path

from playwright.async_api import expect

from benchmarks.bench_browser import CHROMIUM_ARGS
from benchmarks.inputs import REPO, corpus_path, scaled_path
from recorders.counting import counted
from tests.hostile_files import write_gzip_bomb, write_long_string
from tests.streamlit_server import PeakMemory, StreamlitServer

CHROMIUM = "/usr/bin/chromium"
STEP_LABEL = re.compile(r"^step (\d+) of (\d+)")
STEP_TIMEOUT_MS = 60_000
MB = 1024 * 1024


def inputs(count: int) -> list[Path]:
    """``count`` different large recordings (JSON files on disk)."""
    files = [corpus_path("large-agent-300-tool-calls"), corpus_path("large-loop-of-parallel")]
    factor = 2
    while len(files) < count:
        files.append(scaled_path(factor))
        factor += 1
    return files[:count]


def hostile_files(folder: Path) -> list[Path]:
    """The issue's reproducers: a 4 GiB gzip bomb and a 400 MB-string .json.gz."""
    folder.mkdir(parents=True, exist_ok=True)
    return [write_gzip_bomb(folder / "bomb.json.gz"),
            write_long_string(folder / "long-string.json.gz")]


async def step_label(page) -> str:
    locator = page.locator('[data-testid="stMain"] [data-testid="stText"]').filter(
        has_text=STEP_LABEL).first
    await locator.wait_for(timeout=STEP_TIMEOUT_MS)
    return (await locator.inner_text()).strip()


async def wait_label_change(page, before: str) -> str:
    deadline = time.monotonic() + STEP_TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        label = await step_label(page)
        if label != before:
            return label
        await asyncio.sleep(0.01)
    raise TimeoutError(f"the step label stayed {before!r}")


async def upload(page, path: Path) -> None:
    await page.locator(".st-key-lens-uploader input[type=file]").set_input_files(
        str(path), timeout=STEP_TIMEOUT_MS * 3)  # six pages loading at once can be slow


async def session(browser, url: str, path: Path, until: float, result: dict) -> None:
    context = await browser.new_context(viewport={"width": 1280, "height": 720}, base_url=url)
    page = await context.new_page()
    try:
        await page.goto("/")
        await step_label(page)
        started = time.perf_counter()
        await upload(page, path)
        picker = page.locator(".st-key-lens-run_select").get_by_role("combobox")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:8]
        await expect(picker).to_have_value(re.compile("^⬆ .* · " + digest + " · "),
                                           timeout=180_000)
        result["open_s"] = round(time.perf_counter() - started, 2)
        label = await step_label(page)
        while time.monotonic() < until:
            number, count = map(int, STEP_LABEL.match(label).groups())
            key = "lens-next" if number < count else "lens-first"
            button = page.locator(f".st-key-{key} button").filter(visible=True)
            start = time.perf_counter()
            await button.click()
            label = await wait_label_change(page, label)
            result["steps_ms"].append((time.perf_counter() - start) * 1000)
        shown = await page.locator('[data-testid="stException"]').count()
        if shown:
            result["errors"].append(f"{counted(shown, 'exception')} on the page")
    except Exception as error:  # noqa: BLE001 (every failure is a counted error)
        result["errors"].append(f"{type(error).__name__}: {str(error)[:300]}")
        await page.screenshot(path=str(REPO / "benchmarks" / "results" / f"FAILED-{path.stem}.png"))
    finally:
        await context.close()


async def hostile_session(browser, url: str, files: list[Path], at: float, result: dict) -> None:
    await asyncio.sleep(max(0.0, at - time.monotonic()))
    context = await browser.new_context(viewport={"width": 1280, "height": 720}, base_url=url)
    page = await context.new_page()
    try:
        await page.goto("/")
        await step_label(page)
        for path in files:
            started = time.perf_counter()
            await upload(page, path)
            error = page.locator('[data-testid="stSidebar"] [data-testid="stAlertContentError"]')
            refused = error.filter(has_text=f"Could not open {path.name}")
            await refused.first.wait_for(timeout=180_000)
            message = await refused.first.inner_text()
            if path.name not in message:
                result["errors"].append(f"hostile: the refusal shown for {path.name} names "
                                        "another file")
            result["refusals"].append({"file": path.name,
                                       "refused_in_s": round(time.perf_counter() - started, 2),
                                       "message": message[:200]})
    except Exception as error:  # noqa: BLE001
        result["errors"].append(f"hostile: {type(error).__name__}: {str(error)[:300]}")
    finally:
        await context.close()


def _result(path: Path) -> dict:
    return {"file": path.name, "mb": round(path.stat().st_size / 1e6, 1), "steps_ms": [],
            "errors": []}


async def drive(url: str, files: list[Path], seconds: float, hostile: list[Path],
                baseline_s: float) -> dict:
    from playwright.async_api import async_playwright

    results = [_result(f) for f in files]
    baseline = _result(files[0])
    hostile_result: dict = {"refusals": [], "errors": []}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                   args=CHROMIUM_ARGS)
        if baseline_s > 0:  # one session alone first: the figure the others are compared with
            await session(browser, url, files[0], time.monotonic() + baseline_s, baseline)
        until = time.monotonic() + seconds
        jobs = [session(browser, url, f, until, r) for f, r in zip(files, results)]
        if hostile:
            jobs.append(hostile_session(browser, url, hostile, time.monotonic() + seconds / 2,
                                        hostile_result))
        await asyncio.gather(*jobs)
        await browser.close()
    return {"sessions": results, "hostile": hostile_result if hostile else None,
            "baseline": baseline if baseline_s > 0 else None}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--hostile", action="store_true")
    parser.add_argument("--budget-mb", type=int, default=4096)
    parser.add_argument("--baseline-seconds", type=float, default=60.0,
                        help="first, one session alone on the first file for this long "
                             "(its open included; 0: none), on the same server")
    parser.add_argument("--json", type=Path, default=None,
                        help="write the summary here instead of benchmarks/results/")
    args = parser.parse_args(argv)
    files = inputs(args.sessions)
    hostile = hostile_files(Path(tempfile.gettempdir()) / "footprint-lens-benchmarks") \
        if args.hostile else []
    os.environ["LENS_MEMORY_BUDGET_MB"] = str(args.budget_mb)
    log = REPO / "benchmarks" / "results" / "sessions-server.log"
    with StreamlitServer(app=REPO / "lens_app.py", cwd=REPO, log_path=log) as server, \
            PeakMemory(server.process.pid, interval_s=0.25) as memory:
        outcome = asyncio.run(drive(server.url, files, args.seconds, hostile,
                                    args.baseline_seconds))
    steps = [ms for s in outcome["sessions"] for ms in s["steps_ms"]]
    errors = [e for s in outcome["sessions"] for e in s["errors"]]
    alone = outcome["baseline"]["steps_ms"] if outcome["baseline"] else []
    if outcome["baseline"]:
        errors += [f"baseline: {e}" for e in outcome["baseline"]["errors"]]
    if outcome["hostile"]:
        errors += outcome["hostile"]["errors"]
        if len(outcome["hostile"]["refusals"]) != len(hostile):
            errors.append("a hostile file was not refused")
    summary = {
        "sessions": args.sessions, "seconds": args.seconds, "hostile": args.hostile,
        "files_mb": [s["mb"] for s in outcome["sessions"]],
        "open_s": [s.get("open_s") for s in outcome["sessions"]],
        "steps": len(steps),
        "step_ms_p50": round(statistics.median(steps), 1) if steps else None,
        "step_ms_p95": round(percentile(steps, 0.95), 1),
        "step_ms_max": round(max(steps), 1) if steps else None,
        "single_session": {
            "file": files[0].name, "seconds": args.baseline_seconds, "steps": len(alone),
            "step_ms_p50": round(statistics.median(alone), 1) if alone else None,
            "step_ms_p95": round(percentile(alone, 0.95), 1),
        } if alone else None,
        "p50_ratio_to_single_session": (round(statistics.median(steps) / statistics.median(alone),
                                              2) if alone and steps else None),
        "server_peak_mb": round(memory.peak_bytes / MB),
        "budget_mb": args.budget_mb,
        "errors": errors,
        "refusals": outcome["hostile"]["refusals"] if outcome["hostile"] else [],
    }
    name = "sessions-hostile.json" if args.hostile else "sessions.json"
    target = args.json or REPO / "benchmarks" / "results" / name
    target.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Measurement 7: sharing a run as one HTML page (``footprint-lens export html``).

For the large corpus run and its 20× copy (``scale_recording.py``), side by
side in the same rounds: opening the file (``lens.run.open_run``), and
exporting it (open, then :func:`lens.share.html.export_run`: the page's data
and the page). Also the page's size against the file's (bound: the file + 4
MB), exporting with ``--redact`` (the file redacted as ``export recording``
writes it, then the page), and the time the page takes to open from
``file://`` in headless Chromium, from navigation to the step label drawn
(target ≤ 2 s).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from time import perf_counter

from benchmarks.inputs import SCALE_SOURCE, corpus_bytes, scaled_path
from benchmarks.timing import median, ms, side_by_side
from lens.run import open_run
from lens.share.html import export_file_bytes, export_run

MB = 1024 * 1024
SIZE_BOUND_BYTES = 4 * MB
OPEN_TARGET_S = 2.0
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def _inputs() -> dict[str, bytes]:
    return {"1x": corpus_bytes(SCALE_SOURCE), "20x": scaled_path(20).read_bytes()}


def measure_share(repeat: int, browser_opens: int) -> dict:
    from lens.share.redaction import Redactor

    results: dict = {}
    folder = Path(tempfile.mkdtemp(prefix="lens-share-bench-"))
    for name, data in _inputs().items():
        times = side_by_side({
            "open": lambda: open_run(data),
            "export": lambda: export_run(open_run(data), "recording.json"),
            "export_redacted": lambda: export_file_bytes(data, "recording.json",
                                                         redactor=Redactor()),
        }, repeat)
        exported = export_run(open_run(data), "recording.json")
        page = folder / f"{name}.html"
        page.write_text(exported.html, encoding="utf-8")
        opens = _browser_opens(page, browser_opens)
        results[name] = {
            "file_bytes": len(data),
            "page_bytes": exported.size,
            "page_over_file": round(exported.size / len(data), 3),
            "size_bound_met": exported.size <= len(data) + SIZE_BOUND_BYTES,
            "open_ms": ms(median(times["open"])),
            "export_ms": ms(median(times["export"])),
            "export_redacted_ms": ms(median(times["export_redacted"])),
            "export_over_open": round(median(times["export"]) / median(times["open"]), 2),
            "parts_ms": {part: ms(seconds) for part, seconds in exported.timings.items()},
            "browser_open_ms": ms(median(opens)) if opens else None,
            "browser_open_max_ms": ms(max(opens)) if opens else None,
            "browser_open_met": (max(opens) <= OPEN_TARGET_S) if opens else None,
        }
    return results


def _browser_opens(page: Path, count: int) -> list[float]:
    """Seconds from navigation to the step label drawn, each in a fresh page."""
    if not Path(CHROMIUM).exists() or count <= 0:
        return []
    from playwright.sync_api import sync_playwright

    seconds = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=CHROMIUM_ARGS)
        for _ in range(count + 1):  # the first warms the browser up and is not counted
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            tab = context.new_page()
            started = perf_counter()
            tab.goto(page.as_uri())
            tab.wait_for_selector("#step-label")
            seconds.append(perf_counter() - started)
            context.close()
        browser.close()
    return seconds[1:]

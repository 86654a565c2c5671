"""Browser tests: the real app in headless Debian Chromium, driven by Playwright.

One Streamlit server and one browser per session; a fresh browser context
(own session, own cookies) per test. Every test's page is guarded: requests
to any host other than 127.0.0.1/localhost are counted and aborted, dialogs
are recorded and dismissed, popups recorded; after the test, any of those
fails it. Chromium is also pointed at a refusing proxy (the egress sentinel)
so non-local traffic that escapes page interception is counted too.

The tests are marked ``browser`` and skipped only when /usr/bin/chromium is
absent. Run: ``python -m pytest tests/browser -q -m browser``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from lens_browser import (APP, BROWSER_ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, FIGURES, REPO,
                          SCREENSHOTS, VIEWPORT, EgressSentinel, PageGuard, StreamlitServer)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: drives the real app in headless Chromium (needs /usr/bin/chromium)")


def pytest_collection_modifyitems(config, items):
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} not found: the browser tests drive Debian's "
                                   "chromium package (apt-get install chromium)")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


def pytest_terminal_summary(terminalreporter):
    if not FIGURES["tests"]:
        return
    tests = FIGURES["tests"].values()
    write = terminalreporter.write_line
    write("")
    write("browser figures (test-artifacts/browser/figures.json):")
    write(f"  guarded pages: {len(FIGURES['tests'])}; local requests served: "
          f"{sum(t['local_requests'] for t in tests)}; non-local requests blocked: "
          f"{sum(t['non_local_requests_blocked'] for t in tests)}; dialogs: "
          f"{sum(len(t['dialogs']) for t in tests)}; popups: "
          f"{sum(len(t['popups']) for t in tests)}; console errors: "
          f"{sum(len(t['console_errors']) for t in tests)}")
    hits = FIGURES["egress_sentinel_hits"]
    write(f"  Chromium's own non-local traffic (egress sentinel, refused): {len(hits)} "
          f"{dict(Counter(_host(hit) for hit in hits))}")
    for name, value in sorted(FIGURES["notes"].items()):
        write(f"  {name}: {value}")
    for name, values in sorted(FIGURES["latency_ms"].items()):
        ordered = sorted(values)
        write(f"  {name}: n={len(values)} median={ordered[len(ordered) // 2]:.0f} ms "
              f"max={ordered[-1]:.0f} ms")


def _host(request_line: str) -> str:
    """``CONNECT host:443 HTTP/1.1`` or ``GET http://host/path HTTP/1.1`` → host."""
    parts = request_line.split()
    target = parts[1] if len(parts) > 1 else request_line
    if "://" in target:
        target = target.split("://", 1)[1]
    return target.split("/", 1)[0].rsplit(":", 1)[0]


# ─── Session fixtures ──────────────────────────────────────────────────


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob("*.png"):  # this run's pictures only
        old.unlink()
    BROWSER_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture(scope="session")
def lens_server(screenshot_dir):
    if not APP.exists():
        pytest.fail(f"{APP.name} not found in {REPO}: the browser tests need the app")
    server = StreamlitServer(app=APP, cwd=REPO, log_path=BROWSER_ARTIFACTS / "streamlit.log")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def egress_sentinel():
    sentinel = EgressSentinel()
    yield sentinel
    FIGURES["egress_sentinel_hits"] = sentinel.snapshot()
    sentinel.close()
    _write_figures()


@pytest.fixture(scope="session")
def browser(egress_sentinel):
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True,
        args=[*CHROMIUM_ARGS, egress_sentinel.proxy_arg],
    )
    yield browser
    browser.close()
    playwright.stop()


# ─── Per-test page ─────────────────────────────────────────────────────


@pytest.fixture
def page_guard() -> PageGuard:
    return PageGuard()


@pytest.fixture
def page(request, browser, lens_server, page_guard, screenshot_dir):
    """A fresh context and page on the app's origin, guarded (see module doc)."""
    context = browser.new_context(viewport=VIEWPORT, base_url=lens_server.url,
                                  accept_downloads=False)
    context.set_default_timeout(30_000)
    page = context.new_page()
    page_guard.install(context, page)
    yield page
    try:
        raised = page.locator('[data-testid="stException"]').all_inner_texts()
    except Exception:  # the page may be gone
        raised = []
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        try:
            page.screenshot(path=str(screenshot_dir / f"FAILED-{_slug(request.node.name)}.png"),
                            full_page=True)
        except Exception:
            pass
    context.close()
    summary = page_guard.summary()
    FIGURES["tests"][request.node.nodeid] = summary
    (BROWSER_ARTIFACTS / f"{_slug(request.node.name)}.json").write_text(
        json.dumps(summary, indent=2, ensure_ascii=False))
    problems = page_guard.violations()
    if raised and not (failed is not None and failed.failed):  # else the test said it already
        problems.append(f"the app showed {len(raised)} exception(s): {[r[:400] for r in raised]}")
    assert not problems, "the page did what it must not:\n" + "\n".join(problems)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:120]


def _write_figures() -> None:
    BROWSER_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (BROWSER_ARTIFACTS / "figures.json").write_text(
        json.dumps(FIGURES, indent=2, ensure_ascii=False))

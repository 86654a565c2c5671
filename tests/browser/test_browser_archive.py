"""The Archive page in Chromium: filter to runs with a failed tool, open one in
the run page, pick two to compare.

The server is started with a copy of the sample archive as its configured
folder (``FOOTPRINT_LENS_ARCHIVE``) and the index in the test's own cache
folder; nothing is typed into the browser but filter choices.
"""

from __future__ import annotations

import re
import sys
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from lens_browser import APP, BROWSER_ARTIFACTS, REPO, StreamlitServer
from lens_page import NOT_STALE, LensPage, key_class

sys.path.insert(0, str(REPO / "tests" / "archive"))
from archive_support import copy_archive, manifest  # noqa: E402

pytestmark = pytest.mark.browser
INDEX_TIMEOUT_MS = 90_000


@pytest.fixture(scope="module")
def lens_server(tmp_path_factory, screenshot_dir):
    """The app with the sample archive configured (overrides the plain server)."""
    base = tmp_path_factory.mktemp("archive-browser")
    folder = copy_archive(base / "runs")
    server = StreamlitServer(app=APP, cwd=REPO, log_path=BROWSER_ARTIFACTS / "archive.log",
                             env={"FOOTPRINT_LENS_ARCHIVE": str(folder),
                                  "FOOTPRINT_LENS_CACHE": str(base / "cache")})
    server.start()
    yield server
    server.stop()


# Opened at a page's own path, Streamlit's front end first looks for its server
# under that path (it might be the app's base URL) before trying the root:
# these two requests answer 404 on every deep link and are logged as console
# errors by Chromium. They are Streamlit's, not the app's.
STREAMLIT_BASE_PATH_PROBE = re.compile(r"^/[^/]+/_stcore/(health|host-config)$")


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400
            else None)
    yield LensPage(page, screenshot_dir, request.node.name)
    unexplained = [f for f in failed
                   if not STREAMLIT_BASE_PATH_PROBE.match(urlsplit(f.split(" ", 1)[1]).path)]
    assert unexplained == [], "requests that failed on the Archive page"


def match_caption(lens: LensPage):
    return lens.page.locator(f'[data-testid="stCaptionContainer"]{NOT_STALE}').filter(
        has_text=re.compile(r"of [\d,]+ runs match"))


def open_archive(lens: LensPage, total: int) -> None:
    lens.page.goto("/run_archive")
    lens.wait_idle(grace=0)
    expect(match_caption(lens)).to_contain_text(f"{total} of {total} runs match",
                                                timeout=INDEX_TIMEOUT_MS)
    lens.wait_idle()


def only_failed_tools(lens: LensPage) -> None:
    lens.page.locator(f".{key_class('lens.archive.failed')} label").click()
    lens.wait_idle()


def test_filter_to_failed_tools_and_open_one(lens):
    facts = manifest()
    failed = [e for e in facts["files"] if e["failedToolCalls"] > 0]
    open_archive(lens, len(facts["files"]))
    lens.screenshot("archive")
    only_failed_tools(lens)
    expect(match_caption(lens)).to_contain_text(f"{len(failed)} of {len(facts['files'])} runs")
    lens.screenshot("failed-tools")

    lens.select_grid_row(0)
    lens.button("lens.archive.open").click()
    # Opening a run projects it first; on a loaded machine that takes a while.
    lens.step_label_locator().wait_for(timeout=INDEX_TIMEOUT_MS)
    lens.wait_idle()
    main = lens.page.locator('[data-testid="stMain"]').inner_text()
    opened = [e for e in failed if e["runId"] in main]
    assert len(opened) == 1, "the run page shows one of the runs with a failed tool"
    header = lens.page.locator('[data-testid="stMain"]').inner_text()
    assert opened[0]["file"] in header  # the run header names the archive file
    lens.screenshot("opened-in-run-page")

    # Its link reopens it for someone else: a fresh browser context, same server.
    expect(lens.page).to_have_url(re.compile(r"[?&]archive="))
    link = lens.page.url
    other = lens.page.context.browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = other.new_page()
        page.goto(link)
        page.locator('[data-testid="stMain"]').get_by_text(opened[0]["runId"]).first.wait_for(
            timeout=INDEX_TIMEOUT_MS)
        page.screenshot(path=str(lens.screenshot_dir / "archive-link-reopened.png"))
    finally:
        other.close()


def test_pick_two_to_compare(lens):
    facts = manifest()
    open_archive(lens, len(facts["files"]))
    only_failed_tools(lens)
    compare = lens.button("lens.archive.compare")
    expect(compare).to_be_disabled()
    lens.select_grid_row(0)
    lens.select_grid_row(1)
    expect(compare).to_be_enabled()
    compare.click()
    lens.wait_idle()
    expect(lens.page).to_have_url(re.compile(r"/compare"))
    lens.wait_idle()
    main = lens.page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("First difference", exact=True)).to_be_visible()
    # Runs A and B are the two archive runs picked (the page's link names them).
    assert "a=archive" in lens.page.url and "b=archive" in lens.page.url
    lens.screenshot("compare")

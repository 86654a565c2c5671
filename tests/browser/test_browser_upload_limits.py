"""Uploads the server refuses: the wrong file type, and a file over the size limit.

The messages are the uploader's own; these tests prove the user sees one and
that the open run stays usable.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from lens_browser import StreamlitServer
from lens_page import IDLE_TIMEOUT_MS, LensPage, key_class

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parents[2]


def _choose_file(page, path: Path) -> None:
    page.locator(f".{key_class('lens.uploader')} input[type=file]").set_input_files(str(path))


def test_a_file_of_the_wrong_type_is_refused_with_a_message(page, tmp_path, screenshot_dir, request):
    lens = LensPage(page, screenshot_dir, request.node.name)
    before = lens.open()
    wrong = tmp_path / "notes.txt"
    wrong.write_text("not a recording")
    _choose_file(page, wrong)
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text("not allowed", exact=False)).to_be_visible(timeout=IDLE_TIMEOUT_MS)
    lens.screenshot("wrong-type")
    assert lens.step_label() == before  # the open run is still there


def test_a_file_over_the_upload_limit_is_refused_with_a_message(browser, page_guard, tmp_path,
                                                                screenshot_dir, request,
                                                                monkeypatch):
    monkeypatch.setenv("STREAMLIT_SERVER_MAX_UPLOAD_SIZE", "1")  # MB, for this server only
    server = StreamlitServer(app=REPO / "lens_app.py", cwd=REPO,
                             log_path=tmp_path / "streamlit-small-limit.log")
    server.start()
    try:
        context = browser.new_context(base_url=server.url, viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page_guard.install(context, page)
        lens = LensPage(page, screenshot_dir, request.node.name)
        before = lens.open()
        big = tmp_path / "big.json"
        big.write_text('{"events": [], "pad": "' + "x" * (2 * 1024 * 1024) + '"}')
        _choose_file(page, big)
        sidebar = page.locator('[data-testid="stSidebar"]')
        expect(sidebar.get_by_text("1.0MB or smaller", exact=False)).to_be_visible(
            timeout=IDLE_TIMEOUT_MS)
        lens.screenshot("over-limit")
        assert lens.step_label() == before
        assert not page_guard.violations()
        context.close()
    finally:
        server.stop()

"""``footprint-lens view``, started as a user starts it (from a folder with
nothing of Lens in it), in real Chromium: a FILE opens as the run on the first
screen, with the outcome sentence ``info`` gives for it; a DIR opens on the
Archive page with the folder offered; the sidebar names the pages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

import pytest
from playwright.sync_api import expect

from lens_browser import BROWSER_ARTIFACTS, REPO, StreamlitServer
from lens_page import LensPage
from streamlit_server import free_port

pytestmark = pytest.mark.browser
SAMPLE = REPO / "sample_runs" / "agent-refund-multi-tools-error.json"
CLI = [sys.executable, "-c", "from lens_cli.main import entry_point; entry_point()"]
PAGE_TITLES = ["Run", "Compare", "Follow", "Raw events", "Archive"]


def view_server(target, cwd, log_name: str) -> StreamlitServer:
    port = free_port()
    return StreamlitServer(app=REPO / "lens_app.py", cwd=cwd, port=port,
                           log_path=BROWSER_ARTIFACTS / log_name,
                           env={"PYTHONPATH": str(REPO)},
                           command=[*CLI, "view", str(target), "--port", str(port)])


@pytest.fixture(scope="module")
def lens_server(tmp_path_factory, screenshot_dir):
    """The app as `footprint-lens view FILE` serves it (overrides the plain server)."""
    mine = tmp_path_factory.mktemp("view-data") / "incident-4711.json"
    mine.write_bytes(SAMPLE.read_bytes())
    empty = tmp_path_factory.mktemp("view-cwd")
    server = view_server(mine, empty, "view.log")
    server.start()
    yield server
    server.stop()


def test_view_opens_the_file_on_the_first_screen(page, screenshot_dir, request):
    facts = json.loads(subprocess.run([*CLI, "info", str(SAMPLE)], capture_output=True, text=True,
                                      check=True, cwd=REPO,
                                      env={**os.environ, "PYTHONPATH": str(REPO)}).stdout)
    lens = LensPage(page, screenshot_dir, request.node.name)
    page.goto("/")
    lens.wait_idle()
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("incident-4711", exact=True).first).to_be_visible()
    # The outcome sentence, as the CLI says it, leads the page (clipped to its line there).
    opening = facts["outcome"]["sentence"][:60]
    expect(main.get_by_text(opening, exact=False).first).to_be_in_viewport()
    nav = page.locator('[data-testid="stSidebarNav"]')
    expect(nav).to_be_visible()
    assert [t.strip() for t in nav.locator("a").all_inner_texts()] == PAGE_TITLES
    lens.screenshot("view-file")


def test_view_of_a_folder_opens_the_archive_page(page, tmp_path, screenshot_dir, request):
    folder = tmp_path / "team-runs"
    folder.mkdir()
    (folder / "run-a.json").write_bytes(SAMPLE.read_bytes())
    empty = tmp_path / "cwd"
    empty.mkdir()
    with view_server(folder, empty, "view-folder.log") as server:
        printed = server.log_path.read_text()
        assert f"{server.url}/run_archive" in printed.replace("localhost", "127.0.0.1")
        lens = LensPage(page, screenshot_dir, request.node.name)
        page.goto(f"{server.url}/run_archive")
        lens.wait_idle()
        main = page.locator('[data-testid="stMain"]')
        expect(main.get_by_role("heading", name="Archive")).to_be_visible()
        expect(main.get_by_text("No archive folder is configured")).to_have_count(0)
        expect(page.get_by_text("team-runs").first).to_be_visible()
        # A deep link is served through the same page table: titled pages, Archive current.
        nav = page.locator('[data-testid="stSidebarNav"] a')
        assert [t.strip() for t in nav.all_inner_texts()] == PAGE_TITLES
        lens.screenshot("view-folder")
    # Stopping the command (SIGTERM, as a service manager does) stops the server it started.
    with pytest.raises(OSError):
        urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=5)

"""The Follow page in Chromium: a stream written while the page is open.

The server is started with a follow folder of its own (``LENS_FOLLOW_DIR``). A
writer thread claims the stream file empty (as ``fileObservability`` does),
then appends the sample stream's lines in batches while the page is open; the
count of events on screen grows batch by batch, the status goes from waiting
to still running to ended, and when the file sink writes the run's full
recording beside the stream, the page follows that instead.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import threading
import time

import pytest
from playwright.sync_api import expect

from lens_browser import APP, BROWSER_ARTIFACTS, REPO, StreamlitServer
from lens_page import NOT_STALE, LensPage, key_class

pytestmark = pytest.mark.browser
DATA = REPO / "tests" / "data" / "follow"
STREAM = DATA / "agent-tool.events.ndjson"
FULL_RECORDING = DATA / "run-1796177316709-1.json.gz"
BATCH_LINES = 6
BATCH_EVERY_S = 1.2
SCREEN = {"width": 1280, "height": 720}
TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def follow_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("follow-browser") / "live"


@pytest.fixture(scope="module")
def lens_server(follow_folder, screenshot_dir):
    """The app with its own follow folder (overrides the plain server)."""
    follow_folder.mkdir(parents=True)
    server = StreamlitServer(app=APP, cwd=REPO, log_path=BROWSER_ARTIFACTS / "follow.log",
                             env={"LENS_FOLLOW_DIR": str(follow_folder)})
    server.start()
    yield server
    server.stop()


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


def counts_caption(lens: LensPage):
    return lens.page.locator(f'[data-testid="stCaptionContainer"]{NOT_STALE}').filter(
        has_text=re.compile(r"^[\d,]+ events · "))


def status_badge(lens: LensPage):
    return lens.page.locator(f".{key_class('lens-follow-status')}")


def shown_count(lens: LensPage) -> int | None:
    try:
        text = counts_caption(lens).first.inner_text(timeout=200)
    except Exception:  # between two reruns of the fragment
        return None
    match = re.match(r"^([\d,]+) events", text)
    return int(match.group(1).replace(",", "")) if match else None


def test_a_stream_written_while_the_page_is_open_grows_on_screen(lens, follow_folder):
    lines = STREAM.read_bytes().splitlines(keepends=True)
    total = sum(1 for line in lines if line.strip())
    stream = follow_folder / "events.ndjson"
    stream.write_bytes(b"")  # the writer claims its file empty at construction
    page = lens.page
    page.set_viewport_size(SCREEN)
    page.goto("/follow")
    lens.wait_idle(grace=0)
    expect(status_badge(lens)).to_contain_text("waiting", timeout=TIMEOUT_MS)

    done = threading.Event()

    def write() -> None:
        for start in range(0, len(lines), BATCH_LINES):
            time.sleep(BATCH_EVERY_S)
            with open(stream, "ab") as out:
                out.write(b"".join(lines[start:start + BATCH_LINES]))
        done.set()
    writer = threading.Thread(target=write, name="stream-writer", daemon=True)
    writer.start()
    seen: list[int] = []
    statuses: set[str] = set()
    shot = False
    while not done.is_set() or (seen and seen[-1] < total):
        count = shown_count(lens)
        if count is not None and (not seen or count != seen[-1]):
            seen.append(count)
        try:
            statuses.add(status_badge(lens).inner_text(timeout=200).strip())
        except Exception:
            pass
        running = page.locator(f'[data-testid="stText"]{NOT_STALE}').filter(
            has_text=re.compile(r"^running: "))
        if not shot and count is not None and count < total and running.count():
            # The picture of a run being written: a call running, the timeline drawn.
            charts = page.locator('[data-testid="stPlotlyChart"] .main-svg')
            try:
                charts.first.wait_for(timeout=1_000)
            except Exception:
                pass  # the timeline is fetched lazily the first time
            page.screenshot(path=str(lens.screenshot_dir / "follow-mid-run.png"))
            shot = True
        if done.is_set() and seen and seen[-1] >= total:
            break
        page.wait_for_timeout(150)
    writer.join(timeout=5)
    expect(counts_caption(lens)).to_contain_text(f"{total} events", timeout=TIMEOUT_MS)
    assert seen == sorted(seen), seen  # only ever grows
    assert len(seen) >= 4, f"the count grew batch by batch: {seen}"
    assert any("still running" in s for s in statuses), statuses
    expect(status_badge(lens)).to_contain_text("ended", timeout=TIMEOUT_MS)
    assert shot, f"an open call was shown as running: {seen}"

    # The file sink writes the full recording beside the stream: the page follows it.
    run_id = json.loads(lines[0])["meta"]["runId"]
    (follow_folder / f"{run_id}.json").write_bytes(gzip.decompress(FULL_RECORDING.read_bytes()))
    expect(page.locator(f'[data-testid="stCaptionContainer"]{NOT_STALE}').filter(
        has_text="The whole recording is read")).to_be_visible(timeout=TIMEOUT_MS)
    expect(page.get_by_text("full recording", exact=False).first).to_be_visible()
    shutil.copy(lens.screenshot_dir / "follow-mid-run.png",
                BROWSER_ARTIFACTS / "follow-mid-run.png")

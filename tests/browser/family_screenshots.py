"""Screenshots of family runs at 1280×720, as a new user sees the first screen.

Run on purpose (not a test): ``python tests/browser/family_screenshots.py OUT_DIR
[case[:step[:pane[:slot-or-view]]] ...]``. Each case's recording
(``tests/data/families/``) is uploaded through the sidebar, the slider is moved
to ``step`` (1-based), the detail pane switched to ``pane`` and, in the served
context, its slot switched to ``slot``; a last part naming a view of the run
page (``Timeline``) opens that view instead; the shot is the 1280×720 viewport only, so
what is below the fold is not in it (``OUT_DIR/family-<case>.png``).
"""

from __future__ import annotations

import gzip
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(HERE)]

from family_files import family_recording  # noqa: E402
from lens_page import LensPage  # noqa: E402
from streamlit_server import StreamlitServer  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
VIEWPORT = {"width": 1280, "height": 720}
VIEWS = ("Timeline", "Why this skill?", "Backtrack", "Search")
SLOT_BUTTONS = {"Skills, evictions, pressure": "Skills", "Output and tool calls": "Output"}


def shoot(out: Path, specs: list[str]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    server = StreamlitServer(app=ROOT / "lens_app.py", cwd=ROOT,
                             log_path=Path(tempfile.gettempdir()) / "family-shots-server.log")
    server.start()
    shots = []
    try:
        with sync_playwright() as play, tempfile.TemporaryDirectory() as scratch:
            browser = play.chromium.launch(executable_path="/usr/bin/chromium",
                                           args=CHROMIUM_ARGS)
            for spec in specs:
                case, _, rest = spec.partition(":")
                step, _, rest = rest.partition(":")
                pane, _, last = rest.partition(":")
                page = browser.new_page(viewport=VIEWPORT, base_url=server.url)
                lens = LensPage(page, Path(scratch), case)
                lens.open()
                plain = Path(scratch) / f"{case}.json"
                plain.write_bytes(gzip.decompress(family_recording(case).read_bytes()))
                lens.upload(plain)
                for _ in range(int(step or 1) - 1):
                    lens.step_by("next")
                if pane:
                    lens.open_detail_pane(pane)
                if last in VIEWS:
                    lens.open_tab(last)
                elif last:
                    page.get_by_role("radio", name=SLOT_BUTTONS.get(last, last),
                                     exact=True).click()
                    lens.wait_idle()
                page.mouse.move(0, 0)
                page.wait_for_timeout(500)
                path = out / f"family-{case}.png"
                page.screenshot(path=str(path))
                shots.append(path)
                page.close()
            browser.close()
    finally:
        server.stop()
    return shots


if __name__ == "__main__":
    for shot in shoot(Path(sys.argv[1]), sys.argv[2:]):
        print(shot)

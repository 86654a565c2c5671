"""The wheel's ``footprint-lens view`` in a real browser: wait for the server it
started to answer ``/_stcore/health``, then open the page in Chromium and find
the run's outcome sentence (as the wheel's own ``info`` gave it) on the first
1280x720 screen. Run by .ci/check_wheel with the checkout's environment, which
has Playwright (the wheel's fresh venv does not).

Usage: python check_view.py URL LOG INFO_JSON
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def wait_healthy(url: str, log: Path, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.read().decode().strip() == "ok":
                    return
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.3)
    sys.exit(f"view check: no healthy server at {url} after {timeout_s:.0f} s; its output:\n"
             f"{log.read_text(errors='replace')[-3000:]}")


def main() -> None:
    url, log, info = sys.argv[1], Path(sys.argv[2]), json.loads(Path(sys.argv[3]).read_text())
    wait_healthy(url, log)
    printed = log.read_text(errors="replace")
    assert f"at {url}/ (Ctrl-C stops it)" in printed, printed
    if not CHROMIUM.exists():
        print("view check: health ok; /usr/bin/chromium missing, so the page was not opened",
              file=sys.stderr)
        return
    from playwright.sync_api import expect, sync_playwright

    opening = info["outcome"]["sentence"][:60]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(url)
        main_area = page.locator('[data-testid="stMain"]')
        expect(main_area.get_by_text(opening, exact=False).first).to_be_in_viewport(
            timeout=60_000)
        titles = [t.strip() for t in
                  page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()]
        assert titles == ["Run", "Compare", "Follow", "Raw events", "Archive"], titles
        browser.close()
    print(f"view check: the wheel's footprint-lens view served the run at {url} "
          f"(“{opening}…” on the first screen)")


if __name__ == "__main__":
    main()

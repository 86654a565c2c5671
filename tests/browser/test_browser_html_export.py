"""The exported HTML page (``footprint-lens export html``) in headless Chromium.

Each page is opened from ``file://`` with no server. Every request the page
makes is routed and recorded: anything but ``file:`` and ``data:`` fails the
test (and is aborted), as do a console error, an uncaught exception and a
dialog. On each page the N and P keys step the slider and the label reads
"step K of N"; on the run whose tool failed, its error text is on the page.
The 1280×720 screenshot of the failing-refund run is docs/share-html.png.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from corpus_files import case_names, read_bytes, recording_path
from family_files import family_names, family_recording
from lens_browser import REPO, SCREENSHOTS
from lens.run import open_run
from lens.share.html import export_run

pytestmark = pytest.mark.browser

ALLOWED_SCHEMES = frozenset({"file", "data"})
LABEL = re.compile(r"^step (\d+) of (\d+)( · |$)")
SCREENSHOT = REPO / "docs" / "share-html.png"
FAILING_RUN = "agent-refund-multi-tools-error"
HOSTILE_RUN = "hostile-strings-agent"


class FileGuard:
    """What a page loaded from disk did that it must not."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.refused: list[str] = []
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.dialogs: list[str] = []

    def install(self, context, page) -> None:
        context.route("**/*", self._route)
        page.on("request", lambda request: self.requests.append(request.url[:200]))
        page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text[:300]))
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)[:300]))
        page.on("dialog", self._dialog)

    def _route(self, route, request) -> None:
        if urlsplit(request.url).scheme in ALLOWED_SCHEMES:
            route.continue_()
        else:
            self.refused.append(request.url[:200])
            route.abort("blockedbyclient")

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message[:200])
        dialog.dismiss()

    def problems(self) -> list[str]:
        remote = [url for url in self.requests if urlsplit(url).scheme not in ALLOWED_SCHEMES]
        found = []
        for name, items in (("non-file request", remote + self.refused),
                            ("console error", self.console_errors),
                            ("page error", self.page_errors), ("dialog", self.dialogs)):
            if items:
                found.append(f"{len(items)} {name}(s): {items[:3]}")
        return found


def _runs() -> list[tuple[str, Path]]:
    runs = [(case, recording_path(case)) for case in case_names()]
    runs += [(f"family/{name}", family_recording(name)) for name in family_names()]
    return runs


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("html-export")
    written = {}
    for name, path in _runs():
        out = folder / (name.replace("/", "--") + ".html")
        out.write_text(export_run(open_run(read_bytes(path)), path.name).html, encoding="utf-8")
        written[name] = out
    return written


def _open(browser, path: Path, viewport=None):
    context = browser.new_context(viewport=viewport or {"width": 1280, "height": 720},
                                  accept_downloads=False)
    page = context.new_page()
    guard = FileGuard()
    guard.install(context, page)
    page.goto(path.as_uri())
    page.wait_for_selector("#step-label")
    return context, page, guard


def _label(page) -> tuple[int, int]:
    text = page.inner_text("#step-label")
    match = LABEL.match(text)
    assert match, f"the label reads {text!r}"
    return int(match.group(1)), int(match.group(2))


@pytest.mark.parametrize("name", [name for name, _ in _runs()])
def test_page_opens_from_disk_offline_and_keys_step_it(browser, pages, name):
    context, page, guard = _open(browser, pages[name])
    try:
        step, count = _label(page)
        assert step == 1
        presses = min(count - 1, 3)
        for _ in range(presses):
            page.keyboard.press("N")
        assert _label(page) == (1 + presses, count)
        page.keyboard.press("P")
        assert _label(page) == (max(presses, 1), count)
        # The diagram is drawn as SVG, with the actors' names as text.
        assert page.locator("svg.diagram circle, svg.diagram rect").count() > 0
        # Every view draws.
        for view in ("Timeline", "Why this skill?", "Likely causes", "Steps"):
            page.get_by_role("button", name=view, exact=True).click()
        page.get_by_role("button", name="Served context", exact=True).click()
        assert page.locator(".served").count() == 1
        assert guard.problems() == []
    finally:
        context.close()


def test_failed_tools_error_text_is_on_the_page_and_screenshot(browser, pages):
    recording = json.loads(read_bytes(recording_path(FAILING_RUN)))
    error_text = next(e["payload"]["result"] for e in recording["events"]
                      if e.get("type", "").endswith("stream.tool_end")
                      and e.get("payload", {}).get("error") is True)
    context, page, guard = _open(browser, pages[FAILING_RUN])
    try:
        page.get_by_role("button", name="Likely causes", exact=True).click()
        assert error_text in page.inner_text("main")
        # The first cause leads to the step that reads the failed result.
        page.locator(".cause button.link").first.click()
        assert error_text in page.inner_text(".detail-column")
        assert page.locator(".alert.error", has_text="This tool call failed").count() == 1
        step, count = _label(page)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "share-html.png"))
        assert guard.problems() == []
        assert 1 <= step <= count
    finally:
        context.close()


def test_hostile_strings_show_as_text(browser, pages):
    context, page, guard = _open(browser, pages[HOSTILE_RUN])
    try:
        seen = []
        _, count = _label(page)
        for _ in range(count):
            seen.append(page.inner_text("main"))
            page.get_by_role("button", name="Served context", exact=True).click()
            seen.append(page.inner_text("main"))
            page.get_by_role("button", name="This step", exact=True).click()
            page.keyboard.press("N")
        shown = "\n".join(seen)
        assert "<script>alert(1)</script>" in shown  # as characters, not run
        assert page.locator("main script, main img, main iframe, main h1").count() == 0
        assert guard.problems() == []
    finally:
        context.close()


def test_child_scopes_are_reached_and_stepped_too(browser, pages):
    run = open_run(read_bytes(recording_path("nested-sequence-with-parallel")))
    scopes = run.scopes()
    children = scopes.root().children
    assert children
    context, page, guard = _open(browser, pages["nested-sequence-with-parallel"])
    try:
        picker = page.get_by_label("Enter a child scope")
        picker.select_option(index=1)  # the first child, after "choose…"
        child = scopes.get(children[0])
        assert _label(page) == (1, len(child.steps))
        if len(child.steps) > 1:
            page.keyboard.press("N")
            assert _label(page) == (2, len(child.steps))
        # The breadcrumb leads back to the root.
        page.get_by_role("button", name="⌂ root").click()
        assert _label(page) == (1, len(scopes.root().steps))
        assert guard.problems() == []
    finally:
        context.close()

"""A deeply nested event shown whole leaves the tab alive.

Chromium's JSON viewer crashed the tab on a value nested about a thousand
deep; the raw events page now shows deep parts collapsed to text, with the
whole event downloadable.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from corpus_files import read_bytes, recording_path
from lens_page import LensPage

CASE = "agent-no-tools"


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


def deep_recording(tmp_path, levels: int):
    """The case with its first typed event's payload nested ``levels`` deep."""
    doc = json.loads(read_bytes(recording_path(CASE)))
    events = (doc.get("recording") or doc)["events"]
    events[0]["payload"] = {"deep": "@DEEP@"}
    text = json.dumps(doc).replace('"@DEEP@"', "[" * levels + '"bottom"' + "]" * levels)
    path = tmp_path / f"deep-{levels}.json"
    path.write_text(text)
    return path


@pytest.mark.parametrize("levels", [1_000, 9_990])
def test_a_deep_event_shown_whole_leaves_the_tab_alive(lens, tmp_path, levels):
    crashed = []
    lens.page.on("crash", lambda _: crashed.append(True))
    lens.open()
    lens.upload(deep_recording(tmp_path, levels))
    lens.open_page_link("raw events")
    lens.select_grid_row(0)  # the typed table comes first; row 0 is the deep event
    main = lens.page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("typed event #0")).to_be_visible()
    expect(main.locator('[data-testid="stJson"]')).to_be_visible()
    expect(main.get_by_role("button", name="Download the whole event (JSON)")).to_be_visible()
    assert lens.page.evaluate("1 + 1") == 2 and not crashed
    assert "nested deeper, shown as text" in main.inner_text()
    lens.screenshot(f"deep-{levels}-shown-whole")

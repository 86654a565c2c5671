"""The "Where from?" part of the detail pane (a toggle under This step) in a real browser: from the final
answer, the chain of stages that produced it, each a button to its step."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from lens_page import LensPage, key_class

pytestmark = pytest.mark.browser

DETAIL_PANE = f'.{key_class("lens-step-detail")}'
WIDTH, HEIGHT = 1280, 720


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


def test_from_the_final_answer_a_stage_button_moves_the_slider(lens):
    lens.page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    lens.open("run=agent-refund-multi-tools-error&step=10")
    assert lens.step_label().number == 10
    pane = lens.page.locator(DETAIL_PANE).first
    toggle = pane.get_by_text("Where from?", exact=True)
    toggle.scroll_into_view_if_needed()
    toggle.click()
    lens.wait_idle()
    expect(pane.get_by_text("1. CallLLM (call-llm#98) · wrote llmLatestContent")).to_be_visible()
    expect(pane.get_by_text("Made by", exact=False)).to_be_visible()
    pane.get_by_text("State key", exact=True).scroll_into_view_if_needed()
    lens.page.screenshot(path=str(lens.screenshot_dir / "where-from-1280x720.png"))
    timeline = pane.get_by_text("Timeline", exact=False)
    timeline.scroll_into_view_if_needed()
    lens.page.screenshot(path=str(lens.screenshot_dir / "where-from-timeline-1280x720.png"))
    lens.page.mouse.move(1000, 650)
    lens.page.mouse.wheel(0, 260)
    lens.page.wait_for_timeout(300)
    pane.screenshot(path=str(lens.screenshot_dir / "where-from-pane-timeline.png"))
    row = pane.get_by_text("12. CallLLM (call-llm#18)", exact=False)
    row.scroll_into_view_if_needed()
    pane.get_by_role("button", name="Step 2", exact=True).first.click()
    lens.wait_for_step(2)

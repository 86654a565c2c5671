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
    timeline = pane.locator("strong", has_text="Timeline")
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


def _open_where_from_entry(lens: LensPage, slot_button: str, where: str) -> None:
    """From the served context's ``slot_button``, click the Where from? entry
    whose line names ``where`` (the key and its write)."""
    lens.open_detail_pane("Served context")
    pane = lens.page.locator(DETAIL_PANE).first
    pane.get_by_role("radio", name=slot_button, exact=True).click()
    lens.wait_idle()
    line = pane.get_by_text(where, exact=False).first
    line.scroll_into_view_if_needed()
    expect(line).to_be_visible()
    lens.page.screenshot(path=str(lens.screenshot_dir / f"where-from-entry-{slot_button}"
                                                        "-1280x720.png"))
    pane.get_by_role("button", name="Where from?").first.click()
    lens.wait_idle()


def test_a_served_slot_opens_where_from_on_the_key_holding_its_text(lens):
    lens.page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    lens.open("run=agent-refund-multi-tools-error&step=2")
    _open_where_from_entry(lens, "Messages", "State key messagesInjections")
    pane = lens.page.locator(DETAIL_PANE).first
    # The pane is This step again, the part open on the slot's key, the slider where it was.
    expect(pane.get_by_text("Opened from the served context: piece 0 of the Messages slot "
                            "of model call 1.", exact=True)).to_be_visible()
    assert lens.step_label().number == 2
    chooser = pane.get_by_text("State key", exact=True)
    chooser.scroll_into_view_if_needed()
    lens.page.screenshot(path=str(lens.screenshot_dir / "where-from-from-slot-1280x720.png"))
    # The key chosen is the slot's key, on the first screen of the pane.
    expect(pane.get_by_role("combobox", name="State key")).to_have_value("messagesInjections")
    chart = pane.locator('[data-testid="stPlotlyChart"]').first
    chart.scroll_into_view_if_needed()
    expect(chart.locator("svg .point").first).to_be_attached()
    lens.page.screenshot(path=str(lens.screenshot_dir / "where-from-slot-chart-1280x720.png"))


def test_the_final_answer_opens_where_from_on_its_key(lens):
    lens.page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    lens.open("run=agent-refund-multi-tools-error&step=10")
    _open_where_from_entry(lens, "Output", "State key llmLatestContent")
    pane = lens.page.locator(DETAIL_PANE).first
    expect(pane.get_by_text("Opened from the served context: the output of model call 5.",
                            exact=True)).to_be_visible()
    expect(pane.get_by_text("1. CallLLM (call-llm#98) · wrote llmLatestContent")).to_be_visible()
    # The chart's points sit on the slider's steps: hovering the last write names its stage.
    chart = pane.locator('[data-testid="stPlotlyChart"]').first
    chart.scroll_into_view_if_needed()
    box = chart.locator("svg .scatterlayer .trace").first.locator(".point").last.bounding_box()
    assert box is not None
    # Plotly's drag layer lies over the points: move the mouse there, as a user does.
    lens.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    hover = lens.page.locator(".hoverlayer .hovertext").first
    expect(hover).to_contain_text("CallLLM")
    lens.page.screenshot(path=str(lens.screenshot_dir / "where-from-answer-hover-1280x720.png"))
    # A click on the first write goes to its step, as the table's step column names it.
    first = chart.locator("svg .scatterlayer .trace").first.locator(".point").first
    box = first.bounding_box()
    assert box is not None
    lens.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    lens.wait_for_step(2)

"""The Timeline tab: every call of every scope on one axis; a click goes to its step."""

from __future__ import annotations

import pytest
from lens_page import LensPage
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

BARS = '[data-testid="stMain"] .js-plotly-plot .barlayer .point path'


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


def test_clicking_a_tool_bar_drills_into_its_agent_and_lands_on_the_step_that_asked(lens):
    # A Parallel of three agents, each with one model call that asks for a tool.
    lens.open("run=nested-parallel-of-agents")
    lens.open_tab("Timeline")
    bars = lens.page.locator(BARS)
    # 6 model calls and 3 tool calls, each drawn once (plotly's code is fetched
    # on the first plotly chart a page shows: the Steps view draws none).
    expect(bars).to_have_count(9)
    lens.screenshot("timeline")
    bars.nth(bars.count() - 1).click(force=True)  # the last trace: tool calls, the third agent's
    label = lens.wait_for_step(2)
    assert label.text.startswith("step 2 of 4 · llm→tool")
    assert lens.tab_selected("Steps")
    assert "drill=__root__%2Fcapacity" in lens.page.url

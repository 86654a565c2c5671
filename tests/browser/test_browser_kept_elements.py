"""A step keeps what the browser already drew, where it can.

The browser keeps an element across a rerun only while it stays at the same
place on the page (the same key or the same position in its container);
anything else it mounts anew, and mounting is the dearest work of a step
(``benchmarks/README.md``). These tests hold on to the DOM nodes of the parts
a user keeps on screen while stepping and check that the next step, which shows a
different model call, updated them in place instead of replacing them.
"""

from __future__ import annotations

import pytest
from lens_page import DIAGRAM, NOT_STALE, LensPage, key_class

from lens_ui.step_panel import TOOL_CALL_BOX

pytestmark = pytest.mark.browser

SERVED = f'.{key_class("lens-served-context")}'
SERVED_TITLE = f'{SERVED} [data-testid="stCaptionContainer"]{NOT_STALE}'
SLOT_TABLE = f'{SERVED} [data-testid="stDataFrame"]'
# The first recorded value drawn in the first tool call's box of the This step part.
FIRST_TOOL_VALUE = f'.{key_class(TOOL_CALL_BOX + "-0")} [data-testid="stCode"] pre'


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


def connected(handle) -> bool:
    return handle.evaluate("node => node.isConnected")


def test_the_chosen_served_context_is_updated_in_place_as_the_slider_moves(lens):
    # Steps 3 to 7 of the default run alternate between reading tool results
    # and asking for tools: every other step shows another model call.
    lens.open("step=3")
    lens.open_detail_pane("Served context")
    table = lens.page.locator(SLOT_TABLE).first
    table.wait_for()
    kept = table.element_handle()
    titles = [lens.page.locator(SERVED_TITLE).first.inner_text()]
    for _ in range(4):
        now, _ = lens.step_by("N")  # the shortcut still steps with a part chosen
        titles.append(lens.page.locator(SERVED_TITLE).first.inner_text())
        assert connected(kept), (f"step {now.number}: the served context's slot table "
                                 "was drawn anew instead of updated")
    assert len(set(titles)) >= 3, f"the steps did not show three model calls: {titles}"


def test_the_diagram_is_updated_in_place_as_the_slider_moves(lens):
    lens.open("step=2")
    chart = lens.page.locator(f"{DIAGRAM} svg, {DIAGRAM} canvas").first
    chart.wait_for()
    kept = chart.element_handle()
    for _ in range(3):
        before = lens.step_label()
        lens.button("lens.next").click()
        lens.wait_for_step(before.number + 1)
        assert connected(kept), f"step {before.number + 1}: the diagram was drawn anew"


def test_the_step_detail_keeps_its_tool_calls_in_place_between_asking_and_reading(lens):
    # Steps 2 to 7 of the default run: the model asks for tools, then reads
    # their results, three times over. Both kinds of step show each tool call
    # in the same elements, so the box is updated, not drawn anew.
    lens.open("step=2")
    value = lens.page.locator(FIRST_TOOL_VALUE).first
    value.wait_for(state="attached")  # the pane scrolls: it may be below the fold
    kept = value.element_handle()
    shown = [kept.inner_text()]
    for _ in range(5):
        now, _ = lens.step_by("N")
        assert connected(kept), (f"step {now.number} ({now.text}): the first tool call "
                                 "was drawn anew instead of updated")
        shown.append(kept.inner_text())
    assert len(set(shown)) == 3, f"the steps did not show three tool calls' arguments: {shown}"

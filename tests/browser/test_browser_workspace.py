"""The first screen is the workspace, on a laptop screen.

At 1280×720 and 1024×768 the slider, the step label, the step's headline and
the arrow diagram are on screen without scrolling; reading the step detail
(scrolled inside its own pane) leaves the step controls on screen and usable.
"""

from __future__ import annotations

import pytest
from lens_page import DIAGRAM, LensPage, key_class

pytestmark = pytest.mark.browser

LAPTOP_SCREENS = [(1280, 720), (1024, 768)]
SLIDER = '[data-testid="stMain"] [data-testid="stSlider"]'
HEADLINE = f'.{key_class("lens-step-headline")}'
DETAIL_PANE = f'.{key_class("lens-step-detail")}'


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


def assert_on_screen(lens: LensPage, locator, what: str, width: int, height: int) -> None:
    box = locator.bounding_box()
    assert box is not None, f"{what} is not drawn"
    assert box["y"] >= 0 and box["y"] + box["height"] <= height, \
        f"{what} spans y {box['y']:.0f}–{box['y'] + box['height']:.0f}, screen is {height} px high"
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, \
        f"{what} spans x {box['x']:.0f}–{box['x'] + box['width']:.0f}, screen is {width} px wide"


def scroll_position(lens: LensPage) -> float:
    """How far the main area is scrolled (Streamlit scrolls a container, not the window)."""
    return lens.page.evaluate(
        "() => Math.max(window.scrollY, ...[...document.querySelectorAll("
        "'[data-testid=\"stMain\"], [data-testid=\"stAppViewContainer\"], section.main')]"
        ".map(e => e.scrollTop))")


def scroll_main_to_bottom(lens: LensPage) -> None:
    lens.page.evaluate(
        "() => { window.scrollTo(0, document.body.scrollHeight); for (const e of "
        "document.querySelectorAll('[data-testid=\"stMain\"], [data-testid=\"stAppViewContainer\"]'))"
        " e.scrollTop = e.scrollHeight; }")
    lens.page.wait_for_timeout(200)


@pytest.mark.parametrize("width,height", LAPTOP_SCREENS)
def test_slider_step_headline_and_diagram_are_on_the_first_screen(lens, width, height):
    lens.page.set_viewport_size({"width": width, "height": height})
    label = lens.open()
    assert scroll_position(lens) == 0
    assert_on_screen(lens, lens.page.locator(SLIDER).first, "the slider", width, height)
    assert_on_screen(lens, lens.step_label_locator(), f"the step label {label.text!r}",
                     width, height)
    assert_on_screen(lens, lens.page.locator(HEADLINE).first, "the step's headline",
                     width, height)
    assert_on_screen(lens, lens.page.locator(DIAGRAM).first, "the diagram", width, height)
    assert_on_screen(lens, lens.button("lens.next"), "the Next button", width, height)
    lens.screenshot(f"first-screen-{width}x{height}")


@pytest.mark.parametrize("width,height", LAPTOP_SCREENS)
def test_step_controls_stay_on_screen_while_reading_the_detail(lens, width, height):
    lens.page.set_viewport_size({"width": width, "height": height})
    lens.open("step=6")
    lens.open_detail_pane("Served context")
    pane = lens.page.locator(DETAIL_PANE).first
    # The pane scrolls on its own: its content is taller than the pane.
    scrolled = pane.evaluate(
        "pane => { const s = [pane, ...pane.querySelectorAll('*')].find("
        "e => e.scrollHeight > e.clientHeight + 20 && getComputedStyle(e).overflowY !== 'visible');"
        " if (!s) return null; s.scrollTop = s.scrollHeight; return s.scrollTop; }")
    assert scrolled, "the detail pane does not scroll within itself"
    # However far the page itself is scrolled, the workspace stays: what is
    # below the diagram is short, and the detail scrolls inside its pane.
    scroll_main_to_bottom(lens)
    assert_on_screen(lens, pane, "the detail pane", width, height)
    assert_on_screen(lens, lens.page.locator(SLIDER).first, "the slider", width, height)
    assert_on_screen(lens, lens.button("lens.next"), "the Next button", width, height)
    before = lens.step_label()
    lens.button("lens.next").click()
    after = lens.wait_for_step(before.number + 1)
    assert after.number == before.number + 1
    lens.screenshot(f"reading-served-context-{width}x{height}")

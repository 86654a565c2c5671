"""A halted tool call's arrow in Chromium: drawn as such, its finding hovered as text.

payments-permission-halt's last step asks for send_email, which the
treasury policy halts; the policy's rationale is replaced here with markup,
which the arrow's hover must show as the characters recorded.
"""

from __future__ import annotations

import gzip

import pytest
from family_files import family_recording
from lens_page import DIAGRAM, LensPage
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

RATIONALE = b"external email after reading vendor banking data"
HOSTILE = "<img src=x onerror=alert(1)><b>bold</b>&amp;"


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    page.set_viewport_size({"width": 1280, "height": 720})
    return LensPage(page, screenshot_dir, request.node.name)


def test_the_halted_calls_arrow_hovers_the_policys_words_as_text(lens, tmp_path):
    data = gzip.decompress(family_recording("payments-permission-halt").read_bytes())
    assert RATIONALE in data
    recording = tmp_path / "payments-permission-halt.json"
    recording.write_bytes(data.replace(RATIONALE, HOSTILE.encode()))
    lens.open()
    lens.upload(recording)
    lens.go("lens.last", 6)
    chart = lens.page.locator(DIAGRAM).first
    label = chart.locator("svg .mark-text text", has_text="halted")
    expect(label).to_have_count(1)
    label.hover()
    tooltip = lens.page.locator("#vg-tooltip-element")
    expect(tooltip).to_contain_text("tool call send_email halted")
    expect(tooltip).to_contain_text(HOSTILE)
    assert tooltip.locator("img, b").count() == 0
    assert chart.locator("img, b, foreignObject").count() == 0
    lens.screenshot("halted-arrow-hovered")

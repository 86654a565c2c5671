"""The step detail pane fits the first screen at 1280×720, at the same place on every step.

Before, the headline ran across the page above the diagram and the pane
beside it: the pane started at y≈440–490 (lower for a longer headline) and its
bottom was below the fold, while the room under the diagram stayed empty.
"""

from __future__ import annotations

import gzip

import pytest
from family_files import family_recording
from lens_page import LensPage, key_class

pytestmark = pytest.mark.browser

DETAIL_PANE = f'.{key_class("lens-step-detail")}'
WIDTH, HEIGHT = 1280, 720


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


def test_the_detail_pane_is_whole_on_the_first_screen_and_does_not_move_between_steps(
        lens, tmp_path):
    lens.page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    lens.open()
    # payments-permission-halt: step 1's headline is one line at full width,
    # step 6's (send_email with three arguments) several.
    plain = tmp_path / "payments-permission-halt.json"
    plain.write_bytes(gzip.decompress(family_recording("payments-permission-halt").read_bytes()))
    lens.upload(plain)
    tops = []
    for step in range(6):
        if step:
            lens.step_by("next")
        box = lens.page.locator(DETAIL_PANE).first.bounding_box()
        assert box is not None, "the detail pane is not drawn"
        assert box["y"] + box["height"] <= HEIGHT, \
            f"step {step + 1}: the pane spans y {box['y']:.0f}–{box['y'] + box['height']:.0f}"
        tops.append(round(box["y"]))
    assert len(set(tops)) == 1, f"the pane's top moves between steps: {tops}"
    lens.screenshot("detail-fits-1280x720")

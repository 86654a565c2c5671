"""Answer first, in real Chromium at 1280×720: a family run uploaded as a user
uploads it shows, without a click or a scroll, how the run ended (the sentence
``footprint-lens info`` gives) and its top cause (the first one ``footprint-lens
causes`` lists); one click on the cause's button puts the slider on the step
the CLI names for it, in its scope, with the step on screen.

The cases cover each way a run ended that the families hold (answered with a
fallback, crashed on a permission halt and on a schema fail-fast, stopped by a
loop's limit) and a cause in a nested scope (a parallel branch).
"""

from __future__ import annotations

import gzip
import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from playwright.sync_api import expect

from family_files import family_recording
from lens_cli.main import main as lens_main
from lens_page import LensPage, key_class

pytestmark = pytest.mark.browser

CASES = ("travel-desk-circuit-breaker", "payments-permission-halt",
         "kyc-extractor-stuck-schema-fail-fast", "newsletter-loop-eval-below-threshold",
         "vendor-due-diligence-parallel")
# Enough of a text to find it on the page: the first screen cuts long ones at a word.
SHOWN_CHARS = 50
LAPTOP = {"width": 1280, "height": 720}


def _cli(command: str, path: Path):
    out = io.StringIO()
    with redirect_stdout(out):
        assert lens_main([command, str(path)]) == 0
    return json.loads(out.getvalue())


def _opening(text: str) -> str:
    """The text's first words, up to ``SHOWN_CHARS``: whatever the screen cuts, it keeps these."""
    flat = " ".join(text.split())
    return flat if len(flat) <= SHOWN_CHARS else flat[:flat.rfind(" ", 0, SHOWN_CHARS)]


@pytest.mark.parametrize("case", CASES)
def test_the_outcome_and_top_cause_are_on_the_first_screen_and_one_click_reaches_its_step(
        page, screenshot_dir, tmp_path, case):
    plain = tmp_path / f"{case}.json"
    plain.write_bytes(gzip.decompress(family_recording(case).read_bytes()))
    outcome = _cli("info", plain)["outcome"]
    cause = _cli("causes", plain)[0]
    assert cause["step"] is not None, f"{case}: the CLI links its top cause to no step"

    page.set_viewport_size(LAPTOP)
    lens = LensPage(page, screenshot_dir, f"first-screen-{case}")
    lens.open()
    lens.upload(plain)
    main = page.locator('[data-testid="stMain"]')
    sentence = page.locator(f".{key_class('lens-outcome-sentence')}")
    expect(sentence).to_contain_text(_opening(outcome["sentence"]))
    expect(sentence).to_be_in_viewport()
    top = page.locator(f".{key_class('lens-top-cause-0')}")
    expect(top).to_contain_text(_opening(cause["headline"]))
    expect(top).to_be_in_viewport()
    # The screen as it is (not stretched to the content): what is below the fold is not in it.
    page.screenshot(path=str(screenshot_dir / f"first-screen-{case}-01.png"))

    go = lens.button("lens.top_cause.0")
    expect(go).to_be_in_viewport()
    go.click()
    label = lens.wait_for_step(cause["step"]["index"] + 1)
    assert label.number == cause["step"]["index"] + 1
    assert lens.tab_selected("Steps")
    # The scope the CLI names: the breadcrumb holds the root and one crumb per level below.
    assert len(lens.crumbs()) == len(cause["step"]["path"])
    expect(lens.step_label_locator()).to_be_in_viewport()
    expect(main.locator(f".{key_class('lens-scope-row')}")).to_be_in_viewport()
    page.screenshot(path=str(screenshot_dir / f"first-screen-{case}-02-at-the-cause.png"))

"""The app in a real browser: open, upload, step, drill, ask why this skill.

Expected steps come from the same projection the app shows
(``build_projection(..., "lens")``), so a label on screen is checked against
the step it must be, not against a number copied here.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from lens_browser import CORPUS, REPO, record_latency, record_note
from lens_page import LensPage
from recorders.loading import load_path
from recorders.projections import build_projection
from recorders.read.registry import KINDS

pytestmark = pytest.mark.browser

SAMPLES = REPO / "sample_runs"
DEFAULT_SAMPLE = "agent-refund-multi-tools-error"  # lens_ui/samples.py DEFAULT_SAMPLE
PARALLEL = CORPUS / "parallel-3-reviewers" / "recording.json"
SKILLGRAPH = "skillgraph-route-hops-envelope"
REJECTED_CAP = "skillgraph-rejected-cap-then-model-pick"


def lens_steps(path: Path, drill: tuple[str, ...] | None = None):
    return build_projection(load_path(path), "lens").get_steps(drill)


def sample_file(name: str) -> Path:
    return next(SAMPLES.glob(f"{name}.json*"))


def assert_label(label, number: int, steps) -> None:
    """``step N of M · <the step's own label>`` for the N-th step of ``steps``."""
    expected = f"step {number} of {len(steps)} · {steps[number - 1].label}"
    assert label.text == expected or label.text.startswith(expected + " · "), \
        f"label {label.text!r}, expected {expected!r}"


# Every word (a run of characters without a space or a hyphen) of an element's
# text laid out on more than one line.
BROKEN_WORDS = """(element) => {
  const broken = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const match of node.data.matchAll(/[^\\s-]+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
                           .map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(match[0]);
    }
  }
  return broken;
}"""


def query(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(page.url).query).items()}


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


def test_default_sample_opens_at_its_first_step(lens):
    label = lens.open()

    steps = lens_steps(sample_file(DEFAULT_SAMPLE))
    assert_label(label, 1, steps)
    picker = lens.page.locator(".st-key-lens-run_select").get_by_role("combobox")
    expect(picker).to_have_value(DEFAULT_SAMPLE)
    assert query(lens.page).get("run") == DEFAULT_SAMPLE
    lens.screenshot("default-sample")


def test_upload_plain_and_gzipped_recordings(lens, tmp_path):
    lens.open()

    label = lens.upload(PARALLEL)
    assert_label(label, 1, lens_steps(PARALLEL))
    details = lens.run_details()
    expect(details).to_contain_text("recording {snapshot")
    lens.screenshot("uploaded-plain")
    lens.close_run_details()

    gzipped = tmp_path / "parallel-3-reviewers.json.gz"
    gzipped.write_bytes(gzip.compress(PARALLEL.read_bytes()))
    label = lens.upload(gzipped)
    assert_label(label, 1, lens_steps(PARALLEL))

    envelope = CORPUS / SKILLGRAPH / "envelope.json.gz"
    label = lens.upload(envelope)
    assert_label(label, 1, lens_steps(envelope))
    expect(lens.run_details()).to_contain_text("agentfootprint.recording.v1")
    lens.close_run_details()
    label, _ = lens.step_by("next")  # the uploaded run is the one being stepped
    assert_label(label, 2, lens_steps(envelope))
    assert lens.sidebar_errors() == []
    lens.screenshot("uploaded-gzipped-envelope")


def test_a_file_that_is_not_a_recording_is_refused_and_the_app_stays_usable(lens, tmp_path):
    lens.page.set_viewport_size({"width": 1280, "height": 720})  # issue #39's screen
    before = lens.open()
    bad = tmp_path / "not-a-recording.json"
    bad.write_text('{"hello": "world"}')

    lens.page.locator(".st-key-lens-uploader input[type=file]").set_input_files(str(bad))
    errors = lens.page.locator('[data-testid="stSidebar"] [data-testid="stAlertContentError"]')
    expect(errors).to_contain_text("not-a-recording.json", timeout=30_000)
    lens.wait_idle()
    lens.screenshot("refused")
    # The refusal names every kind Lens reads, and no word of it is cut over two
    # lines in the sidebar (a break after a hyphen is a hyphen's).
    text = errors.first.inner_text()
    for kind in KINDS:
        assert kind.words in text, kind.words
    assert errors.first.evaluate(BROKEN_WORDS) == []
    # The check sees a word cut short: one planted in a narrow box that breaks anywhere.
    planted = lens.page.evaluate("""() => { const box = document.createElement('div');
        box.style.cssText = 'width:60px;word-break:break-all;position:absolute';
        box.id = 'lens-test-planted'; box.textContent = 'supercalifragilistic ok';
        document.body.appendChild(box); return true; }""")
    assert planted
    assert lens.page.locator("#lens-test-planted").evaluate(BROKEN_WORDS) == [
        "supercalifragilistic"]
    lens.page.evaluate("() => document.getElementById('lens-test-planted').remove()")

    assert lens.step_label().text == before.text
    label, _ = lens.step_by("next")
    assert label.number == 2


def test_step_with_keyboard_and_buttons(lens):
    steps = lens_steps(sample_file(DEFAULT_SAMPLE))
    total = len(steps)
    assert_label(lens.open(), 1, steps)

    for how, number in (("N", 2), ("N", 3), ("P", 2)):
        label, ms = lens.step_by(how)
        record_latency("step change, key (sample)", ms)
        assert_label(label, number, steps)
    record_note("shortcut presses dropped by the page (pressed again)", lens.lost_keys)
    lens.screenshot("after-keys")

    for how, number in (("next", 3), ("next", 4), ("previous", 3)):
        label, ms = lens.step_by(how)
        record_latency("step change, button (sample)", ms)
        assert_label(label, number, steps)
    assert query(lens.page).get("step") == "3"

    label, _ = lens.go("lens.last", total)
    assert_label(label, total, steps)
    expect(lens.page.locator(".st-key-lens-next button").filter(visible=True)).to_be_disabled()
    lens.screenshot("last-step")
    label, _ = lens.go("lens.first", 1)
    assert_label(label, 1, steps)
    expect(lens.page.locator(".st-key-lens-previous button").filter(visible=True)).to_be_disabled()

    # The position is in the URL, so a copied link opens the same view.
    lens.step_by("next")
    lens.step_by("next")
    link = urlsplit(lens.page.url)
    assert query(lens.page)["step"] == "3"
    assert_label(lens.open(link.query), 3, steps)


def test_drill_into_a_branch_and_back_out(lens):
    path = sample_file("parallel-3-reviewers")
    root = lens_steps(path)
    assert_label(lens.choose_sample("parallel-3-reviewers"), 1, root)
    assert lens.crumbs() == ["⌂ root"]
    children = lens.children()
    assert children == ["legal", "security", "cost"]
    lens.screenshot("root-scope")

    lens.child_buttons().filter(has_text="security").click()
    expect(lens.crumb_buttons()).to_have_count(2)
    lens.wait_idle()
    assert lens.crumbs() == ["⌂ root", "security"]
    inside = lens_steps(path, ("__root__", "security"))
    label = lens.step_label()
    assert_label(label, 1, inside)
    assert query(lens.page).get("drill") == "__root__/security"
    if len(inside) > 1:
        label, _ = lens.step_by("next")
        assert_label(label, 2, inside)
    lens.screenshot("inside-security")

    lens.crumb_buttons().filter(has_text="root").click()
    expect(lens.crumb_buttons()).to_have_count(1)
    lens.wait_idle()
    assert_label(lens.step_label(), 1, root)
    assert lens.children() == children
    lens.screenshot("back-at-root")

    # A run without a skill graph says so on the route panel.
    lens.open_tab("Why this skill?")
    expect(lens.page.locator('[data-testid="stMain"]')).to_contain_text("No skill graph in this run")


def test_drill_two_levels_into_a_nested_composition(lens):
    path = sample_file("nested-sequence-with-parallel")
    lens.choose_sample("nested-sequence-with-parallel")
    first = lens.children()
    assert first, "the Sequence offers no child to enter"
    parallel = next((c for c in first if "review" in c), first[0])
    lens.child_buttons().filter(has_text=parallel).first.click()
    expect(lens.crumb_buttons()).to_have_count(2)
    lens.wait_idle()
    inner = lens.children()
    assert inner, f"{parallel} offers no branch to enter"
    lens.child_buttons().first.click()
    expect(lens.crumb_buttons()).to_have_count(3)
    lens.wait_idle()
    drill = tuple(query(lens.page)["drill"].split("/"))
    assert_label(lens.step_label(), 1, lens_steps(path, drill))
    lens.screenshot("two-levels-down")


def test_route_panel_shows_the_hops_and_moves_the_slider(lens):
    from lens.route_view import hop_step_index
    from recorders.evidence import build_evidence_index

    path = sample_file(SKILLGRAPH)
    recording = load_path(path)
    projection = build_projection(recording, "lens")
    hops = projection.route.get_hops()
    lens.choose_sample(SKILLGRAPH)

    lens.open_tab("Why this skill?")
    expect(lens.page.locator('[data-testid="stMain"]')).to_contain_text(
        f"{len(hops)} hops, 0 rejected")
    texts = lens.plot_texts()
    path_shown = [t for t in texts if t in {"esxi-inventory", "volume-lookup", "lun-performance"}]
    assert path_shown == ["esxi-inventory", "volume-lookup", "lun-performance"], texts
    hop_marks = [t for t in texts if re.search(r"#\d+$", t)]
    assert len(hop_marks) == len(hops), texts
    lens.screenshot("route-panel")

    row = 2
    expected = hop_step_index(hops[row], projection.get_steps(), build_evidence_index(recording))
    lens.select_grid_row(row)
    lens.expect_tab_selected("Steps")
    label = lens.wait_for_step(expected + 1)
    assert_label(label, expected + 1, projection.get_steps())
    lens.screenshot("hop-selected-moves-slider")


def test_route_panel_marks_rejections_and_governor_trips(lens):
    route = build_projection(load_path(sample_file(REJECTED_CAP)), "lens").route
    hops, trips = route.get_hops(), route.get_trips()
    rejected = sum(1 for h in hops if h.outcome == "rejected")
    lens.choose_sample(REJECTED_CAP)
    lens.open_tab("Why this skill?")
    main = lens.page.locator('[data-testid="stMain"]')
    expect(main).to_contain_text(f"{len(hops)} hops, {rejected} rejected")
    expect(main).to_contain_text(
        f"{len(trips)} governor trip" + ("" if len(trips) == 1 else "s") + ": the route misbehaved")
    expect(main).to_contain_text("rejected-cap")
    lens.screenshot("rejections")

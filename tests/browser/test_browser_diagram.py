"""The arrow diagram as Chromium draws it at 1280×720: labels apart, within their estimate.

The unit tests check the layout's geometry with an estimate of each label's
size (``lens.layout.text_box``). Here the real font is measured: every text
of the diagram is drawn no wider than its estimate, no two overlap on
screen, and the chart is at least as wide as the layout assumed, so nothing
is squeezed.
"""

from __future__ import annotations

import math

import pytest
from lens_browser import REPO
from lens_page import DIAGRAM, LensPage
from playwright.sync_api import expect

from lens.layout import DESIGN_WIDTH, LINE_BREAK, NODE_LABEL_SIZE, text_box

pytestmark = pytest.mark.browser

# (sample, step): a Conditional at its decision, a Loop mid-way, a Sequence's
# answer (routed around the agents between), a Parallel's merge.
VIEWS = [("conditional-routes-to-agent", 1), ("loop-refine-4-iterations", 3),
         ("nested-sequence-with-parallel", 4), ("parallel-3-reviewers", 2)]
# Text drawn at a size the layout gave it; rounding of glyph boxes.
SLACK_PX = 1.0


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    page.set_viewport_size({"width": 1280, "height": 720})
    return LensPage(page, screenshot_dir, request.node.name)


def drawn_texts(lens: LensPage) -> list[dict]:
    """Every non-empty text in the diagram: its content, line count and screen box."""
    return lens.page.locator(DIAGRAM).first.evaluate("""chart => [...chart.querySelectorAll(
        'svg .mark-text text')].filter(t => t.textContent.trim()).map(t => {
          const r = t.getBoundingClientRect();
          const lines = t.querySelectorAll('tspan');
          return {text: t.textContent, lines: Math.max(lines.length, 1),
                  shown: [...(lines.length ? lines : [t])].map(l => l.textContent),
                  size: parseFloat(getComputedStyle(t).fontSize),
                  x0: r.left, y0: r.top, x1: r.right, y1: r.bottom};
        })""")


@pytest.mark.parametrize("sample,step", VIEWS)
def test_diagram_labels_fit_their_estimate_and_never_overlap_on_screen(lens, sample, step):
    lens.open(f"run={sample}&step={step}")
    chart = lens.page.locator(DIAGRAM).first
    box = chart.bounding_box()
    assert box is not None and box["width"] >= DESIGN_WIDTH, \
        f"the diagram is {box and box['width']:.0f} px wide; its layout assumes {DESIGN_WIDTH}"
    texts = drawn_texts(lens)
    assert texts, "the diagram draws no labels"
    for text in texts:
        # Estimated as the layout does, from the text as drawn.
        carried = LINE_BREAK.join(text["shown"])
        estimate = text_box(carried, text["size"] or NODE_LABEL_SIZE, (0, 0))
        width, height = text["x1"] - text["x0"], text["y1"] - text["y0"]
        assert width <= estimate[2] - estimate[0] + SLACK_PX, text
        assert height <= estimate[3] - estimate[1] + SLACK_PX, text
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            apart = a["x1"] <= b["x0"] or b["x1"] <= a["x0"] or a["y1"] <= b["y0"] or b["y1"] <= a["y0"]
            assert apart, f"{a['text']!r} and {b['text']!r} overlap on screen"
    lens.screenshot(f"{sample}-step-{step}")


# Each arrow line and each head as drawn: a line's start and its end, relative
# to it; a head's place and the angle it is turned by.
DRAWN_ARROWS = """chart => {
  const numbers = s => (s || '').match(/-?\\d+(\\.\\d+)?(e-?\\d+)?/g).map(Number);
  const shown = e => e.getAttribute('opacity') !== '0';
  const lines = [...chart.querySelectorAll('svg g.mark-rule line')].filter(shown).map(l => {
    const [x, y] = numbers(l.getAttribute('transform'));
    return {x, y, dx: Number(l.getAttribute('x2')), dy: Number(l.getAttribute('y2')),
            colour: l.getAttribute('stroke')};
  });
  const heads = [...chart.querySelectorAll('svg g.mark-symbol[aria-hidden="true"] path')]
    .filter(shown).map(p => {
      const [x, y, angle] = numbers(p.getAttribute('transform'));
      return {x, y, angle: angle || 0, colour: p.getAttribute('fill')};
    });
  return {lines, heads};
}"""


def lines_under(head: dict, lines: list[dict]) -> list[dict]:
    """The drawn lines of the head's colour it sits on (within a pixel): an
    arrow may cross or run along another where the head is."""
    found = []
    for line in lines:
        if line["colour"] != head["colour"]:
            continue
        length2 = line["dx"] ** 2 + line["dy"] ** 2
        if not length2:
            continue
        t = ((head["x"] - line["x"]) * line["dx"] + (head["y"] - line["y"]) * line["dy"]) / length2
        if 0 <= t <= 1 and math.dist((head["x"], head["y"]),
                                     (line["x"] + t * line["dx"], line["y"] + t * line["dy"])) <= 1:
            found.append(line)
    return found


@pytest.mark.parametrize("sample,step", VIEWS)
def test_every_arrow_head_sits_on_its_line_and_points_along_it_as_drawn(lens, sample, step):
    # The chart is stretched to its column in x only: a head turned in the
    # layout's pixels would no longer follow a slanted line.
    lens.open(f"run={sample}&step={step}")
    drawn = lens.page.locator(DIAGRAM).first.evaluate(DRAWN_ARROWS)
    assert drawn["heads"], "the diagram draws no arrow heads"
    for head in drawn["heads"]:
        lines = lines_under(head, drawn["lines"])
        assert lines, f"a head at {head} sits on no drawn line of its colour"
        runs = [math.degrees(math.atan2(line["dy"], line["dx"])) % 360 for line in lines]
        off = min(abs((head["angle"] - along + 180) % 360 - 180) for along in runs)
        assert off <= 1.0, f"head turned {head['angle']:.1f}°, its lines run {runs}"


HOSTILE_NAME = "<img src=x onerror=alert(1)><b>bold</b>&amp;"


def test_a_hostile_node_name_is_drawn_and_hovered_as_text(lens, tmp_path):
    data = (REPO / "sample_runs" / "nested-sequence-with-parallel.json").read_bytes().replace(
        b"step-summarise", HOSTILE_NAME.encode())
    recording = tmp_path / "recording.json"
    recording.write_bytes(data)
    lens.open()
    lens.upload(recording)
    chart = lens.page.locator(DIAGRAM).first
    # Its label is cut to fit its column; drawn as text, markup and all.
    assert any(text["text"].startswith("<img") for text in drawn_texts(lens))
    node = chart.locator(f'svg [role="graphics-symbol"][aria-label="{HOSTILE_NAME}"]')
    node.hover()
    tooltip = lens.page.locator("#vg-tooltip-element")
    expect(tooltip).to_contain_text(HOSTILE_NAME)
    # Shown as text: nothing in the tooltip or the chart is made from the name.
    assert tooltip.locator("img, b").count() == 0
    assert chart.locator("img, b, foreignObject").count() == 0
    lens.screenshot("hostile-node-hovered")

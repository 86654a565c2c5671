"""The arrow diagram as Chromium draws it at 1280×720: labels apart, within their estimate.

The unit tests check the layout's geometry with an estimate of each label's
size (``lens.layout.text_box``). Here the real font is measured: every text
of the diagram is drawn no wider than its estimate, no two overlap on
screen, and the chart is at least as wide as the layout assumed, so nothing
is squeezed.
"""

from __future__ import annotations

import html

import pytest
from lens_page import LensPage

from lens.layout import DESIGN_WIDTH, NODE_LABEL_SIZE, text_box

pytestmark = pytest.mark.browser

DIAGRAM = '[data-testid="stMain"] [data-testid="stVegaLiteChart"]'
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
        # Estimated as the layout does, from the escaped text it measured.
        carried = "<br>".join(html.escape(line, quote=False) for line in text["shown"])
        estimate = text_box(carried, text["size"] or NODE_LABEL_SIZE, (0, 0))
        width, height = text["x1"] - text["x0"], text["y1"] - text["y0"]
        assert width <= estimate[2] - estimate[0] + SLACK_PX, text
        assert height <= estimate[3] - estimate[1] + SLACK_PX, text
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            apart = a["x1"] <= b["x0"] or b["x1"] <= a["x0"] or a["y1"] <= b["y0"] or b["y1"] <= a["y0"]
            assert apart, f"{a['text']!r} and {b['text']!r} overlap on screen"
    lens.screenshot(f"{sample}-step-{step}")

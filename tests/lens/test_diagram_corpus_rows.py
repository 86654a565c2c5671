"""The actor chart over every step of every scope of every corpus recording, both projections.

The browser keeps a Vega-Lite chart, and swaps only its data, while its spec
stays the same: so :data:`DIAGRAM_SPEC` must never change nor carry recorded
text, and the rows must make one table of stable, JSON-safe columns. The
frame rows set both scales' domains, so they must hold everything drawn, and
the chart's height must give the drawing its full height (y drawn 1:1).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pytest
from corpus_files import case_names, read_bytes, recording_path
from diagram_geometry import every_step_chart, inside, label_box
from lens_builders import ROOT, step

from lens.arrows import build_arrow_diagram
from lens.diagram_chart import DIAGRAM_SPEC, HOVER_FIELDS, DiagramChart, actor_chart
from lens.layout import node_box
from lens.run import open_run

SPEC_AS_BUILT = json.dumps(DIAGRAM_SPEC, sort_keys=True)
LINE_BREAKS = ("\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c")
# Fields that carry text from the recording (as labels, hover lines, drill paths).
RECORDED_FIELDS = ("text", "drill", *HOVER_FIELDS)


@dataclass
class Drawn:
    where: str
    chart: DiagramChart
    passes: bool  # a Loop root drawn as its passes (labels of two lines)


@pytest.fixture(scope="module", params=case_names())
def charts(request) -> list[Drawn]:
    """Every step's chart of one recording, with the spec checked after each is built."""
    drawn = []
    for where, diagram, chart in every_step_chart(open_run(read_bytes(recording_path(request.param)))):
        where = f"{request.param} {where}"
        assert json.dumps(DIAGRAM_SPEC, sort_keys=True) == SPEC_AS_BUILT, where
        drawn.append(Drawn(where, chart, diagram.passes is not None))
    assert drawn
    return drawn


def reference_row() -> dict:
    """A node row of a small chart: its columns and value types are every row's."""
    steps = [step("react", "user→llm", ("actor:user", "stage:llm:x#1", "actor-arrow", "asks"))]
    return actor_chart(build_arrow_diagram(steps, ROOT, set()), 0).of_kind("node")[0]


def family(value: object) -> str:
    return "text" if isinstance(value, str) else "number"


def test_the_spec_is_the_same_for_every_step(charts):
    # Checked while the charts were built; the spec is still as it was built.
    assert json.dumps(DIAGRAM_SPEC, sort_keys=True) == SPEC_AS_BUILT


def test_no_recorded_string_is_in_the_spec(charts):
    spec = json.dumps(DIAGRAM_SPEC, ensure_ascii=False)
    recorded = {row[field] for drawn in charts for row in drawn.chart.rows
                for field in RECORDED_FIELDS}
    # Short strings ("x", "ok") may be in the spec by chance; longer ones are the recording's.
    found = sorted(value for value in recorded if len(value) >= 6 and value in spec)
    assert found == []


def test_the_spec_holds_no_data():
    def keys(node: object) -> set[str]:
        if isinstance(node, dict):
            return set(node).union(*(keys(value) for value in node.values()))
        if isinstance(node, list):
            return set().union(*(keys(value) for value in node))
        return set()

    assert not keys(DIAGRAM_SPEC) & {"data", "datasets", "values"}


def test_every_row_has_the_same_columns_of_json_safe_values(charts):
    reference = reference_row()
    columns = {key: family(value) for key, value in reference.items()}
    for drawn in charts:
        for row in drawn.chart.rows:
            assert set(row) == set(columns), (drawn.where, row)
            for key, value in row.items():
                assert type(value) in (str, int, float), (drawn.where, key, value)
                assert family(value) == columns[key], (drawn.where, key, value)
                if not isinstance(value, str):
                    assert math.isfinite(value), (drawn.where, key, value)
        json.dumps(drawn.chart.rows, allow_nan=False)


def test_only_a_pass_label_breaks_a_line(charts):
    for drawn in charts:
        for row in drawn.chart.rows:
            for key, value in row.items():
                if not isinstance(value, str):
                    continue
                if key == "text" and drawn.passes:
                    value = value.replace("\n", "", 1)
                assert not any(mark in value for mark in LINE_BREAKS), (drawn.where, key, value)


def drawn_boxes(chart: DiagramChart) -> list[tuple[str, tuple[float, float, float, float]]]:
    """The box of everything the chart draws: line ends, heads, labels, nodes."""
    boxes = []
    for row in chart.rows:
        kind, centre = row["kind"], (row["x"], row["y"])
        if kind == "segment":
            boxes += [(kind, (*centre, *centre)), (kind, (row["x2"], row["y2"], row["x2"], row["y2"]))]
        elif kind in ("head", "node"):
            # The mark's size is its area in px²: its box is that square.
            boxes.append((kind, node_box(centre, math.sqrt(row["size"]))))
        elif kind == "text":
            boxes.append((row["text"], label_box(row["text"], row["size"], centre)))
    return boxes


def test_the_frame_holds_everything_drawn_and_the_height_holds_the_frame(charts):
    padding = DIAGRAM_SPEC["padding"]["top"] + DIAGRAM_SPEC["padding"]["bottom"]
    for drawn in charts:
        frame = drawn.chart.of_kind("frame")
        assert len(frame) == 2, drawn.where
        left, right = sorted(row["x"] for row in frame)
        top, bottom = sorted(row["y"] for row in frame)
        area = (left, top, right, bottom)
        for what, box in drawn_boxes(drawn.chart):
            assert inside(box[:2], area) and inside(box[2:], area), (drawn.where, what, box, area)
        # The plot is as tall as the frame (rounded up to whole px): y is drawn 1:1.
        plot_height = drawn.chart.height - padding
        assert bottom - top <= plot_height < bottom - top + 1, drawn.where

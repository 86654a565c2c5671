"""The benchmark's ECharts redraw of the diagram draws what the plotly figure
draws, reports clicks from its node series, and keeps hover text escaped."""

from __future__ import annotations

import html

from benchmarks.echarts_diagram import NODE_SERIES, echarts_option
from corpus_files import read_bytes, recording_path
from lens.figures import LIT, actor_figure_dict
from lens.run import open_run
from lens.scopes import ROOT
from lens.text import plot_text

HOSTILE = '<b>x</b><img src=x onerror="alert(1)">'


def _arrow_heads(figure: dict) -> int:
    return sum(1 for trace in figure["data"] if trace.get("marker", {}).get("symbol") == "arrow"
               for size in trace["marker"]["size"] if size)


def test_every_step_keeps_the_figures_nodes_heads_and_lit_arrows():
    run = open_run(read_bytes(recording_path("agent-refund-multi-tools-error")))
    diagram = run.diagram("lens", ROOT)
    for index in range(len(run.root_steps("lens"))):
        figure = actor_figure_dict(diagram, index, title="")
        option = echarts_option(figure)
        nodes = option["series"][NODE_SERIES]
        plotly_nodes = next(t for t in figure["data"] if t["mode"] == "markers")
        assert nodes["type"] == "scatter" and nodes["selectedMode"] == "single"
        assert [n["value"] for n in nodes["data"]] == [list(p) for p in zip(plotly_nodes["x"],
                                                                             plotly_nodes["y"])]
        lines = [s for s in option["series"] if s["type"] == "lines"]
        heads = [d for s in lines for d in s["data"] if d.get("symbol") == ["none", "arrow"]]
        assert len(heads) == _arrow_heads(figure)
        lit_in_figure = any(t.get("line", {}).get("color") == LIT for t in figure["data"])
        assert any(s["lineStyle"]["color"] == LIT for s in lines) == lit_in_figure
        # The layout's y grows downward: the axis is inverted over the same range.
        assert option["yAxis"]["inverse"] is True
        assert sorted([option["yAxis"]["min"], option["yAxis"]["max"]]) == sorted(
            figure["layout"]["yaxis"]["range"])


def test_labels_are_plain_text_and_hover_stays_escaped():
    """ECharts draws labels as text on a canvas but renders a tooltip formatter
    string as HTML: the name shows as written, the hover text stays escaped."""
    figure = {"layout": {"xaxis": {"range": [0, 100]}, "yaxis": {"range": [50, 0]},
                         "margin": {"t": 6, "b": 6}, "height": 62},
              "data": [{"mode": "markers", "x": [50.0], "y": [25.0], "text": [plot_text(HOSTILE)],
                        "hovertext": [plot_text(HOSTILE) + "<br>actor"],
                        "marker": {"symbol": ["square"], "size": [40], "color": ["#1c7ed6"],
                                   "opacity": [1], "line": {"width": [1], "color": ["#343a40"]}}}]}
    node = echarts_option(figure)["series"][NODE_SERIES]["data"][0]
    assert node["name"] == HOSTILE
    assert node["symbol"] == "rect"
    formatter = node["tooltip"]["formatter"]
    assert "<img" not in formatter and "<b>" not in formatter
    assert html.escape(HOSTILE, quote=False) in formatter

"""What the skill-route figure draws (plotly): numbered hop arrows, a stay as a loop.

The actor diagram is a Vega-Lite chart now: ``test_diagram_chart.py``."""

from __future__ import annotations

import pytest

from lens.figures import LIT, route_figure
from recorders.route_recorder import RouteHop


def node_positions(figure) -> dict[str, tuple[float, float]]:
    nodes = figure.data[-1]
    return {label: (x, y) for label, x, y in zip(nodes.text, nodes.x, nodes.y)}


def arrows_in(figure, colour: str) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """(source, target) of each arrow drawn in ``colour``, read from its line trace."""
    arrows = []
    for trace in figure.data:
        if trace.mode != "lines+markers" or trace.line.color != colour:
            continue
        points = list(zip(trace.x, trace.y))
        for start in range(0, len(points), 4):
            source, head, target, gap = points[start:start + 4]
            assert gap == (None, None)
            # The head sits between the ends, nearer the target, turned along its line.
            assert trace.marker.size[start + 1] > 0 and trace.marker.size[start] == 0
            for axis in (0, 1):
                expected = source[axis] + (target[axis] - source[axis]) * 0.62
                assert head[axis] == pytest.approx(expected)
            arrows.append((source, target))
        assert trace.marker.angleref == "previous" and trace.marker.symbol == "arrow"
    return arrows


def texts_in(figure, colour: str) -> list[str]:
    """Texts drawn in ``colour`` (a trace's colour may be one, or one per text)."""
    found = []
    for trace in figure.data:
        if trace.mode not in ("text", "markers+text"):
            continue
        colours = trace.textfont.color
        if isinstance(colours, str) or colours is None:
            colours = [colours] * len(trace.text)
        found += [text for text, drawn in zip(trace.text, colours) if drawn == colour]
    return found


def test_route_hops_are_numbered_arrows_and_a_stay_is_a_loop():
    hops = [RouteHop("s#1", 1, "entry", "", to_skill="triage"),
            RouteHop("s#2", 2, "route", "", from_skill="triage", to_skill="refunds"),
            RouteHop("s#3", 3, "stay", "", from_skill="refunds", to_skill="refunds")]
    figure = route_figure(hops, [])
    where = node_positions(figure)
    assert arrows_in(figure, LIT) == [(where["(start)"], where["triage"]),
                                      (where["triage"], where["refunds"])]
    assert texts_in(figure, LIT) == ["#1", "#2"]
    assert "↻ #3" in [text for trace in figure.data if trace.text is not None
                      for text in trace.text]
    assert figure.layout.annotations == ()

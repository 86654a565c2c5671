"""Plotly figure of the skill route: skills as nodes, hops as numbered arrows.

Every string that reaches plotly (node labels, hover text, arrow labels,
titles) goes through :func:`lens.text.plot_text`, because plotly renders a
subset of HTML (links included) in all of them. (The actor-arrow diagram is
a Vega-Lite chart: :mod:`lens.diagram_chart`.)
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import plotly.graph_objects as go

from recorders.route_recorder import RouteHop, RouteTrip
from lens.wording import plural
from lens.arrows import Edge
from lens.diagram_chart import LIT, loop_text
from lens.layout import NODE_SIZE, Point
from lens.route_view import trip_marks
from lens.text import one_line, plot_text

REJECTED = "#c92a2a"
STAY = "#495057"
# Where on its line a skill-route arrow's head and its label sit, from source (0) to target (1):
# apart, so a label never covers the head.
_HEAD_AT = 0.62
_LABEL_AT = 0.38
_HEAD_SIZE = 9
_LABEL_CHARS = 32


def route_figure(hops: Sequence[RouteHop], trips: Sequence[RouteTrip]) -> go.Figure:
    """Skills as nodes, hops drawn in order and numbered; rejections dashed red."""
    visited: dict[str, None] = {}
    refused: dict[str, None] = {}
    for hop in hops:
        for skill in (hop.from_skill, hop.to_skill):
            if isinstance(skill, str):
                visited.setdefault(skill)
    for hop in hops:
        if hop.outcome == "rejected" and isinstance(hop.requested_skill, str):
            if hop.requested_skill not in visited:
                refused.setdefault(hop.requested_skill)
    start = "(start)"
    positions: dict[str, Point] = {start: (0.0, 0.0)}
    for column, skill in enumerate(visited, start=1):
        positions[skill] = (float(column), 0.0)
    for offset, skill in enumerate(refused):
        positions[skill] = (1.0 + offset, -1.0)

    numbers: dict[tuple[str, str, str], list[int]] = {}
    for number, hop in enumerate(hops, start=1):
        source = hop.from_skill if isinstance(hop.from_skill, str) else start
        if hop.outcome == "rejected":
            target, style = _text(hop.requested_skill), "rejected"
        elif hop.outcome == "stay" or hop.to_skill == hop.from_skill:
            target, style = _text(hop.to_skill), "stay"
        else:
            target, style = _text(hop.to_skill), "move"
        if target not in positions:
            continue
        numbers.setdefault((source, target, style), []).append(number)

    drawn = {(s, t) for s, t, style in numbers if style == "move"}
    moves: list[tuple[Edge, str | None]] = []
    stays: list[tuple[Edge, str | None]] = []
    traces: list = []
    for (source, target, style), hop_numbers in numbers.items():
        label = "#" + ", #".join(map(str, hop_numbers))
        if style == "move":
            moves.append(((source, target), label))
        elif style == "stay":
            stays.append(((target, target), label))
        else:
            traces.append(_rejection_trace(positions[source], positions[target], label))
    traces += _edge_traces(moves, positions, drawn, LIT, 2.5)
    traces += _edge_traces(stays, positions, drawn, STAY, 2.5)

    tripped = trip_marks(hops, trips)
    tripped_skills = {skill for trip in trips for skill in trip.skills}
    names = list(positions)
    node_trace = go.Scatter(
        x=[positions[n][0] for n in names],
        y=[positions[n][1] for n in names],
        mode="markers+text",
        text=[plot_text(one_line(n, _LABEL_CHARS)) for n in names],
        textposition="bottom center",
        hovertext=[plot_text(one_line(n, 120)) + _route_hover(n, refused, tripped_skills)
                   for n in names],
        hoverinfo="text",
        marker=dict(
            size=NODE_SIZE,
            symbol=["diamond" if n == start else "x" if n in refused else "circle" for n in names],
            color=["#adb5bd" if n == start else REJECTED if n in refused else "#7048e8"
                   for n in names],
            line=dict(width=[3 if n in tripped_skills else 1 for n in names],
                      color=["#f08c00" if n in tripped_skills else "#343a40" for n in names]),
        ),
        showlegend=False,
    )
    title = f"{len(hops)} hops" + (f" · {plural(len(trips), 'governor trip')}" if trips else "")
    if tripped:
        title += " · ⚠ marked in the table"
    return go.Figure(data=[*traces, node_trace], layout=_layout(positions, title))


def _route_hover(name: str, refused: dict[str, None], tripped: set[str]) -> str:
    extra = []
    if name in refused:
        extra.append("requested, never reached")
    if name in tripped:
        extra.append("a governor tripped here")
    return "".join("<br>" + e for e in extra)


def _edge_traces(edges: Sequence[tuple[Edge, str | None]], positions: dict[str, Point],
                 drawn: Iterable[Edge], colour: str, width: float) -> list[dict]:
    """Arrows of one style as at most three traces: the lines with a head on
    each, the loop marks, and the labels.

    Plotly draws traces far faster than annotations (one annotation per arrow
    made the diagram most of a slider move's time in the browser), and the
    heads are markers turned by plotly along their own line, so they point
    right at any width of the chart.
    """
    both_ways = set(drawn)
    xs: list[float | None] = []
    ys: list[float | None] = []
    sizes: list[float] = []
    loops: list[tuple[Point, str]] = []
    label_points: list[tuple[Point, str]] = []
    for (source, target), label in edges:
        if source == target:
            loops.append((positions[source], label or ""))
            continue
        (sx, sy), (tx, ty) = positions[source], positions[target]
        if (target, source) in both_ways:
            # Both directions are drawn: shift each to its own side so neither hides the other.
            sx, sy, tx, ty = _offset(sx, sy, tx, ty, 0.07)
        head = (sx + (tx - sx) * _HEAD_AT, sy + (ty - sy) * _HEAD_AT)
        # source, head, target, gap: the head marker is turned along source → head.
        xs += [sx, head[0], tx, None]
        ys += [sy, head[1], ty, None]
        sizes += [0, _HEAD_SIZE + width * 2, 0, 0]
        if label:
            label_points.append(((sx + (tx - sx) * _LABEL_AT, sy + (ty - sy) * _LABEL_AT), label))
    traces: list[dict] = []
    if xs:
        traces.append(dict(type="scatter", x=xs, y=ys, mode="lines+markers",
                           line=dict(color=colour, width=width),
                           marker=dict(symbol="arrow", angleref="previous", size=sizes,
                                       color=colour, line=dict(width=0)),
                           hoverinfo="skip", showlegend=False))
    if loops:
        # An invisible node-sized marker lifts each loop mark above its node.
        traces.append(dict(type="scatter", x=[p[0] for p, _ in loops], y=[p[1] for p, _ in loops],
                           mode="markers+text", marker=dict(size=NODE_SIZE, opacity=0),
                           text=[plot_text(one_line(loop_text(label), 48)) for _, label in loops],
                           textposition="top center", textfont=dict(color=colour, size=13),
                           hoverinfo="skip", showlegend=False))
    if label_points:
        traces.append(dict(type="scatter", x=[p[0] for p, _ in label_points],
                           y=[p[1] for p, _ in label_points], mode="text",
                           text=[plot_text(one_line(label, 48)) for _, label in label_points],
                           textposition="top center", textfont=dict(color=colour, size=13),
                           hoverinfo="skip", showlegend=False))
    return traces


def _rejection_trace(source: Point, target: Point, label: str) -> go.Scatter:
    middle = ((source[0] + target[0]) / 2, (source[1] + target[1]) / 2)
    return go.Scatter(
        x=[source[0], middle[0], target[0]], y=[source[1], middle[1], target[1]],
        mode="lines+text", line=dict(color=REJECTED, width=2, dash="dash"),
        text=["", plot_text("✕ rejected " + label), ""], textposition="middle right",
        textfont=dict(color=REJECTED), hoverinfo="skip", showlegend=False,
    )


def _offset(sx: float, sy: float, tx: float, ty: float, amount: float) -> tuple[float, ...]:
    dx, dy = tx - sx, ty - sy
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length * amount, dx / length * amount
    return sx + nx, sy + ny, tx + nx, ty + ny


def _layout(positions: dict[str, Point], title: str) -> dict:
    # Handed to go.Figure in one piece: building the figure and then calling
    # update_layout costs three to four times as much (plotly re-walks every
    # property through its update machinery), on every slider move.
    xs = [p[0] for p in positions.values()] or [0.0]
    ys = [p[1] for p in positions.values()] or [0.0]
    rows = max(ys) - min(ys) + 1
    return dict(
        title=dict(text=plot_text(one_line(title, 140)), x=0, xanchor="left", font=dict(size=15)),
        xaxis=dict(visible=False, range=[min(xs) - 0.6, max(xs) + 0.6], fixedrange=True),
        yaxis=dict(visible=False, range=[min(ys) - 0.8, max(ys) + 0.8], fixedrange=True),
        # One row of actors needs little height: a flat diagram stays short so the
        # step it shows fits the first screen with it.
        height=int(max(220, 100 * rows + 100) + (30 if title else 0)),
        margin=dict(l=10, r=10, t=50 if title else 20, b=10),
        showlegend=False,
        dragmode=False,
        clickmode="event+select",
        hoverlabel=dict(namelength=-1),
        # No plotly.py template: st.plotly_chart applies Streamlit's own, and the
        # default one is 7 of a diagram's 8 KB, sent and parsed on every step.
        template=dict(),
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else str(value)

"""Plotly figures: the actor-arrow diagram of a scope and the skill route.

Every string that reaches plotly (node labels, hover text, arrow labels,
titles) goes through :func:`lens.text.plot_text`, because plotly renders a
subset of HTML (links included) in all of them.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import plotly.graph_objects as go

from recorders.route_recorder import RouteHop, RouteTrip
from lens.actors import CHILD, MODEL, STAGE, TOOLS, USER, Actor
from lens.arrows import ArrowDiagram, Edge
from lens.layout import Point, column_layout
from lens.route_view import trip_marks
from lens.scopes import encode_path
from lens.text import one_line, plot_text

LIT = "#d9480f"
FAINT = "rgba(110, 110, 110, 0.35)"
REJECTED = "#c92a2a"
STAY = "#495057"
ROLE_COLOURS = {USER: "#1c7ed6", MODEL: "#7048e8", TOOLS: "#2b8a3e", CHILD: "#e67700",
                STAGE: "#868e96"}
ROLE_NAMES = {USER: "the user", MODEL: "model", TOOLS: "tools", CHILD: "subflow",
              STAGE: "stage"}
NODE_SIZE = 32
_STANDOFF = NODE_SIZE / 2 + 4  # pixels between an arrow's end and a node's centre
_LABEL_CHARS = 32


def actor_figure(diagram: ArrowDiagram, index: int, title: str) -> go.Figure:
    """The scope's actors with step ``index``'s arrows lit and earlier ones faint."""
    actors = {actor.key: actor for actor in diagram.actors}
    positions = column_layout(list(actors), diagram.first_seen)
    lit = diagram.lit(index) if len(diagram) else ()
    faint = diagram.faint(index) if len(diagram) else []
    drawn = set(faint) | {arrow.edge for arrow in lit}
    annotations: list[dict] = []
    for edge in faint:
        annotations += _edge_annotations(edge, positions, drawn, FAINT, 1.5, label=None)
    labels: dict[Edge, list[str]] = {}
    for arrow in lit:
        labels.setdefault(arrow.edge, []).append(arrow.label)
    for edge, texts in labels.items():
        annotations += _edge_annotations(edge, positions, drawn, LIT, 3.5,
                                         label=", ".join(dict.fromkeys(texts)))
    active = diagram.active_actor_keys(index) if len(diagram) else set()
    return go.Figure(data=[_actor_trace(list(actors.values()), positions, active)],
                     layout=_layout(positions, title, annotations))


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
    annotations: list[dict] = []
    traces: list[go.Scatter] = []
    for (source, target, style), hop_numbers in numbers.items():
        label = "#" + ", #".join(map(str, hop_numbers))
        if style == "move":
            annotations += _edge_annotations((source, target), positions, drawn, LIT, 2.5, label)
        elif style == "stay":
            annotations += _loop_annotation(positions[target], STAY, label)
        else:
            traces.append(_rejection_trace(positions[source], positions[target], label))

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
    title = f"{len(hops)} hops" + (f" · {len(trips)} governor trip(s)" if trips else "")
    if tripped:
        title += " · ⚠ marked in the table"
    return go.Figure(data=[*traces, node_trace], layout=_layout(positions, title, annotations))


# ─── pieces ────────────────────────────────────────────────────────────


def _actor_trace(actors: list[Actor], positions: dict[str, Point], active: set[str]) -> dict:
    # A plain dict: go.Figure validates it once; a go.Scatter would be validated, then copied.
    return dict(
        type="scatter",
        x=[positions[a.key][0] for a in actors],
        y=[positions[a.key][1] for a in actors],
        mode="markers+text",
        text=[plot_text(one_line(a.label, _LABEL_CHARS)) for a in actors],
        textposition="bottom center",
        hovertext=[_actor_hover(a) for a in actors],
        hoverinfo="text",
        customdata=[encode_path(a.drill_path) if a.drill_path else "" for a in actors],
        marker=dict(
            size=[NODE_SIZE + (8 if a.key in active else 0) for a in actors],
            color=[ROLE_COLOURS.get(a.role, "#868e96") for a in actors],
            symbol=["square" if a.drill_path else "circle" for a in actors],
            line=dict(width=[4 if a.key in active else 1 for a in actors],
                      color=[LIT if a.key in active else "#343a40" for a in actors]),
        ),
        showlegend=False,
    )


def _actor_hover(actor: Actor) -> str:
    lines = [plot_text(one_line(actor.label, 80)),
             f"{ROLE_NAMES.get(actor.role, actor.role)} · {plot_text(one_line(actor.detail, 120))}"]
    if actor.drill_path:
        lines.append("click to drill in")
    return "<br>".join(lines)


def _route_hover(name: str, refused: dict[str, None], tripped: set[str]) -> str:
    extra = []
    if name in refused:
        extra.append("requested, never reached")
    if name in tripped:
        extra.append("a governor tripped here")
    return "".join("<br>" + e for e in extra)


def _edge_annotations(edge: Edge, positions: dict[str, Point], drawn: Iterable[Edge],
                      colour: str, width: float, label: str | None) -> list[dict]:
    source, target = edge
    if source == target:
        return _loop_annotation(positions[source], colour, label)
    (sx, sy), (tx, ty) = positions[source], positions[target]
    if (target, source) in set(drawn):
        # Both directions are drawn: shift each to its own side so neither hides the other.
        sx, sy, tx, ty = _offset(sx, sy, tx, ty, 0.07)
    out = [dict(x=tx, y=ty, ax=sx, ay=sy, xref="x", yref="y", axref="x", ayref="y",
                showarrow=True, arrowhead=3, arrowsize=1.1, arrowwidth=width,
                arrowcolor=colour, standoff=_STANDOFF, startstandoff=_STANDOFF, text="")]
    if label:
        out.append(dict(x=(sx + tx) / 2, y=(sy + ty) / 2, xref="x", yref="y", showarrow=False,
                        text=plot_text(one_line(label, 48)), font=dict(color=colour, size=13),
                        bgcolor="rgba(255,255,255,0.85)"))
    return out


def _loop_annotation(point: Point, colour: str, label: str | None) -> list[dict]:
    text = "↻" if not label else ("" if label.startswith("↻") else "↻ ") + label
    return [dict(x=point[0], y=point[1], xref="x", yref="y", showarrow=False, yshift=NODE_SIZE,
                 text=plot_text(one_line(text, 48)), font=dict(color=colour, size=13),
                 bgcolor="rgba(255,255,255,0.85)")]


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


def _layout(positions: dict[str, Point], title: str, annotations: list[dict]) -> dict:
    # Handed to go.Figure in one piece: building the figure and then calling
    # update_layout costs three to four times as much (plotly re-walks every
    # property through its update machinery), on every slider move.
    xs = [p[0] for p in positions.values()] or [0.0]
    ys = [p[1] for p in positions.values()] or [0.0]
    rows = max(ys) - min(ys) + 1
    return dict(
        title=dict(text=plot_text(one_line(title, 140)), x=0, xanchor="left", font=dict(size=15)),
        annotations=annotations,
        xaxis=dict(visible=False, range=[min(xs) - 0.6, max(xs) + 0.6], fixedrange=True),
        yaxis=dict(visible=False, range=[min(ys) - 0.8, max(ys) + 0.8], fixedrange=True),
        height=int(max(300, 110 * rows + 120)),
        margin=dict(l=10, r=10, t=50, b=10),
        showlegend=False,
        dragmode=False,
        clickmode="event+select",
        hoverlabel=dict(namelength=-1),
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else str(value)

"""Plotly figures: the actor-arrow diagram of a scope and the skill route.

Every string that reaches plotly (node labels, hover text, arrow labels,
titles) goes through :func:`lens.text.plot_text`, because plotly renders a
subset of HTML (links included) in all of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

import plotly.graph_objects as go

from recorders.route_recorder import RouteHop, RouteTrip
from lens.actors import CHILD, MODEL, STAGE, TOOLS, USER, Actor
from lens.arrows import ArrowDiagram, BranchOption, Edge, LoopPasses
from lens.layout import (ACTIVE_NODE_SIZE, NODE_SIZE, Geometry, Label, Point, Route, SceneArrow,
                         lay_out)
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
NODE_TEXT = "#495057"
# Where on its line a skill-route arrow's head and its label sit, from source (0) to target (1):
# apart, so a label never covers the head.
_HEAD_AT = 0.62
_LABEL_AT = 0.38
_HEAD_SIZE = 9
_LABEL_CHARS = 32


def actor_figure(diagram: ArrowDiagram, index: int, title: str) -> go.Figure:
    """The scope's actors with step ``index``'s arrows lit and earlier ones faint;
    a decider's branches not taken faint; a Loop root as its passes."""
    return go.Figure(actor_figure_dict(diagram, index, title))


def actor_figure_dict(diagram: ArrowDiagram, index: int, title: str) -> dict:
    """What :func:`actor_figure` draws, as plotly's plain ``{data, layout}``
    (before plotly.py validates it, which is most of a figure's cost)."""
    scene = _scene(diagram, index)
    keys = list(scene.nodes)
    geometry = lay_out(keys, {k: node.text for k, node in scene.nodes.items()}, scene.arrows,
                       scene.order_edges, scene.grid)
    traces: list[dict] = []
    for style, colour, width, dash in _ARROW_STYLES:
        traces += _route_traces([r for r in geometry.routes if r.arrow.style == style],
                                colour, width, dash)
    traces += _label_traces(geometry)
    # The nodes come last: drawn over the lines, and the trace clicks are read from.
    traces.append(_node_trace(scene, geometry))
    return dict(data=traces, layout=_pixel_layout(geometry, title))


# ─── the scene: what is drawn at one step ─────────────────────────────


@dataclass(frozen=True)
class _Node:
    actor: Actor
    text: str  # label, safe for plotly
    hover: str
    active: bool = False
    faint: bool = False


@dataclass
class _Scene:
    nodes: dict[str, _Node]
    arrows: list[SceneArrow]
    order_edges: list[Edge]
    grid: dict[str, tuple[int, int]] | None = None


def _scene(diagram: ArrowDiagram, index: int) -> _Scene:
    if diagram.passes is not None and len(diagram):
        return _pass_scene(diagram.passes, index)
    active = diagram.active_actor_keys(index) if len(diagram) else set()
    nodes = {a.key: _Node(a, plot_text(one_line(a.label, _LABEL_CHARS)), _actor_hover(a),
                          active=a.key in active) for a in diagram.actors}
    lit = diagram.lit(index) if len(diagram) else ()
    faint = diagram.faint(index) if len(diagram) else []
    labels: dict[Edge, list[str]] = {}
    for arrow in lit:
        labels.setdefault(arrow.edge, []).append(arrow.label)
    arrows = [SceneArrow(edge, "", "faint") for edge in faint]
    for edge, texts in labels.items():
        text = ", ".join(dict.fromkeys(texts))
        shown = _loop_text(text) if edge[0] == edge[1] else text
        arrows.append(SceneArrow(edge, plot_text(one_line(shown, 48)) if shown else "", "lit"))
    order = list(diagram.first_seen)
    for option in diagram.options:
        actor = option.actor
        nodes[actor.key] = _Node(actor, plot_text(one_line(actor.label, _LABEL_CHARS)),
                                 _option_hover(option), faint=option.not_taken)
        edge = (option.decider, actor.key)
        order.append(edge)
        if option.decider in nodes:
            arrows.append(SceneArrow(edge, "", "option" if option.not_taken else "faint"))
    return _Scene(nodes, arrows, order)


def _pass_scene(passes: LoopPasses, index: int) -> _Scene:
    body = passes.body
    nodes: dict[str, _Node] = {}
    for column, shown in enumerate(passes.window(index)):
        if isinstance(shown, tuple):
            first, last = shown
            count = last - first + 1
            key = f"passes:{first}"
            hover = (f"passes {plot_text(passes.numbers[first])}–{plot_text(passes.numbers[last])} "
                     "not drawn<br>move the slider to reach them")
            nodes[key] = _Node(Actor(key, f"+{count} more", STAGE, ""), f"+{count} more", hover,
                               faint=True)
            continue
        number = passes.numbers[shown]
        output = passes.outputs[shown]
        lines = [f"pass {plot_text(number)} of {len(passes.numbers)}",
                 f"runs {plot_text(one_line(body.label, 80))}"]
        lines.append("output: " + plot_text(one_line(output, 160)) if output is not None
                     else "the recording carries no output for this pass")
        if shown > index:
            lines.append("not reached yet at this step")
        if body.drill_path:
            lines.append("click to drill in")
        key = f"pass:{shown}"
        text = f"pass {plot_text(one_line(number, 8))}"
        if output is not None and shown <= index:
            text += "<br>" + plot_text(one_line(output, 14))
        nodes[key] = _Node(replace(body, key=key, label=f"pass {number}"), text,
                           "<br>".join(lines), active=shown == index)
    keys = list(nodes)
    arrows: list[SceneArrow] = []
    for source, target in zip(keys, keys[1:]):
        # A pass or a run of left-out passes is reached once its first step is.
        if nodes[target].active:
            arrows.append(SceneArrow((source, target), "↻", "lit"))
        elif int(target.split(":")[1]) <= index:
            arrows.append(SceneArrow((source, target), "", "faint"))
    grid = {key: (column, 0) for column, key in enumerate(keys)}
    return _Scene(nodes, arrows, [], grid)


def _option_hover(option: BranchOption) -> str:
    actor = option.actor
    lines = [plot_text(one_line(actor.label, 80)), f"branch · {plot_text(one_line(actor.detail, 120))}"]
    if option.not_taken:
        lines.append(f"not taken: the decision chose {plot_text(one_line(option.chosen or '', 80))}")
    else:
        lines.append("the recording does not say whether this branch ran")
    return "<br>".join(lines)


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
    title = f"{len(hops)} hops" + (f" · {len(trips)} governor trip(s)" if trips else "")
    if tripped:
        title += " · ⚠ marked in the table"
    return go.Figure(data=[*traces, node_trace], layout=_layout(positions, title))


# ─── pieces ────────────────────────────────────────────────────────────


# style → (colour, width, dash) of the arrows drawn in it; options are the
# branches a decider did not take, dotted.
_ARROW_STYLES = [("option", FAINT, 1.5, "dot"), ("faint", FAINT, 1.5, None), ("lit", LIT, 3.5, None)]
_STYLE_COLOURS = {style: colour for style, colour, _, _ in _ARROW_STYLES}


def _route_traces(routes: Sequence[Route], colour: str, width: float, dash: str | None) -> list[dict]:
    """Arrows of one style as one trace: each path with its head, then a gap.

    Plotly draws traces far faster than annotations (one annotation per arrow
    made the diagram most of a slider move's time in the browser), and the
    heads are markers turned by plotly along their own segment.
    """
    xs: list[float | None] = []
    ys: list[float | None] = []
    sizes: list[float] = []
    for route in routes:
        points = list(route.points)
        points.insert(route.head_after + 1, route.head)
        xs += [p[0] for p in points] + [None]
        ys += [p[1] for p in points] + [None]
        sizes += [0.0] * len(points) + [0.0]
        sizes[len(sizes) - len(points) - 1 + route.head_after + 1] = _HEAD_SIZE + width * 2
    if not xs:
        return []
    line = dict(color=colour, width=width)
    if dash:
        line["dash"] = dash
    return [dict(type="scatter", x=xs, y=ys, mode="lines+markers", line=line,
                 marker=dict(symbol="arrow", angleref="previous", size=sizes, color=colour,
                             line=dict(width=0)),
                 hoverinfo="skip", showlegend=False)]


def _label_traces(geometry: Geometry) -> list[dict]:
    """Every label as text centred where the layout placed it, in one trace
    (colour per label): each trace costs plotly a validation on every step."""
    labels = [(label, NODE_TEXT) for label in geometry.node_labels.values()]
    labels += [(route.label, _STYLE_COLOURS[route.arrow.style]) for route in geometry.routes if route.label]
    labels += [(label, _STYLE_COLOURS[arrow.style]) for arrow, label in geometry.loop_labels]
    if not labels:
        return []
    return [dict(type="scatter", mode="text",
                 x=[label.centre[0] for label, _ in labels], y=[label.centre[1] for label, _ in labels],
                 text=[label.text for label, _ in labels], textposition="middle center",
                 textfont=dict(color=[colour for _, colour in labels],
                               size=[label.size for label, _ in labels]),
                 hoverinfo="skip", showlegend=False)]


def _node_trace(scene: _Scene, geometry: Geometry) -> dict:
    # A plain dict: go.Figure validates it once; a go.Scatter would be validated, then copied.
    nodes = list(scene.nodes.values())
    return dict(
        type="scatter",
        x=[geometry.centres[n.actor.key][0] for n in nodes],
        y=[geometry.centres[n.actor.key][1] for n in nodes],
        mode="markers",
        text=[n.text for n in nodes],  # drawn by the label trace, where the layout placed it
        hovertext=[n.hover for n in nodes],
        hoverinfo="text",
        customdata=[encode_path(n.actor.drill_path) if n.actor.drill_path else "" for n in nodes],
        marker=dict(
            # Opaque over the arrow lines; a branch not taken (or passes left out) faint.
            opacity=[0.3 if n.faint else 1 for n in nodes],
            size=[ACTIVE_NODE_SIZE if n.active else NODE_SIZE for n in nodes],
            color=[ROLE_COLOURS.get(n.actor.role, "#868e96") for n in nodes],
            symbol=["square" if n.actor.drill_path else "circle" for n in nodes],
            line=dict(width=[4 if n.active else 1 for n in nodes],
                      color=[LIT if n.active else "#343a40" for n in nodes]),
        ),
        showlegend=False,
    )


def _pixel_layout(geometry: Geometry, title: str) -> dict:
    # Handed to go.Figure in one piece: building the figure and then calling
    # update_layout costs three to four times as much (plotly re-walks every
    # property through its update machinery), on every slider move.
    top_margin = 40 if title else 6
    return dict(
        title=dict(text=plot_text(one_line(title, 140)), x=0, xanchor="left", font=dict(size=15)),
        xaxis=dict(visible=False, range=list(geometry.x_range), fixedrange=True),
        # y grows downward, as the layout computed it; the figure is exactly as tall
        # as the drawing plus margins, so a pixel of the layout is a pixel on screen.
        yaxis=dict(visible=False, range=[geometry.y_range[1], geometry.y_range[0]], fixedrange=True),
        height=int(round(geometry.height)) + top_margin + 6,
        margin=dict(l=0, r=0, t=top_margin, b=6),
        showlegend=False,
        dragmode=False,
        clickmode="event+select",
        hoverlabel=dict(namelength=-1),
        # No plotly.py template: st.plotly_chart applies Streamlit's own, and the
        # default one is 7 of a diagram's 8 KB, sent and parsed on every step.
        template=dict(),
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
                           text=[plot_text(one_line(_loop_text(label), 48)) for _, label in loops],
                           textposition="top center", textfont=dict(color=colour, size=13),
                           hoverinfo="skip", showlegend=False))
    if label_points:
        traces.append(dict(type="scatter", x=[p[0] for p, _ in label_points],
                           y=[p[1] for p, _ in label_points], mode="text",
                           text=[plot_text(one_line(label, 48)) for _, label in label_points],
                           textposition="top center", textfont=dict(color=colour, size=13),
                           hoverinfo="skip", showlegend=False))
    return traces


def _loop_text(label: str) -> str:
    return "↻" if not label else ("" if label.startswith("↻") else "↻ ") + label


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

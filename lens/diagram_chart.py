"""The actor-arrow diagram of a scope at one step, as a Vega-Lite chart.

One spec (:data:`DIAGRAM_SPEC`) draws every step of every scope; what a step
shows is only its rows (:func:`actor_chart`). A chart whose spec stays the
same keeps its identity in the browser and swaps its data in place, where a
figure rebuilt every step is torn down and drawn again (that redraw was the
largest cost of a slider move: ``benchmarks/README.md``).

Positions are :mod:`lens.layout`'s pixels, drawn 1:1: two invisible frame
rows at the corners of the step's drawing set both scales' domains, and the
chart is exactly as tall as the drawing.

Recorded text reaches the chart only as data, as recorded: node and arrow
labels are drawn as text (Vega draws no markup), hover lines go to Vega-Lite's
tooltip, which escapes them. Nothing recorded is ever put in the spec.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from lens.actors import CHILD, MODEL, STAGE, TOOLS, USER, Actor
from lens.arrows import (FALLBACK, HALTED, REFUSED, RETRIED, ArrowDiagram, BranchOption, CallMark,
                         Edge, LoopPasses)
from lens.layout import (ACTIVE_NODE_SIZE, LINE_BREAK, LINE_HEIGHT, NODE_LABEL_SIZE, NODE_SIZE,
                         Geometry, Route, SceneArrow, lay_out)
from lens.scopes import encode_path
from lens.text import one_line

LIT = "#d9480f"
FAINT = "rgba(110, 110, 110, 0.35)"
NODE_TEXT = "#495057"
NODE_EDGE = "#343a40"
ROLE_COLOURS = {USER: "#1c7ed6", MODEL: "#7048e8", TOOLS: "#2b8a3e", CHILD: "#e67700",
                STAGE: "#868e96"}
OTHER_ROLE_COLOUR = "#868e96"
ROLE_NAMES = {USER: "the user", MODEL: "model", TOOLS: "tools", CHILD: "subflow",
              STAGE: "stage"}
# How each style of arrow is drawn: colour, line width, dash ([] for solid).
# "option" is a branch a decider did not take. A lit arrow whose call the
# framework halted or refused is "stopped"; one answered by a fallback provider
# or after retries "recovered" (lens.arrows.CallMark): dashed, so they tell
# apart without colour too.
STOPPED = "#c92a2a"
RECOVERED = "#0b7285"
ARROW_STYLES = {"option": (FAINT, 1.5, [2, 3]), "faint": (FAINT, 1.5, []), "lit": (LIT, 3.5, []),
                "stopped": (STOPPED, 3.5, [7, 4]), "recovered": (RECOVERED, 3.5, [12, 4])}
LIT_STYLES = frozenset({"lit", "stopped", "recovered"})
_MARK_STYLES = {HALTED: "stopped", REFUSED: "stopped", FALLBACK: "recovered", RETRIED: "recovered"}
HEAD_LENGTH = 9  # px from base to tip, plus the line's width
FAINT_NODE_OPACITY = 0.3
# Room above and below the drawing, in px: a ring or a label at the frame's edge stays whole.
PAD = 6
_LABEL_CHARS = 32
# Nodes drawn in one scope at most; the rest are one "+N more" node (_capped).
MAX_DRAWN_ACTORS = 40
MORE_ACTORS = "more:actors"
# A node's hover text, a line a field: the first is the tooltip's heading.
HOVER_FIELDS = ("hover0", "hover1", "hover2", "hover3", "hover4")

# The click selection's name: Streamlit reports a clicked node as
# ``selection[DRILL_PARAM] == [{"drill": "<encoded scope path>"}]`` ("" for a
# node that is not a subflow).
DRILL_PARAM = "drill"


@dataclass(frozen=True)
class DiagramChart:
    """What the diagram draws at one step: rows for :data:`DIAGRAM_SPEC` and
    the chart's height in px (its width is the column's)."""

    rows: list[dict]
    height: int

    def of_kind(self, kind: str) -> list[dict]:
        return [row for row in self.rows if row["kind"] == kind]


def actor_chart(diagram: ArrowDiagram, index: int) -> DiagramChart:
    """The scope's actors with step ``index``'s arrows lit and earlier ones
    faint; a decider's branches not taken faint; a Loop root as its passes."""
    scene = _scene(diagram, index)
    geometry = lay_out(list(scene.nodes), {k: node.text for k, node in scene.nodes.items()},
                       scene.arrows, scene.order_edges, scene.grid)
    rows = _frame_rows(geometry)
    for route in geometry.routes:
        rows += _arrow_rows(route)
    rows += _label_rows(geometry)
    rows += _node_rows(scene, geometry)
    return DiagramChart(rows, int(math.ceil(geometry.height)) + 2 * PAD)


# ─── the spec: the same for every step ─────────────────────────────────

# Every row carries every field, so the rows make one table of stable columns.
_ROW = dict(kind="", style="", x=0.0, y=0.0, x2=0.0, y2=0.0, size=0.0, text="",
            colour="", stroke="", ring=0.0, shape="circle", opacity=1.0, drill="",
            **{field: "" for field in HOVER_FIELDS})


def _row(**fields: object) -> dict:
    row = dict(_ROW)
    row.update(fields)
    return row


def _position(field: str) -> dict:
    # The frame rows make the domain; y grows downward as in the layout.
    scale = {"zero": False, "nice": False, "padding": 0, **({"reverse": True} if field == "y" else {})}
    return {"field": field, "type": "quantitative", "axis": None, "scale": scale}


def _as_is(field: str) -> dict:
    """A field drawn as its value (a colour, a size in px²), not through a scale."""
    return {"field": field, "type": "nominal" if field in ("colour", "stroke", "shape") else
            "quantitative", "scale": None, "legend": None}


def _kind(kind: str, style: str | None = None) -> list[dict]:
    """Keep the rows of one kind (and style), and the frame rows: drawn as
    nothing, they give every layer data, so no layer's extent is empty once
    the rows are in (Vega warns about each one that is; it still does once,
    when Streamlit first draws the chart before handing it its rows)."""
    test = f"datum.kind === '{kind}'" + (f" && datum.style === '{style}'" if style else "")
    return [{"filter": f"datum.kind === 'frame' || ({test})"}]


# Degrees clockwise from pointing right (y grows downward on screen), from the
# head's drawn position toward its segment's drawn end.
HEAD_ANGLE = ("(atan2(scale('y', datum.y2) - scale('y', datum.y), "
              "scale('x', datum.x2) - scale('x', datum.x)) * 180 / PI + 360) % 360")


def _tooltip(only_with_hover: bool = False) -> dict:
    """The hover lines as one object for Vega's tooltip: the first as its
    heading (``title``), each other one a row with a blank key. An empty line
    reads a field no row has, so it is undefined and the tooltip leaves it out.
    ``only_with_hover``: a row with no hover lines gets no tooltip at all."""
    rows = ", ".join(f"'{' ' * number}': datum.{field} || datum.no_such_field"
                     for number, field in enumerate(HOVER_FIELDS[1:], start=1))
    lines = f"{{title: datum.{HOVER_FIELDS[0]}, {rows}}}"
    if only_with_hover:
        lines = f"datum.{HOVER_FIELDS[0]} ? {lines} : null"
    return {"calculate": lines, "as": "tooltip"}


def _segment_layer(style: str) -> dict:
    colour, width, dash = ARROW_STYLES[style]
    mark = {"type": "rule", "color": colour, "strokeWidth": width, "aria": False}
    if dash:
        mark["strokeDash"] = dash
    return {"transform": _kind("segment", style), "mark": mark,
            "encoding": {"x": _position("x"), "y": _position("y"), "x2": {"field": "x2"},
                         "y2": {"field": "y2"}, "opacity": _as_is("opacity")}}


DIAGRAM_SPEC: dict = {
    "padding": {"top": PAD, "bottom": PAD, "left": 0, "right": 0},
    "config": {"view": {"stroke": None}},
    "layer": [
        *(_segment_layer(style) for style in ARROW_STYLES),
        # Heads: a triangle at (x, y) turned toward (x2, y2), the end of the
        # segment it sits on. Turned in screen pixels, after the scales: the
        # chart is stretched to its column in x only, which turns a slanted line.
        {"transform": _kind("head"), "mark": {"type": "point", "shape": "triangle-right",
                                              "filled": True, "strokeWidth": 0, "aria": False,
                                              "angle": {"expr": HEAD_ANGLE}},
         "encoding": {"x": _position("x"), "y": _position("y"), "color": _as_is("colour"),
                      "size": _as_is("size"),
                      "opacity": _as_is("opacity")}},
        # A marked arrow's label hovers its findings' words (lens.arrows.CallMark).
        {"transform": [*_kind("text"), _tooltip(only_with_hover=True)],
         "mark": {"type": "text", "align": "center", "baseline": "middle",
                  "lineBreak": LINE_BREAK, "lineHeight": NODE_LABEL_SIZE * LINE_HEIGHT},
         "encoding": {"x": _position("x"), "y": _position("y"), "text": {"field": "text"},
                      "color": _as_is("colour"), "size": _as_is("size"),
                      "opacity": _as_is("opacity"),
                      "tooltip": {"field": "tooltip", "type": "nominal"}}},
        # The nodes last: drawn over the lines, and the layer clicks are read from.
        {"transform": [*_kind("node"), _tooltip()],
         "mark": {"type": "point", "filled": True, "cursor": "pointer"},
         "params": [{"name": DRILL_PARAM, "select": {"type": "point", "fields": ["drill"],
                                                     "toggle": False}}],
         "encoding": {"x": _position("x"), "y": _position("y"), "color": _as_is("colour"),
                      "shape": _as_is("shape"), "size": _as_is("size"),
                      "opacity": _as_is("opacity"), "stroke": _as_is("stroke"),
                      "strokeWidth": _as_is("ring"),
                      "tooltip": {"field": "tooltip", "type": "nominal"},
                      # What a screen reader (and a test) reads for a node: its name.
                      "description": {"field": HOVER_FIELDS[0]}}},
    ],
}


# ─── rows ─────────────────────────────────────────────────────────────


def _frame_rows(geometry: Geometry) -> list[dict]:
    # Drawn as nothing in every layer: no size, no text, a line of no length, unseen.
    (left, right), (top, bottom) = geometry.x_range, geometry.y_range
    return [_row(kind="frame", x=x, y=y, x2=x, y2=y, opacity=0.0)
            for x, y in ((left, top), (right, bottom))]


def _arrow_rows(route: Route) -> list[dict]:
    style = route.arrow.style
    colour, width, _ = ARROW_STYLES[style]
    points = route.points
    rows = [_row(kind="segment", style=style, x=a[0], y=a[1], x2=b[0], y2=b[1])
            for a, b in zip(points, points[1:])]
    end = points[route.head_after + 1]
    length = HEAD_LENGTH + width
    rows.append(_row(kind="head", style=style, x=route.head[0], y=route.head[1], x2=end[0],
                     y2=end[1], size=length * length, colour=colour))
    return rows


def _label_rows(geometry: Geometry) -> list[dict]:
    labels = [(label, NODE_TEXT, "node", ()) for label in geometry.node_labels.values()]
    labels += [(route.label, ARROW_STYLES[route.arrow.style][0], route.arrow.style,
                route.arrow.hover) for route in geometry.routes if route.label]
    labels += [(label, ARROW_STYLES[arrow.style][0], arrow.style, arrow.hover)
               for arrow, label in geometry.loop_labels]
    return [_row(kind="text", style=style, x=label.centre[0], y=label.centre[1],
                 text=label.text, size=label.size, colour=colour, **_hover_fields(hover))
            for label, colour, style, hover in labels]


def _node_rows(scene: _Scene, geometry: Geometry) -> list[dict]:
    rows = []
    for key, node in scene.nodes.items():
        x, y = geometry.centres[key]
        diameter = ACTIVE_NODE_SIZE if node.active else NODE_SIZE
        rows.append(_row(
            kind="node", x=x, y=y, text=node.text, size=diameter * diameter,
            colour=ROLE_COLOURS.get(node.actor.role, OTHER_ROLE_COLOUR),
            shape="square" if node.actor.drill_path else "circle",
            stroke=LIT if node.active else NODE_EDGE, ring=4.0 if node.active else 1.0,
            opacity=FAINT_NODE_OPACITY if node.faint else 1.0,
            **_hover_fields(node.hover),
            drill=encode_path(node.actor.drill_path) if node.actor.drill_path else "",
            style="active" if node.active else "faint" if node.faint else ""))
    return rows


def _hover_fields(lines: tuple[str, ...]) -> dict[str, str]:
    """One line a field; lines past the last field share it, so none is lost."""
    last = len(HOVER_FIELDS) - 1
    kept = [*lines[:last], " · ".join(lines[last:])] if len(lines) > last else list(lines)
    return dict(zip(HOVER_FIELDS, kept))


# ─── the scene: what is drawn at one step ─────────────────────────────


@dataclass(frozen=True)
class _Node:
    actor: Actor
    text: str  # the label as drawn (the layout cuts it to fit its column)
    hover: tuple[str, ...]  # lines as recorded (the tooltip escapes them)
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
    nodes = {a.key: _Node(a, one_line(a.label, _LABEL_CHARS), _actor_hover(a),
                          active=a.key in active) for a in diagram.actors}
    lit = diagram.lit(index) if len(diagram) else ()
    faint = diagram.faint(index) if len(diagram) else []
    labels: dict[Edge, list[str]] = {}
    marks: dict[Edge, dict[CallMark, None]] = {}
    for arrow in lit:
        labels.setdefault(arrow.edge, []).append(arrow.label)
        marks.setdefault(arrow.edge, {}).update(dict.fromkeys(diagram.marks_of(index, arrow)))
    arrows = [SceneArrow(edge, "", "faint") for edge in faint]
    for edge, texts in labels.items():
        text = ", ".join(dict.fromkeys(texts))
        shown = loop_text(text) if edge[0] == edge[1] else text
        label = one_line(shown, 48) if shown else ""
        arrows.append(_marked(SceneArrow(edge, label, "lit"), tuple(marks[edge])))
    order = list(diagram.first_seen)
    for option in diagram.options:
        actor = option.actor
        nodes[actor.key] = _Node(actor, one_line(actor.label, _LABEL_CHARS),
                                 _option_hover(option), faint=option.not_taken)
        edge = (option.decider, actor.key)
        order.append(edge)
        if option.decider in nodes:
            arrows.append(SceneArrow(edge, "", "option" if option.not_taken else "faint"))
    return _capped(_Scene(nodes, arrows, order))


def _marked(arrow: SceneArrow, marks: tuple[CallMark, ...]) -> SceneArrow:
    """A lit arrow drawn as what happened to its call: the first mark's style,
    the marks' words under the label (a line each: the layout cuts lines to an
    arrow's room, about 18 characters), their findings on hover."""
    if not marks:
        return arrow
    lines = [one_line(line, 48) for mark in marks for line in mark.words]
    label = LINE_BREAK.join([arrow.label, *lines] if arrow.label else lines)
    hover = tuple(line for mark in marks for line in mark.hover)
    return SceneArrow(arrow.edge, label, _MARK_STYLES[marks[0].what], hover)


def _capped(scene: _Scene) -> _Scene:
    """At most :data:`MAX_DRAWN_ACTORS` nodes: past that, the actors of this
    step first, then the earliest seen, and one "+N more" node standing for the
    rest, their arrows drawn to it. A fork of thousands of branches cannot be
    read as thousands of nodes, and laying them out grows with the square of
    their number (a 4,000-branch fork took 48 s a page run)."""
    if len(scene.nodes) <= MAX_DRAWN_ACTORS:
        return scene
    needed = {k for k, node in scene.nodes.items() if node.active}
    needed |= {key for arrow in scene.arrows if arrow.style in LIT_STYLES for key in arrow.edge}
    ordered = [k for k in scene.nodes if k in needed] + [k for k in scene.nodes if k not in needed]
    kept = set(ordered[:MAX_DRAWN_ACTORS - 1])
    hidden = [k for k in scene.nodes if k not in kept]
    names = ", ".join(one_line(scene.nodes[k].actor.label, 30) for k in hidden[:6])
    more = f"+{len(hidden):,} more"
    hover = (f"{len(hidden):,} actors not drawn: {names}{', …' if len(hidden) > 6 else ''}",
             "the raw events page lists every event")
    nodes = {k: node for k, node in scene.nodes.items() if k in kept}
    hides_active = any(scene.nodes[k].active for k in hidden)
    nodes[MORE_ACTORS] = _Node(Actor(MORE_ACTORS, more, STAGE, ""), more, hover,
                               active=hides_active, faint=not hides_active)

    def drawn(edge: Edge) -> Edge | None:
        source, target = (key if key in kept else MORE_ACTORS for key in edge)
        return None if source == target and edge[0] != edge[1] else (source, target)
    arrows: dict[tuple[Edge, str], SceneArrow] = {}
    for arrow in scene.arrows:
        edge = drawn(arrow.edge)
        if edge is not None:
            arrows.setdefault((edge, arrow.style),
                              SceneArrow(edge, arrow.label, arrow.style, arrow.hover))
    order = list(dict.fromkeys(e for e in map(drawn, scene.order_edges) if e is not None))
    return _Scene(nodes, list(arrows.values()), order)


def _pass_scene(passes: LoopPasses, index: int) -> _Scene:
    body = passes.body
    nodes: dict[str, _Node] = {}
    first_pass: dict[str, int] = {}  # node key -> the first pass it shows
    for shown in passes.window(index):
        if isinstance(shown, tuple):
            first, last = shown
            key = f"passes:{first}"
            first_pass[key] = first
            hover = (f"passes {passes.numbers[first]}–{passes.numbers[last]} not drawn",
                     "move the slider to reach them")
            more = f"+{last - first + 1} more"
            nodes[key] = _Node(Actor(key, more, STAGE, ""), more, hover, faint=True)
            continue
        number = passes.numbers[shown]
        output = passes.outputs[shown]
        lines = [f"pass {number} of {len(passes.numbers)}", f"runs {one_line(body.label, 80)}",
                 "output: " + one_line(output, 160) if output is not None
                 else "the recording carries no output for this pass"]
        if shown > index:
            lines.append("not reached yet at this step")
        if body.drill_path:
            lines.append("click to drill in")
        key = f"pass:{shown}"
        first_pass[key] = shown
        text = f"pass {one_line(number, 8)}"
        if output is not None and shown <= index:
            text += LINE_BREAK + one_line(output, 14)
        nodes[key] = _Node(replace(body, key=key, label=f"pass {number}"), text, tuple(lines),
                           active=shown == index)
    keys = list(nodes)
    arrows: list[SceneArrow] = []
    for source, target in zip(keys, keys[1:]):
        # A pass or a run of left-out passes is reached once its first step is.
        if nodes[target].active:
            arrows.append(SceneArrow((source, target), "↻", "lit"))
        elif first_pass[target] <= index:
            arrows.append(SceneArrow((source, target), "", "faint"))
    grid = {key: (column, 0) for column, key in enumerate(keys)}
    return _Scene(nodes, arrows, [], grid)


def _actor_hover(actor: Actor) -> tuple[str, ...]:
    lines = [one_line(actor.label, 80),
             f"{ROLE_NAMES.get(actor.role, actor.role)} · {one_line(actor.detail, 120)}"]
    if actor.drill_path:
        lines.append("click to drill in")
    return tuple(lines)


def _option_hover(option: BranchOption) -> tuple[str, ...]:
    actor = option.actor
    lines = [one_line(actor.label, 80), f"branch · {one_line(actor.detail, 120)}"]
    if option.not_taken:
        lines.append(f"not taken: the decision chose {one_line(option.chosen or '', 80)}")
    else:
        lines.append("the recording does not say whether this branch ran")
    return tuple(lines)


def loop_text(label: str) -> str:
    """A step that stays on one actor: its label after a loop mark."""
    return "↻" if not label else ("" if label.startswith("↻") else "↻ ") + label

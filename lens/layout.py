"""Where everything in the arrow diagram sits, in pixels: nodes, labels, arrow paths.

Columns are hops from the user along the scope's arrows (breadth-first), so
a Sequence reads left to right, a Parallel fans out and back, and an Agent
reads user → model → tools. An actor no arrow from the user reaches sits one
column before the first placed actor it leads to (a decider before its
branch), or else a column to the right of the user. Within a column, actors
keep their order of first appearance, top to bottom.

The geometry is worked out in pixels (y downward) at the diagram's design
width, and the figure draws it 1:1, so what is tested here is what is drawn.
Two rules hold by construction:

- an arrow never runs through a node other than its own two ends: a straight
  arrow that would is routed instead out to the gap beside its source, along
  a free lane between rows (or above them all) and in beside its target;
- no two labels overlap: each label is tried at its preferred place, then
  nudged to nearby free places, and as a last resort set above everything.

A wider chart only spreads columns further apart (labels and nodes keep their
pixel size), which keeps both rules; narrower than :data:`DESIGN_WIDTH` they
are not guaranteed. :func:`text_box` is the one estimate of a label's size,
used here and by the tests that check the drawn figure.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from recorders.run_step import ACTOR_USER

Point = tuple[float, float]
Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels, y downward
Edge = tuple[str, str]

# The diagram's column at 1280×720 is 394 px (half the main area beside the step
# detail, measured in Chromium); a little less, so a scrollbar does not squeeze it.
DESIGN_WIDTH = 380
NODE_SIZE = 32
ACTIVE_NODE_SIZE = 40
NODE_BOX = ACTIVE_NODE_SIZE  # every node is given the room of an active one
NODE_LABEL_SIZE = 12
ARROW_LABEL_SIZE = 12
# Average glyph width and line height as fractions of the font size; erring wide
# and tall, so an estimated box holds the drawn text.
CHAR_WIDTH = 0.6
LINE_HEIGHT = 1.35
MIN_COLUMN_PITCH = 60
MAX_COLUMN_PITCH = 150
ROW_PITCH = 68  # node, its label, a gap
CLEARANCE = 3  # px kept between an arrow and a node it passes, and between labels
HEAD_AT = 0.62  # along a straight arrow, from source (0) to target (1)
LABEL_AT = 0.38  # apart from the head, so a label never covers it
TWO_WAY_OFFSET = 6  # px each direction of a two-way pair is moved to its own side
MARGIN = 10
ARROW_LABEL_COLUMNS = 1.2  # an arrow label is cut to this many columns' width
# Labels are measured as they are drawn: the recorded characters, with this
# between lines (a recorded line break is already a visible ⏎: lens.text.one_line).
LINE_BREAK = "\n"


def column_layout(actor_keys: Sequence[str], edges: Iterable[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    """(column, row) of each actor; rows count from the top of the column."""
    following: dict[str, list[str]] = {key: [] for key in actor_keys}
    for source, target in edges:
        if source in following and target in following and target not in following[source]:
            following[source].append(target)
    column: dict[str, int] = {}
    starts = [ACTOR_USER] if ACTOR_USER in following else []
    for start in [*starts, *actor_keys]:
        if start in column:
            continue
        # Not reached from the user: a decider or other upstream stage sits one
        # column before the first placed actor it leads to, else right of the user.
        ahead = [column[n] for n in following[start] if n in column]
        column[start] = 0 if start == ACTOR_USER else max(min(ahead) - 1, 0) if ahead else 1
        queue = deque([start])
        while queue:
            key = queue.popleft()
            for nxt in following[key]:
                if nxt not in column:
                    column[nxt] = column[key] + 1
                    queue.append(nxt)
    by_column: dict[int, list[str]] = {}
    for key in actor_keys:
        by_column.setdefault(column[key], []).append(key)
    return {key: (col, row) for col, keys in by_column.items() for row, key in enumerate(keys)}


# ─── text and boxes ────────────────────────────────────────────────────


def glyph_units(line: str) -> float:
    """How many average glyphs wide ``line`` is: symbols and arrows (↻, ⏎, →)
    are drawn half as wide again as a letter, wide scripts and emoji twice."""
    if line.isascii():
        return float(len(line))
    units = 0.0
    for char in line:
        code = ord(char)
        units += 1.0 if code < 0x2000 else 1.5 if code < 0x2E80 else 2.0
    return units


def text_size(text: str, size: float) -> tuple[float, float]:
    """Width and height of a label of ``text`` at font ``size``; lines are split
    on :data:`LINE_BREAK`."""
    lines = text.split(LINE_BREAK)
    width = max(glyph_units(line) for line in lines) * size * CHAR_WIDTH
    return width, len(lines) * size * LINE_HEIGHT


def text_box(text: str, size: float, centre: Point) -> Box:
    """The box a label of ``text`` at font ``size`` takes, centred on ``centre``."""
    width, height = text_size(text, size)
    x, y = centre
    return (x - width / 2, y - height / 2, x + width / 2, y + height / 2)


def node_box(centre: Point, size: float = NODE_BOX) -> Box:
    x, y = centre
    return (x - size / 2, y - size / 2, x + size / 2, y + size / 2)


def boxes_overlap(a: Box, b: Box, gap: float = 0.0) -> bool:
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def segment_hits_box(p: Point, q: Point, box: Box) -> bool:
    """Whether the segment p–q passes through ``box`` (Liang–Barsky clipping)."""
    (x0, y0), (x1, y1) = p, q
    if max(x0, x1) < box[0] or min(x0, x1) > box[2] or max(y0, y1) < box[1] or min(y0, y1) > box[3]:
        return False
    dx, dy = x1 - x0, y1 - y0
    low, high = 0.0, 1.0
    for step, distance in ((-dx, x0 - box[0]), (dx, box[2] - x0), (-dy, y0 - box[1]), (dy, box[3] - y0)):
        if step == 0:
            if distance < 0:
                return False
            continue
        t = distance / step
        if step < 0:
            low = max(low, t)
        else:
            high = min(high, t)
        if low > high:
            return False
    return True


def path_hits(points: Sequence[Point], boxes: Iterable[Box]) -> bool:
    boxes = list(boxes)
    return any(segment_hits_box(a, b, box) for a, b in zip(points, points[1:]) for box in boxes)


def fit_label(text: str, width: float, size: float = NODE_LABEL_SIZE) -> str:
    """``text`` cut (with …) to fit ``width`` pixels at ``size`` by :func:`text_box`'s estimate."""
    most = max(width / (size * CHAR_WIDTH), 2.0)
    if glyph_units(text) <= most:
        return text
    room = most - glyph_units("…")
    kept, used = 0, 0.0
    for char in text:  # stops within the room, so a huge text costs no more than a short one
        used += glyph_units(char)
        if used > room:
            break
        kept += 1
    return text[:kept] + "…"


def _fit_arrow_label(text: str, width: float) -> str:
    # Line by line: a mark on its own line (lens.diagram_chart) is not cut off with the first.
    return LINE_BREAK.join(fit_label(line, width, ARROW_LABEL_SIZE) for line in text.split(LINE_BREAK))


def _fit_lines(text: str, width: float) -> str:
    return LINE_BREAK.join(fit_label(line, width) for line in text.split(LINE_BREAK) if line)


# ─── the scene and its geometry ────────────────────────────────────────


@dataclass(frozen=True)
class SceneArrow:
    edge: Edge
    label: str  # the text as drawn (lines split on LINE_BREAK), "" for none
    style: str  # the caller's name for how it is drawn
    hover: tuple[str, ...] = ()  # the label's hover lines, as recorded


@dataclass(frozen=True)
class Label:
    text: str
    centre: Point
    size: float
    box: Box = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "box", text_box(self.text, self.size, self.centre))


@dataclass(frozen=True)
class Route:
    arrow: SceneArrow
    points: tuple[Point, ...]  # source centre … target centre
    head: Point  # where the head sits; it points along the segment it lies on
    head_after: int  # the head lies between points[head_after] and points[head_after + 1]
    label: Label | None


@dataclass
class Geometry:
    centres: dict[str, Point]
    node_labels: dict[str, Label]
    routes: list[Route] = field(default_factory=list)
    loop_labels: list[tuple[SceneArrow, Label]] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0
    x_range: tuple[float, float] = (0.0, 0.0)
    y_range: tuple[float, float] = (0.0, 0.0)  # top, bottom (y grows downward)

    def node_boxes(self) -> dict[str, Box]:
        return {key: node_box(centre) for key, centre in self.centres.items()}

    def labels(self) -> list[Label]:
        return [*self.node_labels.values(), *(r.label for r in self.routes if r.label),
                *(label for _, label in self.loop_labels)]


def lay_out(node_keys: Sequence[str], node_texts: dict[str, str], arrows: Sequence[SceneArrow],
            order_edges: Iterable[Edge], grid: dict[str, tuple[int, int]] | None = None) -> Geometry:
    """Place the nodes, route the arrows and place every label.

    ``node_texts`` are the display names (cut here to fit a column);
    ``order_edges`` decide the columns (see :func:`column_layout`) unless
    ``grid`` gives each node's (column, row) outright.
    """
    cells = grid if grid is not None else column_layout(node_keys, order_edges)
    columns = max((c for c, _ in cells.values()), default=0) + 1
    rows_in = {c: 1 + max(r for cc, r in cells.values() if cc == c) for c, _ in cells.values()}
    tallest = max(rows_in.values(), default=1)
    # Columns share the design width (a label is at most a column wide); only
    # past DESIGN_WIDTH / MIN_COLUMN_PITCH columns does the drawing grow wider.
    pitch_x = min(MAX_COLUMN_PITCH, max(MIN_COLUMN_PITCH, (DESIGN_WIDTH - 2 * MARGIN) / max(columns, 1)))
    centres: dict[str, Point] = {}
    for key in node_keys:
        col, row = cells[key]
        # Each column is centred on the tallest, so a fan reads symmetric.
        offset = (tallest - rows_in[col]) / 2
        centres[key] = (pitch_x * (col + 0.5), ROW_PITCH * (row + offset + 0.5))
    boxes = {key: node_box(c) for key, c in centres.items()}
    span = (0.0, pitch_x * columns)
    # An arrow's label may reach a little past its column: it sits between two.
    arrow_width = min(pitch_x * ARROW_LABEL_COLUMNS, span[1])
    placed: list[Box] = []
    node_labels: dict[str, Label] = {}
    for key in node_keys:
        text = _fit_lines(node_texts.get(key, ""), pitch_x - CLEARANCE - 1)
        if not text:
            continue
        x, y = centres[key]
        height = NODE_LABEL_SIZE * LINE_HEIGHT * (text.count(LINE_BREAK) + 1)
        label = _place(text, NODE_LABEL_SIZE, (x, y + NODE_BOX / 2 + CLEARANCE + 1 + height / 2),
                       placed, boxes, span)
        node_labels[key] = label
        placed.append(label.box)
    geometry = Geometry(centres, node_labels)
    pairs = {a.edge for a in arrows}
    lanes = _lanes(centres)
    for index, arrow in enumerate(arrows):
        source, target = arrow.edge
        if source == target:
            x, y = centres[source]
            height = ARROW_LABEL_SIZE * LINE_HEIGHT
            text = arrow.label or "↻"
            label = _place(fit_label(text, arrow_width, ARROW_LABEL_SIZE), ARROW_LABEL_SIZE,
                           (x, y - NODE_BOX / 2 - CLEARANCE - 1 - height / 2), placed, boxes, span)
            placed.append(label.box)
            geometry.loop_labels.append((arrow, label))
            continue
        offset = TWO_WAY_OFFSET if (target, source) in pairs else 0.0
        route = _route(arrow, centres, boxes, pitch_x, lanes, offset, spread=index)
        if arrow.label:
            label = _place(_fit_arrow_label(arrow.label, arrow_width), ARROW_LABEL_SIZE,
                           _label_anchor(route), placed, boxes, span)
            placed.append(label.box)
            route = Route(route.arrow, route.points, route.head, route.head_after, label)
        geometry.routes.append(route)
    _frame(geometry)
    return geometry


def _lanes(centres: dict[str, Point]) -> list[float]:
    """Horizontal lanes free of nodes: between rows, and one above them all."""
    ys = sorted({y for _, y in centres.values()})
    lanes = [(a + b) / 2 for a, b in zip(ys, ys[1:])]
    top = (ys[0] if ys else 0.0) - ROW_PITCH / 2
    return [*lanes, top]


def _shift(p: Point, q: Point, amount: float) -> tuple[Point, Point]:
    dx, dy = q[0] - p[0], q[1] - p[1]
    length = (dx * dx + dy * dy) ** 0.5 or 1.0
    nx, ny = -dy / length * amount, dx / length * amount
    return (p[0] + nx, p[1] + ny), (q[0] + nx, q[1] + ny)


def _route(arrow: SceneArrow, centres: dict[str, Point], boxes: dict[str, Box], pitch_x: float,
           lanes: list[float], offset: float, spread: int) -> Route:
    source, target = arrow.edge
    s, t = _shift(centres[source], centres[target], offset)
    others = [_grow(box, CLEARANCE) for key, box in boxes.items() if key not in arrow.edge]
    if not path_hits((s, t), others):
        head = (s[0] + (t[0] - s[0]) * HEAD_AT, s[1] + (t[1] - s[1]) * HEAD_AT)
        return Route(arrow, (s, t), head, 0, None)
    # Out to the gap beside the source, along a lane, in beside the target. The
    # gaps between columns hold no node, so only the lane can meet one.
    rightward = t[0] > s[0] + 1 or abs(t[0] - s[0]) <= 1
    side = 1 if rightward else -1
    out_x = s[0] + side * pitch_x / 2
    in_x = t[0] - side * pitch_x / 2 if abs(t[0] - s[0]) > 1 else out_x
    middle = (s[1] + t[1]) / 2
    nudge = (spread % 4) * 4.0 - 6.0  # detours sharing a lane run side by side
    for lane in sorted(lanes, key=lambda y: (abs(y - middle), y)):
        y = lane + nudge
        points = (s, (out_x, s[1]), (out_x, y), (in_x, y), (in_x, t[1]), t)
        if not path_hits(points, others):
            break
    else:
        y = min(lanes) - abs(nudge)
        points = (s, (out_x, s[1]), (out_x, y), (in_x, y), (in_x, t[1]), t)
    # The head on the last leg, in the gap before the target's node.
    (ax, ay), (bx, by) = points[-2], points[-1]
    head = (ax + (bx - ax) * 0.3, ay + (by - ay) * 0.3)
    return Route(arrow, points, head, len(points) - 2, None)


def _grow(box: Box, by: float) -> Box:
    return (box[0] - by, box[1] - by, box[2] + by, box[3] + by)


def _label_anchor(route: Route) -> Point:
    # Just above the line, as text set on top of its own arrow would hide it.
    above = ARROW_LABEL_SIZE * LINE_HEIGHT / 2 + 1
    points = route.points
    if len(points) == 2:
        (sx, sy), (tx, ty) = points
        return (sx + (tx - sx) * LABEL_AT, sy + (ty - sy) * LABEL_AT - above)
    (ax, ay), (bx, _) = points[2], points[3]  # the lane
    return ((ax + bx) / 2, ay - above)


# Where a label is tried, relative to its preferred place, before the last resort.
_NUDGES = [(0, -9), (0, 9), (0, -20), (0, 20), (-30, -9), (30, -9), (-30, 9), (30, 9),
           (0, -32), (0, 32), (-60, 0), (60, 0), (0, -44), (0, 44)]
_TRIES = [(0.0, 0.0), *_NUDGES]


def _place(text: str, size: float, anchor: Point, placed: list[Box], nodes: dict[str, Box],
           span: tuple[float, float]) -> Label:
    """``text`` at ``anchor`` or the nearest nudge that overlaps no placed label
    nor node and stays within the columns' ``span`` (so the drawing keeps its width)."""
    obstacles = [*placed, *nodes.values()]
    width, height = text_size(text, size)
    half_w, half_h = width / 2 + CLEARANCE, height / 2 + CLEARANCE
    for dx, dy in _TRIES:
        x, y = _within(anchor[0] + dx, width, span), anchor[1] + dy
        if not any(x - half_w < o[2] and o[0] < x + half_w and y - half_h < o[3] and o[1] < y + half_h
                   for o in obstacles):
            return Label(text, (x, y), size)
    # Above everything placed so far: always free.
    top = min([anchor[1], *(box[1] for box in obstacles)])
    return Label(text, (_within(anchor[0], width, span), top - CLEARANCE - height / 2 - 1), size)


def _within(x: float, width: float, span: tuple[float, float]) -> float:
    half = width / 2
    return min(max(x, span[0] + half), span[1] - half) if span[1] - span[0] >= width else x


def _frame(geometry: Geometry) -> None:
    xs: list[float] = []
    ys: list[float] = []
    for box in [*geometry.node_boxes().values(), *(label.box for label in geometry.labels())]:
        xs += [box[0], box[2]]
        ys += [box[1], box[3]]
    for route in geometry.routes:
        xs += [p[0] for p in route.points]
        ys += [p[1] for p in route.points]
    if not xs:
        xs, ys = [0.0, DESIGN_WIDTH], [0.0, ROW_PITCH]
    left, right = min(xs) - MARGIN, max(xs) + MARGIN
    top, bottom = min(ys) - MARGIN, max(ys) + MARGIN
    geometry.x_range = (left, right)
    geometry.y_range = (top, bottom)
    geometry.width = right - left
    geometry.height = bottom - top

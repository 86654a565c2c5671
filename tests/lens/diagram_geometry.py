"""Read the geometry back from a drawn actor chart: node boxes, arrow paths and heads, label boxes.

Everything is read from the chart's rows (what Vega draws with
:data:`lens.diagram_chart.DIAGRAM_SPEC`), in the layout's pixels, which the
chart draws 1:1 at its design width. An arrow is its segment rows up to its
head row; each segment must start where the one before it ended. Label boxes
use :func:`lens.layout.text_box`, the one estimate the layout uses too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

from lens.arrows import ArrowDiagram
from lens.diagram_chart import DiagramChart, actor_chart
from lens.layout import Box, Point, boxes_overlap, node_box, segment_hits_box, text_box
from lens.run import PROFILES, OpenRun


@dataclass
class Arrow:
    style: str
    points: list[Point]  # source centre … target centre
    head: Point
    toward: Point  # the head is drawn turned from ``head`` toward this point
    head_colour: str


@dataclass
class Drawn:
    nodes: list[tuple[str, Box]]  # label, box
    arrows: list[Arrow]
    labels: list[tuple[str, Box]]  # text as drawn, box

    @property
    def paths(self) -> list[list[Point]]:
        return [arrow.points for arrow in self.arrows]


def every_step_chart(run: OpenRun) -> Iterator[tuple[str, ArrowDiagram, DiagramChart]]:
    """Where, the scope's diagram and its chart, for every step of every scope
    of ``run`` in both projections."""
    for profile in PROFILES:
        scopes = run.scopes(profile)
        for path in scopes.paths():
            scope = scopes.get(path)
            if scope is None or not scope.steps:
                continue
            diagram = run.diagram(profile, path)
            for index in range(len(scope.steps)):
                yield f"{profile} {path} step {index + 1}", diagram, actor_chart(diagram, index)


def label_box(text: str, size: float, centre: Point) -> Box:
    """The box of a drawn label, measured as the layout measures it: the text as
    drawn, lines split on "\\n" (a recorded ``<br>`` is characters, not a break)."""
    return text_box(text, size, centre)


def read_chart(chart: DiagramChart, stretch: float = 1.0) -> Drawn:
    """The geometry of ``chart``, its x coordinates multiplied by ``stretch``
    (a chart drawn wider than the design width; text and marks keep their size)."""

    def at(x: float, y: float) -> Point:
        return (x * stretch, y)

    nodes, arrows, labels = [], [], []
    segments: list[tuple[Point, Point, str]] = []
    for row in chart.rows:
        kind = row["kind"]
        if kind == "segment":
            start, end = at(row["x"], row["y"]), at(row["x2"], row["y2"])
            if segments:
                assert segments[-1][1] == start, f"segment {start}→{end} does not continue its arrow"
                assert segments[-1][2] == row["style"], "one arrow drawn in two styles"
            segments.append((start, end, row["style"]))
        elif kind == "head":
            assert segments, f"a head at {(row['x'], row['y'])} with no segment before it"
            assert segments[-1][2] == row["style"], "a head in another style than its arrow"
            points = [segments[0][0], *(end for _, end, _ in segments)]
            arrows.append(Arrow(row["style"], points, at(row["x"], row["y"]),
                                at(row["x2"], row["y2"]), row["colour"]))
            segments = []
        elif kind == "text":
            labels.append((row["text"], label_box(row["text"], row["size"], at(row["x"], row["y"]))))
        elif kind == "node":
            nodes.append((row["text"], node_box(at(row["x"], row["y"]), math.sqrt(row["size"]))))
    assert not segments, "segments after the last head: an arrow drawn without its head"
    return Drawn(nodes, arrows, labels)


def inside(point: Point, box: Box) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def arrows_through_nodes(drawn: Drawn) -> list[str]:
    """Each arrow segment that passes through a node other than the arrow's own two ends."""
    problems = []
    for path in drawn.paths:
        ends = [label for label, box in drawn.nodes if inside(path[0], box) or inside(path[-1], box)]
        for label, box in drawn.nodes:
            if label in ends:
                continue
            for a, b in zip(path, path[1:]):
                if segment_hits_box(a, b, box):
                    problems.append(f"arrow {path[0]}→{path[-1]} runs through node {label!r}")
                    break
    return problems


def overlapping_labels(drawn: Drawn) -> list[str]:
    problems = []
    for i, (text, box) in enumerate(drawn.labels):
        for other, other_box in drawn.labels[i + 1:]:
            if boxes_overlap(box, other_box):
                problems.append(f"labels {text!r} and {other!r} overlap")
    return problems


def _on_segment(point: Point, a: Point, b: Point, tolerance: float = 0.01) -> bool:
    (px, py), (ax, ay), (bx, by) = point, a, b
    cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
    length = math.hypot(bx - ax, by - ay)
    if length == 0 or abs(cross) / length > tolerance:
        return False
    along = ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / (length * length)
    return -1e-9 <= along <= 1 + 1e-9


def misdrawn_heads(drawn: Drawn) -> list[str]:
    """Each head that lies on no segment of its arrow, or is not turned toward
    the end of the segment it lies on (within 1°, as drawn: Vega turns it
    after the scales, so a head follows its line at any stretch)."""
    problems = []
    for arrow in drawn.arrows:
        legs = [(a, b) for a, b in zip(arrow.points, arrow.points[1:]) if _on_segment(arrow.head, a, b)]
        if not legs:
            problems.append(f"head {arrow.head} is on no segment of {arrow.points}")
            continue
        (ax, ay), (bx, by) = legs[-1]
        along = math.degrees(math.atan2(by - ay, bx - ax))
        (hx, hy), (tx, ty) = arrow.head, arrow.toward
        turned = math.degrees(math.atan2(ty - hy, tx - hx))
        if (hx, hy) == (tx, ty) or abs((turned - along + 180) % 360 - 180) > 1:
            problems.append(f"head at {arrow.head} turned {turned % 360:.1f}°, its segment "
                            f"{legs[-1]} runs {along % 360:.1f}°")
    return problems

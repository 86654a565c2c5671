"""Read the geometry back from a drawn arrow diagram: node boxes, arrow paths, label boxes.

Everything is read from the figure's traces (what the browser draws), in the
figure's data units, which the layout makes pixels at its design width. Label
boxes use :func:`lens.layout.text_box`, the one estimate the layout uses too.
"""

from __future__ import annotations

from dataclasses import dataclass

from lens.layout import Box, Point, boxes_overlap, node_box, segment_hits_box, text_box


@dataclass
class Drawn:
    nodes: list[tuple[str, Box]]  # label, box
    paths: list[list[Point]]
    labels: list[tuple[str, Box]]


def read_figure(figure: dict, stretch: float = 1.0) -> Drawn:
    """The geometry of a figure given as plotly's ``{data, layout}``, its x
    coordinates multiplied by ``stretch`` (a chart drawn wider than the design
    width; text and markers keep their size)."""
    data = [_Trace(trace) for trace in figure["data"]]
    node_trace = data[-1]
    nodes = []
    sizes = node_trace.marker.size
    for index, (text, x, y) in enumerate(zip(node_trace.text, node_trace.x, node_trace.y)):
        size = sizes[index] if isinstance(sizes, (list, tuple)) else sizes
        nodes.append((text, node_box((x * stretch, y), size)))
    paths: list[list[Point]] = []
    labels: list[tuple[str, Box]] = []
    for trace in data[:-1]:
        if trace.mode == "lines+markers":
            current: list[Point] = []
            for x, y in zip(trace.x, trace.y):
                if x is None:
                    paths.append(current)
                    current = []
                else:
                    current.append((x * stretch, y))
            if current:
                paths.append(current)
        elif trace.mode == "text":
            sizes = trace.textfont.size
            for index, (text, x, y) in enumerate(zip(trace.text, trace.x, trace.y)):
                size = sizes[index] if isinstance(sizes, (list, tuple)) else sizes
                labels.append((text, text_box(text, size, (x * stretch, y))))
    return Drawn(nodes, paths, labels)


class _Trace:
    """Attribute access over a trace dict (``trace.marker.size``), as on a go.Scatter."""

    def __init__(self, values: dict) -> None:
        self._values = values

    def __getattr__(self, name: str):
        value = self._values.get(name)
        return _Trace(value) if isinstance(value, dict) else value


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

"""A state key's timeline as a small plotly chart on the slider's step axis.

Owns: turning one key's :class:`lens.lineage_view.WhereFrom` timeline into
points -- its writes on one row, its recorded reads on another -- at the step
numbers the time slider uses for the scope on screen, each point's hover
naming the stage, the commit and (for a write) a short preview of the value
written; and the figure. Several moments at one step are one point whose hover
lists them. A moment at no step, or at a step of another scope, cannot sit on
this axis: :class:`KeyChart` counts them so the caller can say so. Knows
nothing about widgets; all recording text goes through :func:`lens.text.plot_text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import plotly.graph_objects as go

from recorders.lineage import Lineage
from lens.lineage_view import StageRow, WhereFrom
from lens.text import clipped_json, one_line, plot_text
from lens.value_keys import written_value

WRITES, READS = "writes", "reads"
WRITE_COLOUR = "#7048e8"
READ_COLOUR = "#868e96"
CURRENT_COLOUR = "#d9480f"
PREVIEW_CHARS = 44  # a hover line fits the narrow detail pane (about 50 characters wide)
NAME_CHARS = 40
HOVER_LINES = 4   # moments listed in one point's hover; the rest are counted
HEIGHT_PX = 170
TICK_EVERY_STEP_UP_TO = 20


@dataclass(frozen=True)
class KeyPoint:
    """The moments of one row at one step of the scope on screen."""

    row: str                      # WRITES or READS
    step_index: int               # 0-based, as the slider's position
    moments: tuple[StageRow, ...]
    previews: tuple[str, ...]     # one per moment: the written value, clipped ("" for a read)


@dataclass(frozen=True)
class KeyChart:
    """The points on the axis, and what could not be drawn on it."""

    points: tuple[KeyPoint, ...]
    step_count: int
    current_index: int
    elsewhere: int   # moments at a step of another scope
    unplaced: int    # moments at no step at all


def key_chart(view: WhereFrom, lineage: Lineage, scope_path: Sequence[str], step_count: int,
              current_index: int) -> KeyChart:
    """Group the key's moments by row and by step of the scope at ``scope_path``."""
    grouped: dict[tuple[str, int], list[StageRow]] = {}
    elsewhere = unplaced = 0
    for moment in view.timeline:
        place = moment.place
        if place is None:
            unplaced += 1
            continue
        if tuple(place.path) != tuple(scope_path):
            elsewhere += 1
            continue
        row = READS if moment.what == "read" else WRITES
        grouped.setdefault((row, place.index), []).append(moment)
    points = []
    for (row, index), moments in sorted(grouped.items(), key=lambda item: item[0][1]):
        previews = tuple(_preview(lineage, view.key, m) if row == WRITES else ""
                         for m in moments)
        points.append(KeyPoint(row, index, tuple(moments), previews))
    return KeyChart(tuple(points), step_count, current_index, elsewhere, unplaced)


def _preview(lineage: Lineage, key: str, moment: StageRow) -> str:
    if moment.commit is None or not 0 <= moment.commit < len(lineage.log.bundles):
        return ""
    value = written_value(lineage.log.bundles[moment.commit], key)
    if moment.what == "delete":
        return "(deleted)"
    return clipped_json(value, PREVIEW_CHARS)


def key_timeline_figure(chart: KeyChart) -> go.Figure:
    """The chart: x the slider's step numbers (1 to the scope's count), the
    current step marked; each point's custom data is its 0-based step index."""
    traces = []
    for row, colour, symbol in ((WRITES, WRITE_COLOUR, "circle"),
                                (READS, READ_COLOUR, "circle-open")):
        points = [p for p in chart.points if p.row == row]
        if not points:
            continue
        traces.append(go.Scatter(
            mode="markers", name=row,
            x=[p.step_index + 1 for p in points], y=[row] * len(points),
            customdata=[p.step_index for p in points],
            hovertext=[_hover(p) for p in points], hoverinfo="text",
            marker=dict(color=colour, symbol=symbol,
                        size=[min(9 + 2 * (len(p.moments) - 1), 19) for p in points],
                        line=dict(color=colour, width=1.5)),
            showlegend=False))
    count = max(chart.step_count, 1)
    rows = [row for row in (READS, WRITES) if any(p.row == row for p in chart.points)]
    layout = dict(
        # Every step numbered while the numbers fit the narrow pane, as the slider counts.
        xaxis=dict(title=dict(text="step (as on the slider)"), range=[0.5, count + 0.5],
                   tickformat="d", dtick=1 if count <= TICK_EVERY_STEP_UP_TO else None,
                   showgrid=True, zeroline=False, fixedrange=True),
        yaxis=dict(type="category", categoryorder="array", categoryarray=rows,
                   fixedrange=True),
        shapes=[dict(type="line", xref="x", yref="paper", x0=chart.current_index + 1,
                     x1=chart.current_index + 1, y0=0, y1=1,
                     line=dict(color=CURRENT_COLOUR, width=2, dash="dot"))],
        height=HEIGHT_PX,
        margin=dict(l=10, r=10, t=10, b=40),
        clickmode="event+select",
        hoverlabel=dict(namelength=-1),
        template=dict(),  # Streamlit applies its own theme
    )
    return go.Figure(data=traces, layout=layout)


def _hover(point: KeyPoint) -> str:
    what = "write" if point.row == WRITES else "read"
    head = (f"step {point.step_index + 1}: {len(point.moments)} {what}"
            f"{'s' if len(point.moments) != 1 else ''}")
    lines = [head]
    for moment, preview in list(zip(point.moments, point.previews))[:HOVER_LINES]:
        stage = plot_text(one_line(moment.stage_name or "(unnamed stage)", NAME_CHARS))
        line = f"commit {moment.commit} · {plot_text(moment.what)} by {stage}"
        lines.append(line)
        if preview:  # on a line of its own: beside the stage it ran off the pane's edge
            lines.append(f"→ {plot_text(one_line(preview, PREVIEW_CHARS))}")
    if len(point.moments) > HOVER_LINES:
        lines.append(f"and {len(point.moments) - HOVER_LINES} more (the table lists them)")
    return "<br>".join(lines)

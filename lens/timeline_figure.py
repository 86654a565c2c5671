"""The whole-run timeline as a plotly figure: one row per scope, one bar per call.

Model calls sit in the upper half of their scope's row and tool calls in the
lower half; failed tools (and failed model calls) are red, calls that never
ended are hatched. The current step's calls are outlined. Every bar carries
``[kind, record id]`` as its custom data, which is what a click reports.

Built from :class:`lens.timeline.Timeline` in a handful of traces whatever the
run's size: one per colour, plus one for the outlined bars. A screen is about
a thousand pixels wide, so a run with thousands of calls (a 20× run has nine
thousand) draws the calls of one kind on one row that start within the same
:data:`MERGE_FRACTION` of the run's length as one bar, whose hover says how
many calls it holds and whose click goes to the first of them; the outlined
current calls are always drawn one by one. All recording text goes through
:func:`lens.text.plot_text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import plotly.graph_objects as go

from lens.text import one_line, plot_text
from lens.timeline import (CHECK_IN, FALLBACK, MARK, MARK_KINDS, MODEL, PAUSED, RECOVERED, RETRY,
                           TOOL, Mark, Span, Timeline)

MODEL_COLOUR = "#7048e8"
TOOL_COLOUR = "#2b8a3e"
FAILED_COLOUR = "#c92a2a"
CURRENT_OUTLINE = "#d9480f"
_BAR = 0.36           # bar thickness, in rows
_OFFSET = {MODEL: -0.2, TOOL: 0.2}
_MIN_WIDTH = 0.004    # of the run's length: an instant call stays visible
_TITLE_CHARS = 40
_LABEL_CHARS = 60
ROW_PX = 46
MERGE_ABOVE = 800        # spans drawn one by one up to this many
MERGE_FRACTION = 1 / 800  # about two pixels of a laptop-wide chart
# Marks sit on their lane's line, between the model and the tool bars; one
# trace per kind, so the legend names each kind and can hide it.
MARK_STYLE = {RETRY: ("triangle-up", "#e8590c", "retries"),
              FALLBACK: ("diamond", "#f08c00", "fallbacks"),
              RECOVERED: ("circle", "#1971c2", "recoveries and circuit changes"),
              PAUSED: ("square", "#495057", "pauses"),
              CHECK_IN: ("star", "#0b7285", "check-ins")}
MARK_SIZE = 13
MARK_SPREAD = 0.28  # rows between marks that share a moment: a marker's size at ROW_PX


def timeline_figure(timeline: Timeline, current: Iterable[tuple[str, int]] = ()) -> go.Figure:
    """The timeline, with the spans named in ``current`` ((kind, id) pairs) outlined."""
    horizon = max((s.end_ms for s in timeline.spans), default=0.0)
    least = max(horizon * _MIN_WIDTH, 0.5)
    # With no tool calls at all, model calls sit on their row's line.
    offsets = _OFFSET if any(s.kind == TOOL for s in timeline.spans) else {MODEL: 0.0}
    groups: dict[tuple[str, bool], list[Span]] = {}
    for span in timeline.spans:
        groups.setdefault((span.kind, span.failed), []).append(span)
    bucket = horizon * MERGE_FRACTION if len(timeline.spans) > MERGE_ABOVE else None
    traces = [_bars(_merged(spans, bucket), least, offsets, _colour(kind, failed),
                    _name(kind, failed))
              for (kind, failed), spans in sorted(groups.items())]
    wanted = set(current)
    lit = [s for s in timeline.spans if (s.kind, s.record_id) in wanted]
    if lit:
        traces.append(_bars(_merged(lit, None), least, offsets, "rgba(0,0,0,0)", "this step",
                            outline=True))
    heights = _dodged(timeline.marks, least)
    for kind in MARK_KINDS:
        marks = [(m, heights[n]) for n, m in enumerate(timeline.marks) if m.kind == kind]
        if marks:
            traces.append(_marks(marks, kind, timeline.origin_ms or 0.0))
    rows = max(len(timeline.lanes), 1)
    layout = dict(
        barmode="overlay",
        xaxis=dict(title=dict(text="ms from the run's first event"), rangemode="tozero",
                   showgrid=True, zeroline=False),
        yaxis=dict(tickmode="array", tickvals=list(range(len(timeline.lanes))),
                   ticktext=[plot_text(one_line(lane.title, _TITLE_CHARS))
                             for lane in timeline.lanes],
                   autorange="reversed", range=[rows - 0.5, -0.5], fixedrange=True),
        height=int(min(120 + ROW_PX * rows, 900)),
        margin=dict(l=10, r=10, t=10, b=40),
        showlegend=True,
        legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0, xanchor="left"),
        clickmode="event+select",
        dragmode="zoom",
        hoverlabel=dict(namelength=-1),
        template=dict(),  # Streamlit applies its own theme; plotly.py's default is large
    )
    return go.Figure(data=traces, layout=layout)


@dataclass(frozen=True)
class _Bar:
    """One drawn bar: a span, or several close spans of one kind on one row."""

    first: Span
    end_ms: float
    count: int

    @property
    def duration_ms(self) -> float:
        return self.end_ms - self.first.start_ms


def _merged(spans: list[Span], bucket: float | None) -> list[_Bar]:
    """Spans as bars; with a ``bucket`` width, the spans of one row whose starts
    fall in the same bucket of time are one bar (so at most one bar per bucket)."""
    if bucket is None or bucket <= 0:
        return [_Bar(s, s.end_ms, 1) for s in spans]
    bars: dict[tuple[int, int, bool], _Bar] = {}
    for span in spans:
        key = (span.lane, int(span.start_ms // bucket), span.open)
        bar = bars.get(key)
        bars[key] = (_Bar(span, span.end_ms, 1) if bar is None
                     else _Bar(bar.first, max(bar.end_ms, span.end_ms), bar.count + 1))
    return list(bars.values())


def _bars(bars: list, least: float, offsets: dict[str, float], colour: str, name: str,
          outline: bool = False) -> go.Bar:
    return go.Bar(
        orientation="h",
        name=name,
        y=[b.first.lane + offsets[b.first.kind] for b in bars],
        base=[b.first.start_ms for b in bars],
        x=[max(b.duration_ms, least) for b in bars],
        width=_BAR,
        customdata=[[b.first.kind, b.first.record_id] for b in bars],
        hovertext=[_hover(b) for b in bars],
        hoverinfo="text",
        marker=dict(color=colour,
                    line=dict(color=CURRENT_OUTLINE if outline else colour,
                              width=3 if outline else 0),
                    pattern=dict(shape=["/" if b.first.open else "" for b in bars])),
        showlegend=True,
    )


def _dodged(marks: tuple[Mark, ...], least: float) -> list[float]:
    """Each mark's height: its lane, spread up and down when several fall within
    ``least`` ms of each other on one lane (a circuit change, a fallback and a
    retry in the same millisecond would otherwise hide each other)."""
    clusters: dict[tuple[int, int], list[int]] = {}
    for n, mark in enumerate(marks):
        clusters.setdefault((mark.lane, int(mark.at_ms // least)), []).append(n)
    heights = [float(mark.lane) for mark in marks]
    for members in clusters.values():
        step = min(MARK_SPREAD, 0.8 / len(members))  # a crowded cluster stays inside its row
        for k, n in enumerate(members):
            heights[n] += (k - (len(members) - 1) / 2) * step
    return heights


def _marks(marks: list[tuple[Mark, float]], kind: str, origin_ms: float) -> go.Scatter:
    symbol, colour, name = MARK_STYLE[kind]
    return go.Scatter(
        mode="markers", name=name,
        x=[m.at_ms for m, _ in marks], y=[height for _, height in marks],
        # A click goes to the step at the mark's time: [MARK, epoch ms] (None: no time).
        customdata=[[MARK, origin_ms + m.at_ms if m.timed else None] for m, _ in marks],
        hovertext=[_mark_hover(m) for m, _ in marks], hoverinfo="text",
        marker=dict(symbol=symbol, color=colour, size=MARK_SIZE,
                    line=dict(color="white", width=1)),
        showlegend=True,
    )


def _mark_hover(mark: Mark) -> str:
    when = (f"{mark.at_ms:,.0f} ms" if mark.timed
            else "no time recorded: placed at the run's end")
    lines = [f"{mark.kind}: {plot_text(mark.type_name)} · {when}"]
    if mark.detail:
        lines.append(plot_text(one_line(mark.detail, _LABEL_CHARS * 2)))
    return "<br>".join(lines)


def _hover(bar: _Bar) -> str:
    span = bar.first
    what = "model call" if span.kind == MODEL else "tool"
    state = " · FAILED" if span.failed else ""
    state += " · never ended in the recording" if span.open else ""
    if bar.count > 1:
        head = f"{bar.count} {what}s close together (zoom in on the data; click: the first)"
    else:
        head = f"{what}: {plot_text(one_line(span.label, _LABEL_CHARS))}"
    return (f"{head}{state}<br>"
            f"{span.start_ms:,.0f} → {bar.end_ms:,.0f} ms ({bar.duration_ms:,.0f} ms)")


def _colour(kind: str, failed: bool) -> str:
    if failed:
        return FAILED_COLOUR
    return MODEL_COLOUR if kind == MODEL else TOOL_COLOUR


def _name(kind: str, failed: bool) -> str:
    base = "model calls" if kind == MODEL else "tool calls"
    return f"failed {base}" if failed else base

"""The Archive page's small charts: runs over time, failures by tool, tokens by agent.

Pure functions of query rows to a Vega-Lite spec and the rows it draws. The
spec of a chart stays the same from one filter to the next (only its rows
change), so the browser updates a drawn chart in place instead of drawing it
anew: with three charts on the page that is most of what a filter change costs
the browser.

Agent and tool names come from recordings. Vega-Lite draws them as text on an
axis, never as markup; the tooltips carry only numbers and times, so no
recording text ever reaches a tooltip's HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lens.evidence.outcome import (ENDED_ANSWERED, ENDED_CRASHED, ENDED_PAUSED, ENDED_STOPPED,
                                   ENDED_UNFINISHED, ENDINGS)

HEIGHT = 240  # the whole chart, title and axes included
_PLOT_HEIGHT = 180
_CRASHED = "#E45756"
# How the runs ended, each its own colour (stopped and crashed both stop a run,
# but a stack must tell them apart).
_ENDED_COLOURS = {ENDED_ANSWERED: "#54A24B", ENDED_STOPPED: "#F58518", ENDED_CRASHED: _CRASHED,
                  ENDED_PAUSED: "#9D9DA3", ENDED_UNFINISHED: "#ECCA3B"}
_INPUT, _OUTPUT = "#4C78A8", "#F58518"
# A bar per name, every name shown (up to 15 bars: the query keeps the top 15),
# cut with "…" after 140 pixels.
_NAME_AXIS = {"labelLimit": 140, "labelOverlap": False, "labelFontSize": 10}
# The bucket a runs-over-time row counts (archive.filters.runs_over_time_sql)
# → the Vega-Lite time unit that draws one bar per bucket, and how a tooltip
# names it.
_TIME_UNITS = {
    "minute": ("utcyearmonthdatehoursminutes", "%Y-%m-%d %H:%M"),
    "hour": ("utcyearmonthdatehours", "%Y-%m-%d %H:00"),
    "day": ("utcyearmonthdate", "%Y-%m-%d"),
    "week": ("utcyearmonthdate", "week of %Y-%m-%d"),
}


@dataclass(frozen=True)
class Chart:
    """A Vega-Lite spec and the rows it draws (its data, given beside it)."""

    spec: dict[str, Any]
    rows: list[dict[str, Any]]
    columns: tuple[str, ...]  # the rows' fields, so that no rows still has them


def _spec(title: str, mark: dict[str, Any], encoding: dict[str, Any]) -> dict[str, Any]:
    return {"title": {"text": title, "fontSize": 14, "anchor": "start"},
            "height": _PLOT_HEIGHT, "mark": mark, "encoding": encoding}


def runs_over_time(rows: list[dict[str, Any]]) -> Chart:
    """Stacked bars of runs per time bucket, coloured by how they ended (the
    run page's colours: answered green, stopped and crashed red…)."""
    unit = rows[0]["unit"] if rows else "day"
    time_unit, label = _TIME_UNITS.get(unit, _TIME_UNITS["day"])
    drawn = [{"bucket": r["bucket"], "outcome": r["outcome"], "runs": r["runs"],
              "order": ENDINGS.index(r["outcome"]) if r["outcome"] in ENDINGS else len(ENDINGS),
              "when": r["bucket"].strftime(label) if r["bucket"] is not None else ""}
             for r in rows]
    spec = _spec("Runs over time", {"type": "bar"}, {
        "x": {"field": "bucket", "type": "temporal", "timeUnit": time_unit, "title": None},
        "y": {"field": "runs", "type": "quantitative", "aggregate": "sum", "title": "runs",
              "axis": {"format": ",d", "tickMinStep": 1}},
        "color": {"field": "outcome", "type": "nominal", "title": None,
                  "scale": {"domain": list(ENDINGS),
                            "range": [_ENDED_COLOURS[ended] for ended in ENDINGS]},
                  # Five endings in a third of the page: three to a row, not one cut row.
                  "legend": {"orient": "bottom", "columns": 3, "labelFontSize": 10,
                             "symbolSize": 60, "rowPadding": 2}},
        "order": {"field": "order", "sort": "ascending"},
        "tooltip": [{"field": "when", "type": "nominal", "title": "runs from"},
                    {"field": "outcome", "type": "nominal"},
                    {"field": "runs", "type": "quantitative", "format": ",d"}],
    })
    return Chart(spec, drawn, ("bucket", "outcome", "runs", "when", "order"))


def failures_by_tool(rows: list[dict[str, Any]]) -> Chart:
    """Horizontal bars of failed calls per tool, the most failing on top."""
    drawn = [{"tool": _name(r["tool_name"]), "failures": r["failures"]} for r in rows]
    spec = _spec("Failed tool calls by tool", {"type": "bar", "color": _CRASHED}, {
        "y": {"field": "tool", "type": "nominal", "title": None,
              "sort": {"field": "failures", "order": "descending"},
              "axis": _NAME_AXIS},
        "x": {"field": "failures", "type": "quantitative", "title": None,
              "axis": {"format": ",d", "tickMinStep": 1}},
        "tooltip": [{"field": "failures", "type": "quantitative", "title": "failed calls",
                     "format": ",d"}],
    })
    return Chart(spec, drawn, ("tool", "failures"))


def tokens_by_agent(rows: list[dict[str, Any]]) -> Chart:
    """Stacked horizontal bars of input and output tokens per agent, the most on top."""
    drawn = [{"agent": _name(r["agent"]), "kind": kind, "tokens": r[field] or 0}
             for r in rows for kind, field in (("input", "input_tokens"),
                                                ("output", "output_tokens"))]
    spec = _spec("Tokens by agent", {"type": "bar"}, {
        "y": {"field": "agent", "type": "nominal", "title": None,
              "sort": {"op": "sum", "field": "tokens", "order": "descending"},
              "axis": _NAME_AXIS},
        "x": {"field": "tokens", "type": "quantitative", "aggregate": "sum", "title": None,
              "axis": {"format": "~s"}},
        "color": {"field": "kind", "type": "nominal", "title": None,
                  "scale": {"domain": ["input", "output"], "range": [_INPUT, _OUTPUT]},
                  "legend": {"orient": "bottom"}},
        "tooltip": [{"field": "kind", "type": "nominal"},
                    {"field": "tokens", "type": "quantitative", "aggregate": "sum",
                     "format": ",d"}],
    })
    return Chart(spec, drawn, ("agent", "kind", "tokens"))


def _name(value: Any) -> str:
    return "(none)" if value is None else str(value)


def cause_trend(days: dict[str, int], title: str = "Runs with this cause, by day") -> Chart:
    """Bars of a cause group's runs per day (the Causes view's trend)."""
    drawn = [{"day": day, "runs": runs} for day, runs in sorted(days.items())]
    spec = _spec(title, {"type": "bar", "color": _CRASHED}, {
        # Days as bands, not points on a time axis: a group seen on one day is
        # one bar, not a bar stretched over the whole width.
        "x": {"field": "day", "type": "ordinal", "title": None,
              "axis": {"labelAngle": 0, "labelOverlap": True}},
        "y": {"field": "runs", "type": "quantitative", "title": "runs",
              "axis": {"format": ",d", "tickMinStep": 1}},
        "tooltip": [{"field": "day", "type": "nominal", "title": "day"},
                    {"field": "runs", "type": "quantitative", "format": ",d"}],
    })
    return Chart(spec, drawn, ("day", "runs"))

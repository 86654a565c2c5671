"""The Archive page's small charts: runs over time, failures by tool, tokens by agent.

Pure functions of query rows to plotly figures. Agent and tool names come from
recordings, so every label is escaped before plotly sees it.
"""

from __future__ import annotations

import html
from typing import Any

import plotly.graph_objects as go

HEIGHT = 240
_COLOURS = {"completed": "#4C78A8", "crashed": "#E45756"}


def _label(value: Any) -> str:
    return html.escape("(none)" if value is None else str(value), quote=False)


def _figure(title: str) -> go.Figure:
    figure = go.Figure()
    figure.update_layout(title={"text": title, "font": {"size": 14}}, height=HEIGHT,
                         margin={"l": 10, "r": 10, "t": 36, "b": 10}, template="none",
                         showlegend=False)
    return figure


def runs_over_time(rows: list[dict[str, Any]]) -> go.Figure:
    """Stacked bars of runs per time bucket, crashed runs in red."""
    figure = _figure("Runs over time")
    for outcome in ("completed", "crashed"):
        chosen = [r for r in rows if r["outcome"] == outcome]
        if chosen:
            figure.add_bar(x=[r["bucket"] for r in chosen], y=[r["runs"] for r in chosen],
                           name=outcome, marker_color=_COLOURS[outcome],
                           hovertemplate="%{x}<br>%{y} runs<extra>" + outcome + "</extra>")
    figure.update_layout(barmode="stack", showlegend=True,
                         legend={"orientation": "h", "y": -0.25})
    return figure


def failures_by_tool(rows: list[dict[str, Any]]) -> go.Figure:
    figure = _figure("Failed tool calls by tool")
    names = [_label(r["tool_name"]) for r in rows][::-1]
    figure.add_bar(y=names, x=[r["failures"] for r in rows][::-1], orientation="h",
                   marker_color=_COLOURS["crashed"],
                   hovertemplate="%{y}: %{x} failed<extra></extra>")
    figure.update_xaxes(tickformat=",d", rangemode="tozero")
    return figure


def tokens_by_agent(rows: list[dict[str, Any]]) -> go.Figure:
    figure = _figure("Tokens by agent")
    agents = [_label(r["agent"]) for r in rows][::-1]
    figure.add_bar(y=agents, x=[r["input_tokens"] or 0 for r in rows][::-1], orientation="h",
                   name="input", marker_color="#4C78A8",
                   hovertemplate="%{y}: %{x} input<extra></extra>")
    figure.add_bar(y=agents, x=[r["output_tokens"] or 0 for r in rows][::-1], orientation="h",
                   name="output", marker_color="#F58518",
                   hovertemplate="%{y}: %{x} output<extra></extra>")
    figure.update_layout(barmode="stack")
    figure.update_xaxes(tickformat=",d", rangemode="tozero")
    return figure

"""The actor-arrow figure redrawn as one ECharts option: benchmark-only.

Turns the plotly figure ``lens.figures.actor_figure_dict`` builds into an
option for ``st.echarts_chart``, which under a key keeps its identity even as
a selection widget, so ECharts updates the drawn chart in place while still
reporting clicks. An approximation for pricing, not a port: node rings and
faint nodes follow the figure, but hover text is the figure's (plotly-escaped)
HTML and loop labels are plain labels. Used by :mod:`benchmarks.floor_app`.
"""

from __future__ import annotations

import html

# The node series' index in the option: a click is reported by series index
# and the clicked item's index in that series' data.
NODE_SERIES = 0
_GREY_TEXT = "#495057"


def _plain(text: str) -> str:
    """A plotly-safe string as the plain text ECharts draws in labels
    (plotly's escaping undone, its line breaks as new lines)."""
    return html.unescape(text.replace("<br>", "\n"))


def _segments(trace: dict) -> list[dict]:
    """One arrow trace's paths as two-point lines, the one that ends at a
    path's head with an arrow symbol at its end. (ECharts draws symbols on
    straight ``lines`` only: a ``polyline`` item gets no arrowhead.)"""
    segments: list[dict] = []
    previous = None
    for x, y, size in zip(trace["x"], trace["y"], trace["marker"]["size"]):
        if x is None:
            previous = None
            continue
        if previous is not None:
            segment = {"coords": [previous, [x, y]]}
            if size:  # plotly's head marker sits on this point, turned along this segment
                segment["symbol"] = ["none", "arrow"]
            segments.append(segment)
        previous = [x, y]
    return segments


def _arrow_series(trace: dict) -> list[dict]:
    line = trace["line"]
    style = {"color": line["color"], "width": line["width"], "opacity": 1,
             "type": "dotted" if line.get("dash") == "dot" else "solid"}
    return [{"type": "lines", "coordinateSystem": "cartesian2d", "silent": True,
             "symbol": "none", "symbolSize": max(trace["marker"]["size"]) * 0.9,
             "lineStyle": style, "animation": False, "data": _segments(trace)}]


def _node_series(trace: dict) -> dict:
    marker = trace["marker"]
    data = []
    for number, (x, y) in enumerate(zip(trace["x"], trace["y"])):
        data.append({
            "value": [x, y],
            "name": _plain(trace["text"][number]),
            "symbol": "rect" if marker["symbol"][number] == "square" else "circle",
            "symbolSize": marker["size"][number],
            "itemStyle": {"color": marker["color"][number],
                          "opacity": marker["opacity"][number],
                          "borderWidth": marker["line"]["width"][number],
                          "borderColor": marker["line"]["color"][number]},
            # ECharts renders a tooltip formatter string as HTML: the
            # figure's hover text is already escaped for plotly's HTML.
            "tooltip": {"formatter": trace["hovertext"][number]},
        })
    return {"type": "scatter", "id": "nodes", "selectedMode": "single", "data": data,
            "animation": False, "z": 3,
            "select": {"itemStyle": {"borderColor": "#d9480f", "borderWidth": 4}}}


def _label_series(trace: dict) -> dict:
    """Labels as invisible points whose label sits on them, as plotly's text trace."""
    colours, sizes = trace["textfont"]["color"], trace["textfont"]["size"]
    data = [{"value": [x, y],
             "label": {"show": True, "position": "inside", "formatter": _plain(text),
                       "color": colours[number], "fontSize": sizes[number]}}
            for number, (x, y, text) in enumerate(zip(trace["x"], trace["y"], trace["text"]))]
    return {"type": "scatter", "symbolSize": 0, "silent": True, "data": data,
            "animation": False, "z": 4, "tooltip": {"show": False}}


def echarts_option(figure: dict) -> dict:
    """The plotly figure as one ECharts option: hidden value axes over the
    layout's ranges (y grows downward, as the layout computed it), the nodes
    first (series 0, the one clicks are read from), then arrows and labels."""
    layout = figure["layout"]
    x_low, x_high = layout["xaxis"]["range"]
    y_bottom, y_top = layout["yaxis"]["range"]  # reversed: the larger first
    node_series: list[dict] = []
    others: list[dict] = []
    for trace in figure["data"]:
        mode = trace.get("mode", "")
        if mode == "markers":
            node_series.append(_node_series(trace))
        elif mode == "text":
            others.append(_label_series(trace))
        elif "lines" in mode and trace.get("marker", {}).get("symbol") == "arrow":
            others += _arrow_series(trace)
    axis = {"type": "value", "show": False, "scale": True}
    return {
        "animation": False,
        "grid": {"left": 0, "right": 0, "top": layout["margin"]["t"],
                 "bottom": layout["margin"]["b"]},
        "xAxis": {**axis, "min": x_low, "max": x_high},
        "yAxis": {**axis, "min": y_top, "max": y_bottom, "inverse": True},
        "tooltip": {"trigger": "item", "textStyle": {"color": _GREY_TEXT}},
        "series": node_series + others,
    }

"""The actor-arrow figure redrawn for ``st.vega_lite_chart``: benchmark-only.

Turns the plotly figure ``lens.figures.actor_figure_dict`` builds into rows
for one vega-lite spec that is the same on every step, so a keyed chart keeps
its identity while its data changes (Streamlit remounts a plotly chart whose
spec changes). An approximation for pricing, not a port: arrowheads, node
rings and hover text are left out. Used by :mod:`benchmarks.floor_app`.
"""

from __future__ import annotations


def vega_rows(figure: dict) -> list[dict]:
    """The plotly figure as rows for one constant vega-lite spec: a segment per
    pair of line points, a point per marker, a text per label."""
    rows: list[dict] = []
    for trace in figure["data"]:
        xs, ys, mode = trace.get("x", []), trace.get("y", []), trace.get("mode", "")
        if "lines" in mode:
            colour, width = trace["line"]["color"], trace["line"]["width"]
            for (x, y), (x2, y2) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
                if None not in (x, y, x2, y2):
                    rows.append(dict(kind="segment", x=x, y=y, x2=x2, y2=y2, colour=colour,
                                     width=width, size=0, text=""))
        elif mode == "text":
            colours = trace["textfont"]["color"]
            for number, (x, y) in enumerate(zip(xs, ys)):
                rows.append(dict(kind="text", x=x, y=y, x2=x, y2=y, colour=colours[number],
                                 width=0, size=12, text=trace["text"][number]))
        elif mode == "markers":
            marker = trace["marker"]
            for number, (x, y) in enumerate(zip(xs, ys)):
                rows.append(dict(kind="node", x=x, y=y, x2=x, y2=y,
                                 colour=marker["color"][number],
                                 width=marker["line"]["width"][number],
                                 size=marker["size"][number] ** 2, text=trace["text"][number]))
    return rows


def vega_spec(figure: dict) -> dict:
    """One spec for every step of a scope: layers filter the rows by kind; a
    click on a node selects it (``pick``), as a click on plotly's node does."""
    layout = figure["layout"]
    x_scale = {"domain": layout["xaxis"]["range"]}
    y_scale = {"domain": layout["yaxis"]["range"]}
    x = {"field": "x", "type": "quantitative", "scale": x_scale, "axis": None}
    y = {"field": "y", "type": "quantitative", "scale": y_scale, "axis": None}
    colour = {"field": "colour", "type": "nominal", "scale": None, "legend": None}
    return {
        "height": layout["height"],
        "layer": [
            {"transform": [{"filter": "datum.kind == 'segment'"}], "mark": "rule",
             "encoding": {"x": x, "y": y, "x2": {"field": "x2"}, "y2": {"field": "y2"},
                          "color": colour,
                          "strokeWidth": {"field": "width", "type": "quantitative",
                                          "scale": None}}},
            {"transform": [{"filter": "datum.kind == 'node'"}], "mark": {"type": "point",
                                                                         "filled": True},
             "params": [{"name": "pick", "select": {"type": "point", "fields": ["text"]}}],
             "encoding": {"x": x, "y": y, "color": colour,
                          "size": {"field": "size", "type": "quantitative", "scale": None},
                          "tooltip": {"field": "text"}}},
            {"transform": [{"filter": "datum.kind == 'text'"}], "mark": "text",
             "encoding": {"x": x, "y": y, "color": colour, "text": {"field": "text"}}},
        ],
        "config": {"view": {"stroke": None}},
    }

"""Every string the skill-route figure hands to plotly is HTML-escaped recording text.

The actor diagram is drawn by Vega, which takes text as text: ``test_diagram_chart_text.py``."""

from __future__ import annotations

from lens.figures import route_figure
from recorders.route_recorder import RouteHop, RouteTrip

HOSTILE = '<img src=x onerror=alert(1)><a href="javascript:alert(1)">x</a>'


def figure_strings(figure) -> list[str]:
    """Title, every annotation text, every trace text and hover text."""
    layout = figure.layout
    strings = [layout.title.text or ""]
    strings += [a.text or "" for a in layout.annotations]
    for trace in figure.data:
        for field in ("text", "hovertext"):
            value = getattr(trace, field, None)
            if value is None:
                continue
            strings += [value] if isinstance(value, str) else list(value)
    return strings


def assert_no_live_markup(strings):
    joined = "\n".join(strings)
    assert "<img" not in joined and "<a " not in joined and "<script" not in joined
    # Only the figure's own line breaks remain as tags.
    assert joined.replace("<br>", "").count("<") == 0


def test_route_skill_names_captions_and_trips_are_escaped():
    hops = [
        RouteHop("s#1", 1, "entry", "", to_skill=HOSTILE),
        RouteHop("s#2", 2, "route", "", from_skill=HOSTILE, to_skill="<svg onload=alert(1)>",
                 edge_label=HOSTILE, last_tool=HOSTILE),
        RouteHop("t#3", 2, "rejected", "", from_skill=HOSTILE, requested_skill="<b>x</b>",
                 reachable=(HOSTILE,)),
        RouteHop("s#4", 3, "stay", "", from_skill="<svg onload=alert(1)>",
                 to_skill="<svg onload=alert(1)>"),
    ]
    trips = [RouteTrip("rejected-cap", 2, (HOSTILE,), HOSTILE)]
    strings = figure_strings(route_figure(hops, trips))
    assert_no_live_markup(strings)
    assert "<svg" not in "".join(strings)
    assert any("&lt;svg onload=alert(1)&gt;" in s for s in strings)


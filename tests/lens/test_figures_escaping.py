"""Every string a figure hands to plotly is HTML-escaped recording text."""

from __future__ import annotations

import html

from lens_builders import ROOT, step

from lens.arrows import build_arrow_diagram
from lens.figures import actor_figure, route_figure
from recorders.route_recorder import RouteHop, RouteTrip

HOSTILE = '<img src=x onerror=alert(1)><a href="javascript:alert(1)">x</a>'
USER = "actor:user"


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


def test_actor_labels_arrow_labels_and_hovers_are_escaped():
    steps = [step("fork", "fork (2)", (USER, HOSTILE, "fork-branch", HOSTILE),
                  (USER, "ok", "fork-branch", "<b>bold</b>")),
             step("decide", "routes", (HOSTILE + "#3", "ok", "decision-branch", HOSTILE))]
    diagram = build_arrow_diagram(steps, ROOT, set())
    for index in range(len(steps)):
        strings = figure_strings(actor_figure(diagram, index, title=HOSTILE))
        assert_no_live_markup(strings)
        assert any(html.escape("<img src=x", quote=False) in s for s in strings)


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


def test_diagram_nodes_carry_their_drill_path_for_clicks():
    steps = [step("fork", "fork (1)", (USER, "legal", "fork-branch", "legal"))]
    diagram = build_arrow_diagram(steps, ROOT, {("__root__", "legal")})
    nodes = actor_figure(diagram, 0, title="").data[-1]
    assert list(nodes.customdata) == ["", "__root__/legal"]

"""What the arrow diagram draws at a step: lit arrows, faint earlier ones, heads, loops."""

from __future__ import annotations

import pytest
from lens_builders import ROOT, step

from lens.arrows import build_arrow_diagram
from lens.figures import FAINT, LIT, actor_figure, route_figure
from recorders.route_recorder import RouteHop

USER = "actor:user"
LLM, TOOL = "stage:llm:call-llm#18", "stage:tool:call-llm#18"
REACT = [
    step("react", "user→llm", (USER, LLM, "actor-arrow", "asks")),
    step("react", "llm→tool", (LLM, TOOL, "actor-arrow", "lookup")),
    step("react", "tool→llm", (TOOL, LLM, "actor-arrow", "result")),
    step("react", "llm→user", (LLM, USER, "actor-arrow", "answers")),
]


def node_positions(figure) -> dict[str, tuple[float, float]]:
    nodes = figure.data[-1]
    return {label: (x, y) for label, x, y in zip(nodes.text, nodes.x, nodes.y)}


def arrows_in(figure, colour: str) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """(source, target) of each arrow drawn in ``colour``, read from its line trace."""
    arrows = []
    for trace in figure.data:
        if trace.mode != "lines+markers" or trace.line.color != colour:
            continue
        points = list(zip(trace.x, trace.y))
        for start in range(0, len(points), 4):
            source, head, target, gap = points[start:start + 4]
            assert gap == (None, None)
            # The head sits between the ends, nearer the target, turned along its line.
            assert trace.marker.size[start + 1] > 0 and trace.marker.size[start] == 0
            for axis in (0, 1):
                expected = source[axis] + (target[axis] - source[axis]) * 0.62
                assert head[axis] == pytest.approx(expected)
            arrows.append((source, target))
        assert trace.marker.angleref == "previous" and trace.marker.symbol == "arrow"
    return arrows


def texts_in(figure, colour: str) -> list[str]:
    """Texts drawn in ``colour`` (a trace's colour may be one, or one per text)."""
    found = []
    for trace in figure.data:
        if trace.mode not in ("text", "markers+text"):
            continue
        colours = trace.textfont.color
        if isinstance(colours, str) or colours is None:
            colours = [colours] * len(trace.text)
        found += [text for text, drawn in zip(trace.text, colours) if drawn == colour]
    return found


def test_the_step_arrow_is_lit_and_points_from_its_source_to_its_target():
    diagram = build_arrow_diagram(REACT, ROOT, set())
    figure = actor_figure(diagram, 1, title="")
    where = node_positions(figure)
    assert arrows_in(figure, LIT) == [(where["model"], where["tools"])]
    assert texts_in(figure, LIT) == ["lookup"]
    # The one earlier connection stays, faint and unlabelled; later ones are not drawn yet.
    assert arrows_in(figure, FAINT) == [(where["user"], where["model"])]
    assert texts_in(figure, FAINT) == []


def test_arrows_both_ways_between_two_actors_are_drawn_apart():
    diagram = build_arrow_diagram(REACT, ROOT, set())
    figure = actor_figure(diagram, 2, title="")  # tools → model, after model → tools
    where = node_positions(figure)
    [lit] = arrows_in(figure, LIT)
    [back] = [a for a in arrows_in(figure, FAINT) if a != (where["user"], where["model"])]

    def side(arrow) -> float:
        """Which side of the straight model–tools line the arrow's middle lies on."""
        (ax, ay), (bx, by) = where["model"], where["tools"]
        mx, my = [(arrow[0][i] + arrow[1][i]) / 2 for i in (0, 1)]
        return (bx - ax) * (my - ay) - (by - ay) * (mx - ax)

    assert side(lit) * side(back) < 0


def test_a_step_that_stays_on_one_actor_is_a_loop_mark_with_its_label():
    steps = [step("react", "user→llm", (USER, LLM, "actor-arrow", "asks")),
             step("react", "retry", (LLM, LLM, "actor-arrow", "retries"))]
    diagram = build_arrow_diagram(steps, ROOT, set())
    figure = actor_figure(diagram, 1, title="")
    assert texts_in(figure, LIT) == ["↻ retries"]
    assert arrows_in(figure, LIT) == []


def test_the_diagram_draws_no_annotations():
    # Plotly lays out every annotation on each slider move: one per arrow made
    # the diagram most of a step's time in the browser (benchmarks/README.md).
    diagram = build_arrow_diagram(REACT, ROOT, set())
    for index in range(len(REACT)):
        assert actor_figure(diagram, index, title="").layout.annotations == ()


def test_route_hops_are_numbered_arrows_and_a_stay_is_a_loop():
    hops = [RouteHop("s#1", 1, "entry", "", to_skill="triage"),
            RouteHop("s#2", 2, "route", "", from_skill="triage", to_skill="refunds"),
            RouteHop("s#3", 3, "stay", "", from_skill="refunds", to_skill="refunds")]
    figure = route_figure(hops, [])
    where = node_positions(figure)
    assert arrows_in(figure, LIT) == [(where["(start)"], where["triage"]),
                                      (where["triage"], where["refunds"])]
    assert texts_in(figure, LIT) == ["#1", "#2"]
    assert "↻ #3" in [text for trace in figure.data if trace.text is not None
                      for text in trace.text]
    assert figure.layout.annotations == ()

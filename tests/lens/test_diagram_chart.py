"""What the actor chart draws at a step: lit arrows, faint earlier ones, heads, loops.

Read from the chart's rows (what Vega draws), through the geometry reader.
"""

from __future__ import annotations

import math

import pytest
from diagram_geometry import read_chart
from lens_builders import ROOT, step

from lens.arrows import build_arrow_diagram
from lens.diagram_chart import FAINT, LIT, DiagramChart, actor_chart

USER = "actor:user"
LLM, TOOL = "stage:llm:call-llm#18", "stage:tool:call-llm#18"
REACT = [
    step("react", "user→llm", (USER, LLM, "actor-arrow", "asks")),
    step("react", "llm→tool", (LLM, TOOL, "actor-arrow", "lookup")),
    step("react", "tool→llm", (TOOL, LLM, "actor-arrow", "result")),
    step("react", "llm→user", (LLM, USER, "actor-arrow", "answers")),
]
Point = tuple[float, float]


def node_positions(chart: DiagramChart) -> dict[str, Point]:
    return {node["text"]: (node["x"], node["y"]) for node in chart.of_kind("node")}


def arrows_in(chart: DiagramChart, style: str, colour: str) -> list[tuple[Point, Point]]:
    """(source, target) of each straight arrow drawn in ``style``; its head in ``colour``."""
    arrows = []
    for arrow in read_chart(chart).arrows:
        if arrow.style != style:
            continue
        source, target = arrow.points
        # The head sits between the ends, nearer the target, turned along its line.
        for axis in (0, 1):
            expected = source[axis] + (target[axis] - source[axis]) * 0.62
            assert arrow.head[axis] == pytest.approx(expected)
        assert arrow.head_colour == colour
        arrows.append((source, target))
    return arrows


def texts_in(chart: DiagramChart, colour: str) -> list[str]:
    """Texts drawn in ``colour``."""
    return [row["text"] for row in chart.of_kind("text") if row["colour"] == colour]


def test_the_step_arrow_is_lit_and_points_from_its_source_to_its_target():
    diagram = build_arrow_diagram(REACT, ROOT, set())
    chart = actor_chart(diagram, 1)
    where = node_positions(chart)
    assert arrows_in(chart, "lit", LIT) == [(where["model"], where["tools"])]
    assert texts_in(chart, LIT) == ["lookup"]
    # The one earlier connection stays, faint and unlabelled; later ones are not drawn yet.
    assert arrows_in(chart, "faint", FAINT) == [(where["user"], where["model"])]
    assert texts_in(chart, FAINT) == []


def test_the_lit_head_points_from_the_source_toward_the_target():
    diagram = build_arrow_diagram(REACT, ROOT, set())
    for index, (source, target) in ((1, ("model", "tools")), (3, ("model", "user"))):
        chart = actor_chart(diagram, index)
        where = node_positions(chart)
        [head] = [row for row in chart.of_kind("head") if row["style"] == "lit"]
        (sx, sy), (tx, ty) = where[source], where[target]
        # A two-way pair is moved aside in parallel: the direction is the centres'.
        toward = math.degrees(math.atan2(ty - sy, tx - sx)) % 360
        turned = math.degrees(math.atan2(head["y2"] - head["y"], head["x2"] - head["x"])) % 360
        assert abs((turned - toward + 180) % 360 - 180) < 1


def test_the_step_actors_are_ringed():
    diagram = build_arrow_diagram(REACT, ROOT, set())
    nodes = {row["text"]: row for row in actor_chart(diagram, 1).of_kind("node")}
    ringed = {name for name, row in nodes.items() if row["stroke"] == LIT}
    assert ringed == {"model", "tools"}
    assert all(nodes[name]["ring"] > nodes["user"]["ring"] for name in ringed)
    assert all(nodes[name]["size"] > nodes["user"]["size"] for name in ringed)


def test_arrows_both_ways_between_two_actors_are_drawn_apart():
    diagram = build_arrow_diagram(REACT, ROOT, set())
    chart = actor_chart(diagram, 2)  # tools → model, after model → tools
    where = node_positions(chart)
    [lit] = arrows_in(chart, "lit", LIT)
    [back] = [a for a in arrows_in(chart, "faint", FAINT) if a != (where["user"], where["model"])]

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
    chart = actor_chart(diagram, 1)
    assert texts_in(chart, LIT) == ["↻ retries"]
    assert arrows_in(chart, "lit", LIT) == []
    # The mark sits above the actor it stays on.
    [mark] = [row for row in chart.of_kind("text") if row["colour"] == LIT]
    model = node_positions(chart)["model"]
    assert mark["y"] < model[1] and mark["x"] == pytest.approx(model[0], abs=40)

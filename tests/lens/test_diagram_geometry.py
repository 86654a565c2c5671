"""The arrow diagram's geometry: no arrow through a node, no two labels overlapping,
every head on its arrow and pointing toward the target.

Checked on the drawn chart (its rows, in the pixels the layout works in)
for every corpus recording, both projections, every scope and every step,
at the design width and wider; and on small constructed diagrams that the
straight centre-to-centre drawing got wrong.
"""

from __future__ import annotations

import pytest
from corpus_files import case_names, read_bytes, recording_path
from diagram_geometry import (arrows_through_nodes, every_step_chart, inside, label_box,
                              misdrawn_heads, overlapping_labels, read_chart)
from lens_builders import ROOT, step

from lens.arrows import build_arrow_diagram
from lens.diagram_chart import DiagramChart, actor_chart
from lens.layout import DESIGN_WIDTH, text_box
from lens.run import open_run

USER = "actor:user"
# A chart wider than the design width spreads the columns; text keeps its size.
STRETCHES = (1.0, 1.7)


def problems_in(chart: DiagramChart) -> list[str]:
    problems = []
    for stretch in STRETCHES:
        drawn = read_chart(chart, stretch)
        problems += [f"×{stretch}: {p}" for p in
                     arrows_through_nodes(drawn) + overlapping_labels(drawn) + misdrawn_heads(drawn)]
    left, right = sorted(row["x"] for row in chart.of_kind("frame"))
    if right - left > DESIGN_WIDTH:
        problems.append(f"drawing is {right - left:.0f} px wide, more than {DESIGN_WIDTH}")
    return problems


@pytest.mark.parametrize("case", case_names())
def test_every_step_of_every_scope_draws_clear_arrows_and_labels(case):
    checked = 0
    for where, _, chart in every_step_chart(open_run(read_bytes(recording_path(case)))):
        found = problems_in(chart)
        assert not found, f"{where}: {found[:3]}"
        checked += 1
    assert checked > 0


def sequence(*names: str) -> list:
    steps = [step("sequential", "asks", (USER, names[0], "next", "asks"))]
    steps += [step("sequential", "forwards", (a, b, "next", "forwards")) for a, b in zip(names, names[1:])]
    steps.append(step("sequential", "answers", (names[-1], USER, "next", "answers")))
    return steps


def test_a_sequence_answer_goes_around_the_agents_between():
    # Drawn centre to centre, the answer from the last agent to the user ran
    # straight through every agent of the row between them.
    steps = sequence("classify", "extract", "draft")
    diagram = build_arrow_diagram(steps, ROOT, {ROOT + (n,) for n in ("classify", "extract", "draft")})
    chart = actor_chart(diagram, len(steps) - 1)
    assert arrows_through_nodes(read_chart(chart)) == []
    # ...and it is still one arrow from the last agent to the user.
    drawn = read_chart(chart)
    boxes = dict(drawn.nodes)
    [answer] = [p for p in drawn.paths if inside(p[0], boxes["draft"]) and inside(p[-1], boxes["user"])]
    assert len(answer) > 2


def test_long_names_in_neighbouring_columns_do_not_overlap():
    # 32-character names at a column's pitch used to print over one another.
    names = ("customer-intake-classification-x", "customer-intake-extraction-agent",
             "customer-intake-reply-drafting-y", "customer-intake-final-review-zzz")
    steps = sequence(*names)
    diagram = build_arrow_diagram(steps, ROOT, set())
    for index in range(len(steps)):
        chart = actor_chart(diagram, index)
        assert problems_in(chart) == []
        # Cut to fit, not dropped: each name still starts its label.
        texts = [label for label, _ in read_chart(chart).labels]
        assert all(any(text.startswith(name[:5]) for text in texts) for name in names)


def test_a_fan_of_long_arrow_labels_is_spread_apart():
    branches = [f"reviewers/very-long-branch-name-{n}" for n in range(5)]
    fork = step("fork", "fork (5)", *[(USER, b, "fork-branch", b) for b in branches])
    diagram = build_arrow_diagram([fork], ROOT, set())
    assert problems_in(actor_chart(diagram, 0)) == []


def test_the_label_estimate_grows_with_text_and_font():
    short, long_ = text_box("ab", 12, (0, 0)), text_box("abcd", 12, (0, 0))
    assert long_[2] - long_[0] == pytest.approx(2 * (short[2] - short[0]))
    bigger = text_box("ab", 24, (0, 0))
    assert bigger[3] - bigger[1] == pytest.approx(2 * (short[3] - short[1]))
    two_lines = text_box("ab\nabcd", 12, (0, 0))
    assert two_lines[3] - two_lines[1] == pytest.approx(2 * (short[3] - short[1]))


def drawn_row(kind: str, **fields) -> dict:
    """A row as the chart draws it, with only the fields a test sets filled."""
    return {"kind": kind, "style": "lit", "x": 0.0, "y": 0.0, "x2": 0.0, "y2": 0.0,
            "size": 0.0, "text": "", "colour": "", **fields}


def test_the_checks_catch_an_arrow_through_a_node_and_overlapping_labels():
    # The straight drawing as it was: user → draft centre to centre across the
    # agents between, with two names printed at nearly the same place.
    chart = DiagramChart([
        drawn_row("segment", x=50.0, y=30.0, x2=300.0, y2=30.0),
        drawn_row("head", x=205.0, y=30.0, x2=300.0, y2=30.0),
        drawn_row("text", x=150.0, y=60.0, text="classify", size=12.0),
        drawn_row("text", x=170.0, y=62.0, text="extract", size=12.0),
        *(drawn_row("node", x=x, y=30.0, text=name, size=32.0 * 32.0)
          for x, name in ((50.0, "user"), (150.0, "classify"), (300.0, "draft"))),
    ], 80)
    drawn = read_chart(chart)
    [problem] = arrows_through_nodes(drawn)
    assert problem.endswith("runs through node 'classify'")
    assert overlapping_labels(drawn) == ["labels 'classify' and 'extract' overlap"]
    assert misdrawn_heads(drawn) == []


def test_the_checks_catch_a_head_off_its_arrow_or_turned_away_from_its_target():
    def heads(**head) -> list[str]:
        rows = [drawn_row("segment", x=0.0, y=0.0, x2=100.0, y2=0.0),
                drawn_row("segment", x=100.0, y=0.0, x2=100.0, y2=80.0), drawn_row("head", **head)]
        return misdrawn_heads(read_chart(DiagramChart(rows, 100)))

    # On the downward leg, turned toward its end (pointing down); on the first leg, pointing right.
    assert heads(x=100.0, y=50.0, x2=100.0, y2=80.0) == []
    assert heads(x=50.0, y=0.0, x2=100.0, y2=0.0) == []
    [off] = heads(x=60.0, y=20.0, x2=100.0, y2=80.0)
    assert "on no segment" in off
    [backwards] = heads(x=100.0, y=50.0, x2=100.0, y2=0.0)
    assert "turned 270.0°" in backwards
    assert len(heads(x=100.0, y=50.0, x2=101.0, y2=80.0)) == 1  # 1.9° off
    assert len(heads(x=100.0, y=50.0, x2=100.0, y2=50.0)) == 1  # turned toward nothing


def test_the_reader_refuses_an_arrow_whose_segments_do_not_join():
    rows = [drawn_row("segment", x=0.0, y=0.0, x2=100.0, y2=0.0),
            drawn_row("segment", x=101.0, y=0.0, x2=100.0, y2=80.0), drawn_row("head", x=100.0, y=50.0)]
    with pytest.raises(AssertionError, match="does not continue"):
        read_chart(DiagramChart(rows, 100))


def test_a_drawn_label_is_measured_line_by_line_and_markup_is_characters():
    two_lines = label_box("pass 3\ndraft", 12, (0, 0))
    one_line = label_box("pass 3", 12, (0, 0))
    assert two_lines[3] - two_lines[1] == pytest.approx(2 * (one_line[3] - one_line[1]))
    # Recorded markup is one run of the characters drawn: never a line break,
    # and as wide as any other six characters (not as its escaped form).
    literal = label_box("a<br>b", 12, (0, 0))
    assert literal == label_box("a-br-b", 12, (0, 0))
    assert literal[3] - literal[1] == pytest.approx(one_line[3] - one_line[1])


def test_a_decider_no_arrow_from_the_user_reaches_sits_before_its_branch():
    # The reference projection: the user asks the branch, the decider (never
    # reached from the user) chose it. It used to share the branch's column.
    steps = [step("decide", "routes to billing", ("route#1", "billing", "decision-branch", "billing")),
             step("sequential", "asks", (USER, "billing", "next", "asks"))]
    diagram = build_arrow_diagram(steps, ROOT, {ROOT + ("billing",)})
    x = {node["text"]: node["x"] for node in actor_chart(diagram, 0).of_kind("node")}
    assert x["route"] < x["billing"] and x["user"] < x["billing"]

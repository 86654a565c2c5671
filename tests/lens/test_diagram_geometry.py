"""The arrow diagram's geometry: no arrow through a node, no two labels overlapping.

Checked on the drawn figure (its traces, in the pixels the layout works in)
for every corpus recording, both projections, every scope and every step,
at the design width and wider; and on small constructed diagrams that the
straight centre-to-centre drawing got wrong.
"""

from __future__ import annotations

import pytest
from corpus_files import case_names, read_bytes, recording_path
from diagram_geometry import arrows_through_nodes, inside, overlapping_labels, read_figure
from lens_builders import ROOT, step

from lens.arrows import build_arrow_diagram
from lens.figures import actor_figure_dict
from lens.layout import DESIGN_WIDTH, text_box
from lens.run import PROFILES, open_run

USER = "actor:user"
# A chart wider than the design width spreads the columns; text keeps its size.
STRETCHES = (1.0, 1.7)


def problems_in(figure: dict) -> list[str]:
    problems = []
    for stretch in STRETCHES:
        drawn = read_figure(figure, stretch)
        problems += [f"×{stretch}: {p}" for p in arrows_through_nodes(drawn) + overlapping_labels(drawn)]
    left, right = figure["layout"]["xaxis"]["range"]
    if right - left > DESIGN_WIDTH:
        problems.append(f"drawing is {right - left:.0f} px wide, more than {DESIGN_WIDTH}")
    return problems


@pytest.mark.parametrize("case", case_names())
def test_every_step_of_every_scope_draws_clear_arrows_and_labels(case):
    run = open_run(read_bytes(recording_path(case)))
    checked = 0
    for profile in PROFILES:
        scopes = run.scopes(profile)
        for path in scopes.paths():
            scope = scopes.get(path)
            if scope is None or not scope.steps:
                continue
            diagram = run.diagram(profile, path)
            for index in range(len(scope.steps)):
                found = problems_in(actor_figure_dict(diagram, index, title=""))
                assert not found, f"{profile} {path} step {index + 1}: {found[:3]}"
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
    figure = actor_figure_dict(diagram, len(steps) - 1, title="")
    assert arrows_through_nodes(read_figure(figure)) == []
    # ...and it is still one arrow from the last agent to the user.
    drawn = read_figure(figure)
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
        figure = actor_figure_dict(diagram, index, title="")
        assert problems_in(figure) == []
        # Cut to fit, not dropped: each name still starts its label.
        texts = [label for label, _ in read_figure(figure).labels]
        assert all(any(text.startswith(name[:5]) for text in texts) for name in names)


def test_a_fan_of_long_arrow_labels_is_spread_apart():
    branches = [f"reviewers/very-long-branch-name-{n}" for n in range(5)]
    fork = step("fork", "fork (5)", *[(USER, b, "fork-branch", b) for b in branches])
    diagram = build_arrow_diagram([fork], ROOT, set())
    figure = actor_figure_dict(diagram, 0, title="")
    assert problems_in(figure) == []


def test_the_label_estimate_grows_with_text_and_font():
    short, long_ = text_box("ab", 12, (0, 0)), text_box("abcd", 12, (0, 0))
    assert long_[2] - long_[0] == pytest.approx(2 * (short[2] - short[0]))
    bigger = text_box("ab", 24, (0, 0))
    assert bigger[3] - bigger[1] == pytest.approx(2 * (short[3] - short[1]))
    two_lines = text_box("ab<br>abcd", 12, (0, 0))
    assert two_lines[3] - two_lines[1] == pytest.approx(2 * (short[3] - short[1]))


def test_the_checks_catch_an_arrow_through_a_node_and_overlapping_labels():
    # The straight drawing as it was: user → draft centre to centre across the
    # agents between, with two names printed at nearly the same place.
    figure = {"data": [
        {"mode": "lines+markers", "x": [50, 300, None], "y": [30, 30, None]},
        {"mode": "text", "x": [150, 170], "y": [60, 62], "text": ["classify", "extract"],
         "textfont": {"size": 12}},
        {"mode": "markers", "x": [50, 150, 300], "y": [30, 30, 30], "text": ["user", "classify", "draft"],
         "marker": {"size": [32, 32, 32]}},
    ], "layout": {"xaxis": {"range": [0, 350]}}}
    drawn = read_figure(figure)
    [problem] = arrows_through_nodes(drawn)
    assert problem.endswith("runs through node 'classify'")
    assert overlapping_labels(drawn) == ["labels 'classify' and 'extract' overlap"]


def test_a_decider_no_arrow_from_the_user_reaches_sits_before_its_branch():
    # The reference projection: the user asks the branch, the decider (never
    # reached from the user) chose it. It used to share the branch's column.
    steps = [step("decide", "routes to billing", ("route#1", "billing", "decision-branch", "billing")),
             step("sequential", "asks", (USER, "billing", "next", "asks"))]
    diagram = build_arrow_diagram(steps, ROOT, {ROOT + ("billing",)})
    nodes = actor_figure_dict(diagram, 0, title="")["data"][-1]
    x = dict(zip(nodes["text"], nodes["x"]))
    assert x["route"] < x["billing"] and x["user"] < x["billing"]

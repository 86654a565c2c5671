"""What the diagram shows beyond the steps: a decider's untaken branches, a Loop root's passes."""

from __future__ import annotations

from corpus_files import read_bytes, recording_path
from lens_builders import ROOT, step

from lens.arrows import build_arrow_diagram
from lens.diagram_chart import HOVER_FIELDS, LIT, DiagramChart, actor_chart
from lens.run import open_run

USER = "actor:user"
STRUCTURE = {"id": "seed", "name": "Initialize", "type": "stage", "next": {
    "id": "route", "name": "Route", "type": "decider", "hasDecider": True, "children": [
        {"id": "urgent", "name": "urgent", "subflowId": "urgent", "isSubflowRoot": True},
        {"id": "normal", "name": "normal", "subflowId": "normal", "isSubflowRoot": True},
        {"id": "spam", "name": "spam", "subflowId": "spam", "isSubflowRoot": True}]}}


def decision(chosen: str) -> list:
    return [step("decide", f"routes to {chosen}", ("route#1", chosen, "decision-branch", chosen),
                 meta={"kind": "decide", "chosen": chosen}),
            step("sequential", "answers", (chosen, USER, "next", "answers"))]


def hover(node: dict) -> str:
    """A node's tooltip lines, one a line."""
    return "\n".join(node[field] for field in HOVER_FIELDS if node[field])


def nodes_of(chart: DiagramChart) -> dict[str, tuple[float, str]]:
    """Node label → (opacity, hover text)."""
    return {node["text"]: (node["opacity"], hover(node)) for node in chart.of_kind("node")}


def first_lines(chart: DiagramChart) -> list[str]:
    """Each node's label as drawn, its first line only, left to right."""
    nodes = sorted(chart.of_kind("node"), key=lambda node: node["x"])
    return [node["text"].split("\n")[0] for node in nodes]


def test_branches_the_decision_did_not_take_are_faint_and_say_so():
    diagram = build_arrow_diagram(decision("normal"), ROOT, set(), STRUCTURE)
    for index in range(2):
        nodes = nodes_of(actor_chart(diagram, index))
        assert nodes["normal"][0] == 1 and "not taken" not in nodes["normal"][1]
        for branch in ("urgent", "spam"):
            opacity, hover = nodes[branch]
            assert opacity < 1 and "not taken: the decision chose normal" in hover


def test_a_decision_naming_no_known_branch_draws_every_branch_normally():
    diagram = build_arrow_diagram(decision("elsewhere"), ROOT, set(), STRUCTURE)
    nodes = nodes_of(actor_chart(diagram, 0))
    for branch in ("urgent", "normal", "spam"):
        opacity, hover = nodes[branch]
        assert opacity == 1 and "not taken" not in hover


def test_without_a_structure_or_a_decision_no_branch_is_added():
    assert build_arrow_diagram(decision("normal"), ROOT, set()).options == ()
    answers_only = decision("normal")[1:]
    assert build_arrow_diagram(answers_only, ROOT, set(), STRUCTURE).options == ()


def test_the_corpus_conditionals_show_their_untaken_branch_in_both_projections():
    for case, taken, untaken in (("conditional-triage-llmcall", "urgent", "normal"),
                                 ("conditional-routes-to-agent", "billing", "general")):
        run = open_run(read_bytes(recording_path(case)))
        for profile in ("lens", "reference"):
            nodes = nodes_of(actor_chart(run.diagram(profile, ROOT), 0))
            assert nodes[taken][0] == 1, (case, profile)
            assert nodes[untaken][0] < 1 and "not taken" in nodes[untaken][1], (case, profile)


def loop(passes: int) -> list:
    return [step("iteration", f"iter {n}", ("body", "body", "loop-iteration", f"iter {n}"),
                 rid=f"body#{n}", meta={"kind": "iteration", "index": n, "target": "body"})
            for n in range(1, passes + 1)]


def test_a_loop_root_is_drawn_as_its_passes_with_the_current_one_lit():
    outputs = {f"body#{n}": f"draft {n}" for n in range(1, 5)}
    diagram = build_arrow_diagram(loop(4), ROOT, {ROOT + ("body",)},
                                  pass_output=lambda s: outputs[s.runtime_stage_id])
    nodes = sorted(actor_chart(diagram, 2).of_kind("node"), key=lambda node: node["x"])
    labels = [node["text"].split("\n")[0] for node in nodes]
    assert labels == ["pass 1", "pass 2", "pass 3", "pass 4"]
    lit = [label for label, node in zip(labels, nodes) if node["ring"] > 1]
    assert lit == ["pass 3"]
    assert [label for label, node in zip(labels, nodes) if node["stroke"] == LIT] == ["pass 3"]
    # Passes reached show their output under the number; later ones do not yet.
    assert [node["text"] for node in nodes] == ["pass 1\ndraft 1", "pass 2\ndraft 2",
                                                 "pass 3\ndraft 3", "pass 4"]
    assert "output: draft 3" in hover(nodes[2])
    assert "not reached yet" in hover(nodes[3])
    # Every pass drills into the body.
    assert {node["drill"] for node in nodes} == {"__root__/body"}


def test_many_passes_show_the_current_one_its_neighbours_and_how_many_are_left_out():
    diagram = build_arrow_diagram(loop(60), ROOT, set())
    assert first_lines(actor_chart(diagram, 29)) == ["+28 more", "pass 29", "pass 30", "pass 31",
                                                     "+29 more"]
    assert first_lines(actor_chart(diagram, 0)) == ["pass 1", "pass 2", "pass 3", "+57 more"]
    assert first_lines(actor_chart(diagram, 59)) == ["+57 more", "pass 58", "pass 59", "pass 60"]


def test_passes_left_out_are_faint_and_say_which_they_are():
    diagram = build_arrow_diagram(loop(60), ROOT, set())
    nodes = {node["text"]: node for node in actor_chart(diagram, 29).of_kind("node")}
    before, after = nodes["+28 more"], nodes["+29 more"]
    assert before["opacity"] < 1 and after["opacity"] < 1 and nodes["pass 30"]["opacity"] == 1
    assert before["hover0"] == "passes 1–28 not drawn"
    assert after["hover0"] == "passes 32–60 not drawn"


def test_a_loop_pass_output_is_read_from_the_recording():
    run = open_run(read_bytes(recording_path("loop-refine-4-iterations")))
    diagram = run.diagram("lens", ROOT)
    assert diagram.passes is not None and len(diagram.passes.numbers) == 4
    assert all(isinstance(output, str) and output for output in diagram.passes.outputs)

"""What the diagram shows beyond the steps: a decider's untaken branches, a Loop root's passes."""

from __future__ import annotations

from corpus_files import read_bytes, recording_path
from lens_builders import ROOT, step

from lens.arrows import build_arrow_diagram
from lens.figures import actor_figure_dict
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


def nodes_of(figure: dict) -> dict[str, tuple[float, str]]:
    """Node label → (opacity, hover text)."""
    nodes = figure["data"][-1]
    return {text: (opacity, hover) for text, opacity, hover
            in zip(nodes["text"], nodes["marker"]["opacity"], nodes["hovertext"])}


def test_branches_the_decision_did_not_take_are_faint_and_say_so():
    diagram = build_arrow_diagram(decision("normal"), ROOT, set(), STRUCTURE)
    for index in range(2):
        nodes = nodes_of(actor_figure_dict(diagram, index, title=""))
        assert nodes["normal"][0] == 1 and "not taken" not in nodes["normal"][1]
        for branch in ("urgent", "spam"):
            opacity, hover = nodes[branch]
            assert opacity < 1 and "not taken: the decision chose normal" in hover


def test_a_decision_naming_no_known_branch_draws_every_branch_normally():
    diagram = build_arrow_diagram(decision("elsewhere"), ROOT, set(), STRUCTURE)
    nodes = nodes_of(actor_figure_dict(diagram, 0, title=""))
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
            nodes = nodes_of(actor_figure_dict(run.diagram(profile, ROOT), 0, title=""))
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
    figure = actor_figure_dict(diagram, 2, title="")
    nodes = figure["data"][-1]
    labels = [text.split("<br>")[0] for text in nodes["text"]]
    assert labels == ["pass 1", "pass 2", "pass 3", "pass 4"]
    lit = [label for label, width in zip(labels, nodes["marker"]["line"]["width"]) if width > 1]
    assert lit == ["pass 3"]
    assert "output: draft 3" in nodes["hovertext"][2]
    assert "not reached yet" in nodes["hovertext"][3]
    # Every pass drills into the body.
    assert set(nodes["customdata"]) == {"__root__/body"}


def test_many_passes_show_the_current_one_its_neighbours_and_how_many_are_left_out():
    diagram = build_arrow_diagram(loop(60), ROOT, set())
    labels = [t.split("<br>")[0] for t in actor_figure_dict(diagram, 29, title="")["data"][-1]["text"]]
    assert labels == ["+28 more", "pass 29", "pass 30", "pass 31", "+29 more"]
    first = [t.split("<br>")[0] for t in actor_figure_dict(diagram, 0, title="")["data"][-1]["text"]]
    assert first == ["pass 1", "pass 2", "pass 3", "+57 more"]
    last = [t.split("<br>")[0] for t in actor_figure_dict(diagram, 59, title="")["data"][-1]["text"]]
    assert last == ["+57 more", "pass 58", "pass 59", "pass 60"]


def test_a_loop_pass_output_is_read_from_the_recording():
    run = open_run(read_bytes(recording_path("loop-refine-4-iterations")))
    diagram = run.diagram("lens", ROOT)
    assert diagram.passes is not None and len(diagram.passes.numbers) == 4
    assert all(isinstance(output, str) and output for output in diagram.passes.outputs)

"""Which arrows each step lights, and which earlier ones stay faint."""

from __future__ import annotations

from lens_builders import ROOT, step

from lens.arrows import build_arrow_diagram

USER = "actor:user"


def lit_edges(steps, index, scopes=(), scope=ROOT):
    diagram = build_arrow_diagram(steps, scope, set(scopes))
    return [(a.source, a.target, a.label) for a in diagram.lit(index)]


def test_a_react_step_lights_one_arrow_between_user_model_and_tools():
    steps = [
        step("react", "user→llm", (USER, "stage:llm:call-llm#18", "actor-arrow", "user→llm")),
        step("react", "llm→tool", ("stage:llm:call-llm#18", "stage:tool:call-llm#18",
                                   "actor-arrow", "llm→tool")),
        step("react", "tool→llm", ("stage:tool:call-llm#38", "stage:llm:call-llm#38",
                                   "actor-arrow", "tool→llm")),
        step("react", "llm→user", ("stage:llm:call-llm#38", USER, "actor-arrow", "llm→user")),
    ]
    assert lit_edges(steps, 0) == [(USER, "model:call-llm", "user→llm")]
    assert lit_edges(steps, 1) == [("model:call-llm", "tools:call-llm", "llm→tool")]
    # Another call of the same stage is the same model, answering the same tools.
    assert lit_edges(steps, 2) == [("tools:call-llm", "model:call-llm", "tool→llm")]
    assert lit_edges(steps, 3) == [("model:call-llm", USER, "llm→user")]


def test_a_fork_lights_every_branch_at_once():
    fork = step("fork", "fork (3)", *[(USER, b, "fork-branch", b) for b in ("legal", "security", "cost")])
    assert lit_edges([fork], 0) == [(USER, "subflow:legal", "legal"),
                                    (USER, "subflow:security", "security"),
                                    (USER, "subflow:cost", "cost")]


def test_a_merge_lights_every_branch_back_to_the_user():
    merge = step("merge", "merge (2)", ("a", USER, "next", "a"), ("b", USER, "next", "b"))
    assert lit_edges([merge], 0) == [("subflow:a", USER, "a"), ("subflow:b", USER, "b")]


def test_a_decide_step_lights_the_decider_to_the_chosen_branch():
    decide = step("decide", "routes to billing", ("route#1", "billing", "decision-branch", "billing"))
    assert lit_edges([decide], 0, scopes={("__root__", "billing")}) == [
        ("stage:route", "subflow:billing", "billing")]


def test_an_iteration_lights_a_loop_on_its_target():
    iteration = step("iteration", "iter 2", ("body", "body", "loop-iteration", "iter 2"))
    diagram = build_arrow_diagram([iteration], ROOT, set())
    (arrow,) = diagram.lit(0)
    assert arrow.is_loop and arrow.source == "stage:body" and arrow.label == "iter 2"


def test_a_handoff_lights_one_arrow_between_siblings():
    steps = [step("sequential", "asks", (USER, "plan", "next", "asks")),
             step("sequential", "forwards", ("plan", "review", "next", "forwards"))]
    assert lit_edges(steps, 1) == [("subflow:plan", "subflow:review", "forwards")]


def test_earlier_arrows_are_faint_later_ones_are_not_drawn():
    steps = [step("sequential", "asks", (USER, "a", "next", "asks")),
             step("sequential", "forwards", ("a", "b", "next", "forwards")),
             step("sequential", "forwards", ("b", "c", "next", "forwards")),
             step("sequential", "answers", ("c", USER, "next", "answers"))]
    diagram = build_arrow_diagram(steps, ROOT, set())
    assert diagram.faint(0) == []
    assert diagram.faint(2) == [(USER, "subflow:a"), ("subflow:a", "subflow:b")]
    assert ("subflow:c", USER) not in diagram.faint(2)


def test_an_arrow_lit_now_is_not_also_drawn_faint():
    steps = [step("react", "user→llm", (USER, "stage:llm:c#1", "actor-arrow", "user→llm")),
             step("react", "llm→user", ("stage:llm:c#1", USER, "actor-arrow", "llm→user")),
             step("react", "user→llm", (USER, "stage:llm:c#5", "actor-arrow", "user→llm"))]
    diagram = build_arrow_diagram(steps, ROOT, set())
    assert diagram.faint(2) == [("model:c", USER)]


def test_the_actors_are_those_of_the_scope_in_order_of_first_appearance():
    steps = [step("fork", "fork (2)", (USER, "x/a", "fork-branch", "x/a"), (USER, "x/b", "fork-branch", "x/b"))]
    diagram = build_arrow_diagram(steps, ("__root__", "x"), {("__root__", "x", "a")})
    # Inside x, the input comes from the composition around x, not from a person.
    assert [(a.label, a.role, a.drill_path) for a in diagram.actors] == [
        ("from root", "user", None), ("a", "child", ("__root__", "x", "a")), ("b", "child", None)]


def test_one_model_in_a_scope_is_called_model_several_are_told_apart():
    one = [step("react", "user→llm", (USER, "stage:llm:x/sf-llm-call/call-llm#4", "actor-arrow", "user→llm"),
                path=("__root__", "x"))]
    assert [a.label for a in build_arrow_diagram(one, ("__root__", "x"), set()).actors] == [
        "from root", "model"]
    two = [step("react", "user→llm", (USER, "stage:llm:a/call-llm#1", "actor-arrow", "user→llm")),
           step("react", "user→llm", (USER, "stage:llm:b/call-llm#2", "actor-arrow", "user→llm"))]
    assert [a.label for a in build_arrow_diagram(two, ROOT, set()).actors] == [
        "user", "model · a", "model · b"]


def test_a_nested_scope_names_who_sent_its_input():
    steps = [step("react", "user→llm", (USER, "stage:llm:x/y/call-llm#4", "actor-arrow", "user→llm"),
                  path=("__root__", "x", "y"))]
    labels = [a.label for a in build_arrow_diagram(steps, ("__root__", "x", "y"), set()).actors]
    assert labels == ["from x", "model"]
    at_root = [step("react", "user→llm", (USER, "stage:llm:call-llm#4", "actor-arrow", "user→llm"))]
    assert [a.label for a in build_arrow_diagram(at_root, ROOT, set()).actors][0] == "user"

"""Drilling down: children to enter, the breadcrumb back out, and diagram clicks."""

from __future__ import annotations

from lens_ui.stepper import GENERATION, diagram_key
from app_support import caption, diagram_rows, no_exception, node_click


def open_sample(app, name):
    app.query_params["run"] = name
    return app.run()


def button_labels(at, prefix):
    return {b.key: b.label for b in at.button if b.key and b.key.startswith(prefix)}


def test_a_sequence_offers_its_three_children_to_enter(app):
    at = open_sample(app, "nested-sequence-with-parallel")
    assert caption(at) == "step 1 of 4 · asks"  # Sequence of 3: asks, forwards × 2, answers
    # Labels are Markdown-escaped recording text.
    assert list(button_labels(at, "lens.child.").values()) == [
        "▸ step\\-plan", "▸ step\\-reviewers", "▸ step\\-summarise"]


def test_entering_a_child_rescopes_the_slider_and_the_link(app):
    at = open_sample(app, "nested-sequence-with-parallel")
    at.button(key="lens.child.1").click().run()
    no_exception(at)
    assert caption(at) == "step 1 of 2 · fork (3)"
    assert at.query_params["drill"] == "__root__/step-reviewers"
    assert list(button_labels(at, "lens.crumb.").values()) == ["⌂ root", "step\\-reviewers"]
    assert at.button(key="lens.crumb.1").disabled  # the scope you are in
    # One level further: a reviewer is an LLMCall, user → model → user.
    at.button(key="lens.child.0").click().run()
    assert caption(at) == "step 1 of 2 · user→llm"
    assert at.query_params["drill"] == "__root__/step-reviewers/style"


def test_the_breadcrumb_backs_out_and_restores_the_position(app):
    at = open_sample(app, "nested-sequence-with-parallel")
    at.button(key="lens.last").click().run()
    at.button(key="lens.child.1").click().run()
    at.button(key="lens.crumb.0").click().run()
    assert caption(at) == "step 4 of 4 · answers"
    assert at.query_params["drill"] == "__root__"


def test_clicking_a_subflow_node_in_the_diagram_drills_into_it(app):
    at = open_sample(app, "parallel-3-reviewers")
    key = diagram_key(("__root__",), at.session_state[GENERATION])
    assert "__root__/security" in [row["drill"] for row in diagram_rows(at) if row["kind"] == "node"]
    at.session_state[key] = node_click("__root__/security")
    at.run()
    no_exception(at)
    assert at.query_params["drill"] == "__root__/security"
    assert caption(at) == "step 1 of 2 · user→llm"


def test_clicking_a_node_that_is_not_a_subflow_changes_nothing(app):
    at = open_sample(app, "parallel-3-reviewers")
    key = diagram_key(("__root__",), at.session_state[GENERATION])
    at.session_state[key] = node_click("")
    at.run()
    assert at.query_params["drill"] == "__root__"
    assert caption(at) == "step 1 of 2 · fork (3)"

"""The projection switch: lens or reference, each with its own step count, and
the switch keeps the user's place (the step nearest the one on screen)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from app_support import APP, TIMEOUT, caption, expected, no_exception

from lens.run import open_run
from lens_ui.samples import sample_catalog

CASE = "agent-refund-multi-tools-error"


def lens_root_steps(case: str):
    return open_run(sample_catalog()[case].read_bytes()).scopes("lens").root().steps


def reference_position_at(case: str, ts_ms: float) -> int:
    """1-based: the last reference step at the root that happened no later than ``ts_ms``."""
    steps = expected(case)["runSteps"]["replayCoalesced"]["steps"]
    return max(number for number, step in enumerate(steps, 1) if step["tsMs"] <= ts_ms)


def test_opening_builds_only_the_projection_shown_and_labels_the_other_honestly(app):
    from lens_ui.runs import sample_choice, server_store

    store = server_store()
    digest = sample_choice(CASE)[0].digest
    store._runs.pop(digest, None)  # opened afresh, whatever earlier tests built
    at = app.run()
    reference_steps = len(expected(CASE)["runSteps"]["replayCoalesced"]["steps"])
    model_calls = expected(CASE)["counts"]["typedEventsByType"]["agentfootprint.stream.llm_start"]
    switch = at.button_group(key="lens.profile_switch")
    # The reference is not built to count its steps: its pill names it alone.
    assert switch.options == [f"lens · {2 * model_calls} steps", "reference"]
    assert not store._runs[digest].run.has_views("reference")
    # Chosen, it is built, and both pills carry their counts.
    at.button_group(key="lens.profile_switch").set_value("reference").run()
    no_exception(at)
    assert store._runs[digest].run.has_views("reference")
    assert at.button_group(key="lens.profile_switch").options == [
        f"lens · {2 * model_calls} steps", f"reference · {reference_steps} steps"]
    assert at.button_group(key="lens.profile_switch").value == "reference"


def test_switching_to_reference_shows_the_reference_steps(app):
    at = app.run()
    at.button_group(key="lens.profile_switch").set_value("reference").run()
    no_exception(at)
    reference = expected(CASE)["runSteps"]["replayCoalesced"]["steps"]
    number = reference_position_at(CASE, lens_root_steps(CASE)[0].ts_ms)
    assert caption(at) == f"step {number} of {len(reference)} · {reference[number - 1]['label']}"
    assert at.query_params["profile"] == "reference"
    at.button_group(key="lens.profile_switch").set_value("lens").run()
    assert caption(at) == "step 1 of 10 · user→llm"


def test_the_switch_keeps_the_place_not_step_one(app):
    at = app.run()
    at.slider[0].set_value(5).run()
    fifth = lens_root_steps(CASE)[4]
    at.button_group(key="lens.profile_switch").set_value("reference").run()
    number = reference_position_at(CASE, fifth.ts_ms)
    assert number > 1
    assert caption(at).startswith(f"step {number} of 19")
    at.button_group(key="lens.profile_switch").set_value("lens").run()
    assert caption(at).startswith("step 5 of 10")
    at.slider[0].set_value(9).run()
    at.button_group(key="lens.profile_switch").set_value("reference").run()
    assert caption(at).startswith(
        f"step {reference_position_at(CASE, lens_root_steps(CASE)[8].ts_ms)} of 19")


def test_a_reference_link_opens_the_reference_projection(app):
    app.query_params.update({"run": "conditional-routes-to-agent", "profile": "reference",
                             "step": "3"})
    at = app.run()
    reference = expected("conditional-routes-to-agent")["runSteps"]["replayCoalesced"]["steps"]
    assert caption(at) == f"step 3 of {len(reference)} · {reference[2]['label']}"


def test_a_scope_the_other_projection_lacks_falls_back_to_its_root_and_says_so(app):
    case = "nested-parallel-of-agents"
    reference_drill = {"/".join(d["path"]): d["steps"]
                       for d in expected(case)["runSteps"]["replayCoalesced"]["drill"]}
    assert reference_drill["__root__/capacity"] == []  # the reference shows nothing there
    app.query_params.update({"run": case, "drill": "__root__/capacity"})
    at = app.run()
    assert caption(at) == "step 1 of 4 · user→llm"  # an Agent with one tool call, under lens
    first = open_run(sample_catalog()[case].read_bytes()).scopes("lens") \
        .get(("__root__", "capacity")).steps[0]
    at.button_group(key="lens.profile_switch").set_value("reference").run()
    no_exception(at)
    assert at.query_params["drill"] == "__root__"
    assert any("no steps in the chosen projection" in i.value for i in at.info)
    root_steps = expected(case)["runSteps"]["replayCoalesced"]["steps"]
    number = reference_position_at(case, first.ts_ms)
    assert caption(at) == f"step {number} of {len(root_steps)} · {root_steps[number - 1]['label']}"


def test_a_switch_that_reports_no_choice_keeps_the_profile_shown(app):
    # Seen in the browser: after another run opens, the control is re-created
    # with new labels and its change callback can fire with no value.
    at = app.run()
    at.button_group(key="lens.profile_switch").set_value("reference").run()
    shown = caption(at)
    at.button_group(key="lens.profile_switch").set_value(None).run()
    no_exception(at)
    assert caption(at) == shown and " of 19 · " in shown
    assert at.button_group(key="lens.profile_switch").value == "reference"
    reopened = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    reopened.query_params.update(at.query_params)
    reopened.run()
    assert caption(reopened) == caption(at)

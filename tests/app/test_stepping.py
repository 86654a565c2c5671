"""The slider, the step buttons, the link, and what a move does not redo."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

import lens.run
from app_support import APP, TIMEOUT, caption, no_exception


def slider(at):
    sliders = at.slider
    assert len(sliders) == 1
    return sliders[0]


def test_next_and_previous_buttons_move_one_step(app):
    at = app.run()
    at.button(key="lens.next").click().run()
    assert caption(at) == "step 2 of 10 · llm→tool · lookup_order"
    at.button(key="lens.next").click().run()
    at.button(key="lens.previous").click().run()
    assert caption(at).startswith("step 2 of 10")
    assert slider(at).value == 2


def test_first_and_last_jump_to_the_ends_and_disable_themselves(app):
    at = app.run()
    assert at.button(key="lens.first").disabled and at.button(key="lens.previous").disabled
    at.button(key="lens.last").click().run()
    assert caption(at) == "step 10 of 10 · llm→user"
    assert at.button(key="lens.next").disabled and at.button(key="lens.last").disabled
    at.button(key="lens.first").click().run()
    assert caption(at) == "step 1 of 10 · user→llm"


def test_the_slider_moves_the_step_and_the_buttons_follow_it(app):
    at = app.run()
    slider(at).set_value(7).run()
    # The refund agent's fourth model call hears back from the failing issue_refund.
    assert caption(at) == "step 7 of 10 · tool→llm · issue_refund"
    at.button(key="lens.next").click().run()
    assert slider(at).value == 8


def test_the_step_buttons_offer_keyboard_shortcuts(app):
    at = app.run()
    assert at.button(key="lens.next").proto.shortcut
    assert at.button(key="lens.previous").proto.shortcut
    assert at.button(key="lens.next").proto.shortcut != at.button(key="lens.previous").proto.shortcut


def test_the_position_is_written_to_the_link(app):
    at = app.run()
    slider(at).set_value(4).run()
    assert at.query_params == {"run": "agent-refund-multi-tools-error", "step": "4",
                               "drill": "__root__", "profile": "lens"}


def test_a_link_opens_the_same_view_and_round_trips(app):
    link = {"run": "nested-sequence-with-parallel", "step": "2",
            "drill": "__root__/step-reviewers", "profile": "lens"}
    app.query_params.update(link)
    at = app.run()
    no_exception(at)
    assert "nested-sequence-with-parallel" in [t.value for t in at.text]
    # A Parallel of 3 seen from inside: fork (3), then merge (3).
    assert caption(at) == "step 2 of 2 · merge (3)"
    assert at.query_params == link
    reopened = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    reopened.query_params.update(at.query_params)
    reopened.run()
    assert caption(reopened) == caption(at)


def test_a_link_to_an_unknown_run_or_scope_is_refused_plainly(app):
    app.query_params.update({"run": "../../etc/passwd", "drill": "__root__/nowhere",
                             "step": "x"})
    at = app.run()
    no_exception(at)
    notes = " ".join(i.value for i in at.info)
    assert "not one of the samples" in notes
    assert "not a scope of this run" in notes
    assert "step is not a whole number" in notes
    assert caption(at).startswith("step 1 of ")
    assert at.query_params["run"] == "agent-refund-multi-tools-error"


def test_a_step_beyond_the_scope_shows_the_last_step_and_says_so(app):
    app.query_params.update({"run": "parallel-3-reviewers", "step": "9"})
    at = app.run()
    assert caption(at) == "step 2 of 2 · merge (3)"
    assert any("beyond this scope's 2 steps" in i.value for i in at.info)


def test_moving_the_slider_neither_reparses_nor_reprojects(app, monkeypatch):
    import lens_ui.runs  # where the app reads a file (every kind, through the one loader)

    calls = {"load": 0, "project": 0}
    real_load, real_project = lens_ui.runs.load_file, lens.run.build_projection

    def counting_load(data, **options):
        calls["load"] += 1
        return real_load(data, **options)

    def counting_project(recording, profile):
        calls["project"] += 1
        return real_project(recording, profile)

    monkeypatch.setattr(lens_ui.runs, "load_file", counting_load)
    monkeypatch.setattr(lens.run, "build_projection", counting_project)
    at = app.run()
    for value in (3, 6, 9):
        slider(at).set_value(value).run()
    at.button(key="lens.previous").click().run()
    assert caption(at).startswith("step 8 of 10")
    # One parse and one projection: the lens one, shown; the reference is not
    # built until it is chosen.
    assert calls == {"load": 1, "project": 1}

"""The run page's first screen: a one-line run bar with the details in a
popover, and the step's plain-words headline under the step label."""

from __future__ import annotations

from app_support import caption, no_exception

from lens.plain_words import step_sentence
from lens.run import open_run
from lens_ui.header import RUN_DETAILS
from lens_ui.samples import SAMPLE_DIR
from lens_ui.session import BACKTRACK_TAB, STEPS_TAB, TAB

REFUND = "agent-refund-multi-tools-error"


def refund_run():
    return open_run(next(SAMPLE_DIR.glob(f"{REFUND}.json*")).read_bytes())


def test_each_step_shows_its_sentence_under_the_label(app):
    run = refund_run()
    steps = run.root_steps("lens")
    app.query_params.update({"run": REFUND})
    at = app.run()
    for number, step in enumerate(steps, start=1):
        if number > 1:
            at.button(key="lens.next").click().run()
        no_exception(at)
        assert caption(at).startswith(f"step {number} of {len(steps)}")
        assert step_sentence(step, run.evidence).text in [t.value for t in at.text]


def test_the_failing_tool_and_its_error_are_in_a_headline(app):
    failed = [t for t in refund_run().evidence.tool_calls if t.failed]
    assert failed
    app.query_params.update({"run": REFUND})
    at = app.run()
    headlines = []
    for _ in range(12):
        headlines += [t.value for t in at.text if "failed" in t.value]
        if at.button(key="lens.next").disabled:
            break
        at.button(key="lens.next").click().run()
    assert any(f"“{failed[0].name}”" in h and str(failed[0].result)[:40] in h
               for h in headlines), headlines


def test_the_run_bar_names_the_run_and_its_health_with_details_in_a_popover(app):
    at = app.run()
    no_exception(at)
    assert any(t.value == REFUND for t in at.text)
    # st.badge is drawn as a Markdown badge directive written by the app.
    # Two badges, each saying what it is about: how the run ended, and whether
    # the file is whole.
    badges = [m.value for m in at.markdown if "badge[" in m.value]
    assert any("Run: answered" in b for b in badges) and any("File: complete, no gaps" in b
                                                             for b in badges)
    # The details (run facts, health, figures) are in the popover, one click away,
    # and drawn only while it is open.
    popovers = at.get("popover")
    assert sorted(p.proto.popover.label for p in popovers) == ["Run details", "Share this run"]
    assert not at.metric
    at.session_state[RUN_DETAILS] = True
    at.run()
    no_exception(at)
    assert any(m.label == "Model calls" for m in at.metric)


def test_the_view_switch_shows_one_view_and_keeps_it_when_cleared(app):
    app.query_params.update({"run": REFUND})
    at = app.run()
    no_exception(at)
    assert at.session_state[TAB] == STEPS_TAB
    assert caption(at).startswith("step 1 of ")
    at.session_state[TAB] = BACKTRACK_TAB
    at.run()
    no_exception(at)
    assert "Backtrack" in [h.value for h in at.subheader]
    assert not [t.value for t in at.text if t.value.startswith("step ")]  # Steps is not built
    # Clicking the chosen view again sends "none chosen": the view shown stays.
    at.session_state[TAB] = None
    at.run()
    no_exception(at)
    assert at.session_state[TAB] == BACKTRACK_TAB
    assert "Backtrack" in [h.value for h in at.subheader]

"""The step detail leads with what explains the step: metadata waits behind a
toggle, the Skills slot reads as a table, the headline keeps tool arguments."""

from __future__ import annotations

from app_support import family_upload, no_exception, open_detail_pane, open_served_context
from lens_ui.served_context import SERVED_FACTS_KEY
from lens_ui.step_panel import STAGE_FACTS, THIS_STEP


def lines(at) -> list[str]:
    return [line for t in at.text for line in t.value.splitlines()]


def test_the_served_contexts_call_facts_wait_behind_a_toggle_after_the_slots(app):
    at = open_served_context(family_upload(app, "billing-graph-declared-edge-wins"))
    assert not any(line.startswith("Model: ") for line in lines(at))
    assert at.toggle(key=SERVED_FACTS_KEY).value is False
    at.toggle(key=SERVED_FACTS_KEY).set_value(True).run()
    no_exception(at)
    assert "Model: gpt-4.1-mini" in lines(at)


def test_this_steps_stage_facts_wait_behind_a_toggle(app):
    at = open_detail_pane(family_upload(app, "travel-desk-circuit-breaker"), THIS_STEP)
    assert not any(line.startswith("stage: ") for line in lines(at))
    at.toggle(key=STAGE_FACTS).set_value(True).run()
    no_exception(at)
    assert any(line.startswith("stage: ") for line in lines(at))


def test_the_headline_names_every_argument_of_a_three_argument_tool_call(app):
    at = family_upload(app, "travel-desk-circuit-breaker")
    at.button(key="lens.next").click().run()
    no_exception(at)
    [headline] = [t.value for t in at.text if t.value.startswith("The model asked for")]
    assert "“date” = “2026-05-14”" in headline


def test_the_skills_slot_is_a_table_of_skills_not_json(app):
    at = open_served_context(family_upload(app, "billing-graph-declared-edge-wins"),
                             "Skills, evictions, pressure")
    [skills] = [d.value for d in at.dataframe if "skill" in d.value.columns]
    assert list(skills["skill"]) == ["intake", "payment-methods", "renewals"]
    assert list(skills["status"]) == ["active", "not active", "not active"]
    assert not any("activeIds" in c.value or c.value.startswith("active: [") for c in at.code)
    assert ("The skill graph's cursor moved to intake by entry; reachable next: "
            "payment-methods, renewals.") in lines(at)

"""The step where the framework refused or halted something says so first, in
the event's own words; a step where nothing went wrong says nothing of it."""

from __future__ import annotations

from app_support import caption, family_upload, no_exception, open_detail_pane
from lens_ui.step_panel import THIS_STEP

SAID = "What went wrong here"


def _upload(app, case: str):
    return open_detail_pane(family_upload(app, case), THIS_STEP)


def _said(at) -> list[str]:
    """The lines of the step detail's "what went wrong here" block, if drawn."""
    if not any(c.value.startswith(SAID) for c in at.caption):
        return []
    return [line for t in at.text for line in t.value.splitlines() if line[:1] in "✖⚠"]


def test_the_step_that_asked_for_the_halted_tool_says_the_halt_in_its_words(app):
    at = _upload(app, "payments-permission-halt")
    assert _said(at) == []  # step 1: the user's message, nothing refused yet
    seen = []
    for _ in range(12):
        if "send_email" in caption(at):
            break
        at.button(key="lens.next").click().run()
        no_exception(at)
        seen.append(caption(at))
    assert "send_email" in caption(at), seen
    said = " ".join(_said(at))
    # The halt and its rule, in words, with the recording's own reason quoted.
    assert "stopped the run at send_email" in said and "permission.halt" not in said
    assert "security:exfiltration" in said

"""A run paused for a person and resumed, in the app: the first screen's top
cause leads to a step of the part before the pause (the steps hold every
part), that step's Where from? says the commit log, the resumed part's, does
not hold it, and the last step (after the resume) says nothing of the kind."""

from __future__ import annotations

import argparse

from app_support import caption, family_upload, no_exception
from family_files import family_names, family_recording
from lens.lineage_view import BEFORE_THE_RESUME_NOTE
from lens_cli import causes_command
from lens_ui.where_from_panel import WHERE_FROM_LABEL
from recorders.evidence import resumed_run_ids
from recorders.loading import load_path
from recorders.profiles import DEFAULT_PROFILE


def _case_with_a_top_cause_before_the_pause() -> tuple[str, int]:
    """A resumed family run whose first cause rests on an event before the
    pause, and that cause's step (1-based)."""
    for case in family_names():
        recording = load_path(str(family_recording(case)))
        resumed = resumed_run_ids(recording.typed_events)
        if not resumed:
            continue
        causes = causes_command.run(argparse.Namespace(file=str(family_recording(case)),
                                                       profile=DEFAULT_PROFILE))
        first = causes[0] if causes else None
        if first is None or not first["events"]:
            continue
        meta = recording.typed_events[first["events"][0]].get("meta") or {}
        if meta.get("runId") not in resumed and meta.get("runId") != "consumer-scope":
            assert first["step"] is not None, (case, first.get("no_step"))
            return case, first["step"]["index"] + 1
    raise AssertionError("no resumed family run has a first cause before its pause")


def _notes(at) -> list[str]:
    return [c.value for c in at.caption if c.value == BEFORE_THE_RESUME_NOTE]


def test_the_top_cause_leads_to_a_step_before_the_pause_whose_where_from_says_so(app):
    case, step = _case_with_a_top_cause_before_the_pause()
    at = family_upload(app, case)
    [button] = [b for b in at.button if b.label.startswith(f"step {step} of ")][:1]
    # The run bar no longer says the steps show only the part after the resume.
    assert not [c for c in at.caption if "only the part after the resume" in c.value]
    button.click().run()
    no_exception(at)
    assert caption(at).startswith(f"step {step} of ")
    [toggle] = [t for t in at.toggle if t.label == WHERE_FROM_LABEL]
    toggle.set_value(True).run()
    no_exception(at)
    assert _notes(at) == [BEFORE_THE_RESUME_NOTE]
    at.button(key="lens.last").click().run()
    no_exception(at)
    assert _notes(at) == []

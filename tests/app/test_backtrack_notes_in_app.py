"""The Backtrack view says, once and as text above the likely causes, the run's
integrity ledger and what a composition's file cannot hold."""

from __future__ import annotations

from app_support import no_exception, open_upload
from corpus_files import read_bytes
from family_files import family_recording
from lens_ui.stepper import BACKTRACK_TAB, TAB


def backtrack_texts(app, case: str) -> list[str]:
    at = open_upload(app, read_bytes(family_recording(case)), f"{case}.json")
    at.session_state[TAB] = BACKTRACK_TAB
    at.run()
    no_exception(at)
    return [t.value for t in at.text]


def test_the_integrity_ledger_is_one_line_above_the_causes(app):
    lines = backtrack_texts(app, "san-port-unsupported-claim-dev-posture")
    ledger = [line for line in lines if line.startswith("Integrity checks")]
    assert len(ledger) == 1
    assert "unsupported-claim found 1" in ledger[0]


def test_a_parallel_says_once_which_families_it_cannot_hold(app):
    lines = backtrack_texts(app, "vendor-due-diligence-parallel")
    notices = [line for line in lines if "not recorded inside it" in line]
    assert len(notices) == 1
    assert "permission" in notices[0] and "credential" in notices[0]

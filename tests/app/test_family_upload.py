"""A family recording whose last events carry no meta opens in the app like any other run."""

from __future__ import annotations

from app_support import open_run_details, open_upload, walk_the_pages
from corpus_files import read_bytes
from family_files import family_recording

CASE = "returns-bot-canned-after-provider-outage"


def test_the_canned_answer_recording_opens_and_every_page_shows_it(app):
    # Its output-fallback pair is delivered after the run with no meta: the
    # loader refused the whole file before.
    at = open_upload(app, read_bytes(family_recording(CASE)), "returns-bot.json")
    assert any(t.value.startswith("⬆ returns-bot.json · ") for t in at.text)  # not refused
    walk_the_pages(at)


def test_the_run_details_say_which_events_carry_no_meta(app):
    at = open_run_details(open_upload(app, read_bytes(family_recording(CASE)), "returns-bot.json"))
    shown = " ".join(t.value for t in at.text)
    assert "2 typed events carry no meta" in shown
    assert "resilience.output_canned_used ×1" in shown

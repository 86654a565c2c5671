"""Per-run view state: what was searched and filtered for one run is dropped
when another run is opened, and kept while the same run stays open."""

from __future__ import annotations

from app_support import corpus_plain_bytes, no_exception
from lens_ui.session import SEARCH_TAB, TAB

FIRST = corpus_plain_bytes("llmcall-single")
SECOND = corpus_plain_bytes("conditional-triage-llmcall")
QUERY, ERRORS = "lens.search-query", "lens.search-errors"


def upload(at, name: str, data: bytes):
    at.file_uploader(key="lens.uploader").set_value((name, data, "application/json")).run()
    no_exception(at)
    return at


def searched(app, data: bytes):
    """A run uploaded, its Search tab open with a query typed and "errors only" ticked."""
    at = upload(app.run(), "first.json", data)
    at.session_state[TAB] = SEARCH_TAB
    at.run()
    at.text_input(key=QUERY).input("refund").run()
    at.checkbox(key=ERRORS).check().run()
    no_exception(at)
    return at


def test_a_new_upload_clears_the_search_and_errors_only_that_the_same_run_keeps(app):
    at = searched(app, FIRST)
    at.run()
    assert at.text_input(key=QUERY).value == "refund"
    at = upload(at, "first-again.json", FIRST)  # the same bytes: the same run
    assert at.text_input(key=QUERY).value == "refund"
    assert at.checkbox(key=ERRORS).value is True
    at = upload(at, "second.json", SECOND)
    assert at.text_input(key=QUERY).value == ""
    assert at.checkbox(key=ERRORS).value is False


def test_picking_another_run_in_the_runs_list_clears_the_raw_events_filters(app):
    at = upload(app.run(), "first.json", FIRST)
    at.switch_page("lens_ui/app/page_scripts/raw_events.py").run()
    at.text_input(key="lens.events.typed.text").input("llm").run()
    no_exception(at)
    sample = next(o for o in at.selectbox(key="lens.run_select").options
                  if not o.startswith("⬆ "))
    at.selectbox(key="lens.run_select").set_value(sample).run()
    no_exception(at)
    assert at.text_input(key="lens.events.typed.text").value == ""

"""Extreme numbers through the whole page path, Streamlit's tables included.

An uploaded file with one number made extreme (past float range, past
int64, negative, or a NaN/Infinity spelling) is either refused with one
error line, or every step of the run page (served context open) and the
raw events page render with no exception and no panel failure.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from app_support import MAX_STEPS, caption, no_exception, no_panel_failed, open_run_details, \
    open_upload, walk_the_pages
from extreme_numbers import dumps_with_raw, edit_at, extreme_recording, literal_is_refused, \
    raw_placeholder, seed_doc
from fuzz.fuzz_support import FUZZ

pytestmark = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")


@settings(max_examples=5, **FUZZ)
@given(case=extreme_recording())
def test_an_extreme_number_is_shown_or_refused_on_every_page(case):
    from streamlit.testing.v1 import AppTest

    from app_support import APP, TIMEOUT

    data, _, _, literal = case
    at = open_upload(AppTest.from_file(str(APP), default_timeout=TIMEOUT), data.value,
                     "extreme.json")
    refusals = [e.value for e in at.error if e.value.startswith("Could not open")]
    if refusals:  # one line; the run on screen (a sample) stays usable
        assert len(refusals) == 1 and "\n" not in refusals[0].strip()
    else:
        assert not literal_is_refused(literal)
    walk_the_pages(at)


@pytest.mark.parametrize("field,literal", [
    (("recording", "events"), str(2 ** 64 + 7)),   # wallClockMs of every typed event
    (("run", "droppedEvents"), "1" + "0" * 400),
])
def test_huge_numbers_in_times_and_counts_render_as_recorded(app, field, literal):
    case = "crash-provider-error-envelope"
    doc = seed_doc(case)
    if field[0] == "run":
        doc = edit_at(doc, field, lambda _: raw_placeholder(0))
    else:
        for i, event in enumerate(doc["recording"]["events"]):
            doc = edit_at(doc, ("recording", "events", i, "meta", "wallClockMs"),
                          lambda _: raw_placeholder(0))
    at = open_upload(app, dumps_with_raw(doc, [literal]), "extreme.json")
    walk_the_pages(at)
    if field[0] == "run":
        at.switch_page("lens_ui/app/page_scripts/run.py").run()
        open_run_details(at)
        shown = "\n".join(t.value for t in at.text)
        assert literal in shown  # the health line names the count in full
    else:
        typed = at.dataframe[0].value
        assert set(typed["ts"]) == {literal}  # the recording's digits, not a rounded float


def test_served_context_tables_show_positions_and_durations_past_int64_as_recorded(app):
    """Every injected piece's position and every tool's duration past 2**64: the
    pieces and tool tables show the recording's digits on the steps that show them."""
    from app_support import open_served_context

    huge = str(2 ** 64 + 7)
    case = "crash-provider-error-envelope"
    doc = seed_doc(case)
    edits = []
    for i, event in enumerate(doc["recording"]["events"]):
        payload = event.get("payload")
        if isinstance(payload, dict) and "position" in payload:
            edits.append(("recording", "events", i, "payload", "position"))
        if event["type"] == "agentfootprint.stream.tool_end":
            edits.append(("recording", "events", i, "payload", "durationMs"))
    for path in edits:
        doc = edit_at(doc, path, lambda _: raw_placeholder(0))
    at = open_upload(app, dumps_with_raw(doc, [huge]), "extreme.json")
    no_exception(at)
    seen: dict[str, set] = {"#": set(), "ms": set()}
    total = int(caption(at).split(" of ")[1].split(" ")[0])
    for step in range(min(total, MAX_STEPS)):
        if step:
            at.button(key="lens.next").click().run()
        for tab in ("Messages", "Output and tool calls"):
            at = open_served_context(at, tab)
            no_panel_failed(at)
            for frame in (d.value for d in at.dataframe):
                for column in seen:
                    if column in frame.columns:
                        seen[column] |= set(frame[column])
    assert huge in seen["#"] and huge in seen["ms"], seen

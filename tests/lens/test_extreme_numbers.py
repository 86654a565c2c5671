"""Any JSON number in any numeric field: a shown value or one RecordingError.

Integers past float range or int64, negatives and float extremes go through
the loader and every view the pages compute; NaN and Infinity spellings are
refused by the loader with its one error type.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from extreme_numbers import (exercise_views, extreme_recording, literal_is_refused, numeric_fields,
                             seed_doc, dumps_with_raw, edit_at, raw_placeholder)
from fuzz.fuzz_support import FUZZ, SEED_CASES
from recorders.errors import RecordingError
from recorders.loading import load_recording

pytestmark = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")


@settings(max_examples=60, **FUZZ)
@given(case=extreme_recording())
def test_an_extreme_number_anywhere_is_shown_or_refused_with_one_error_type(case):
    data, _, _, literal = case
    run = exercise_views(data.value)
    if literal_is_refused(literal):
        assert run is None


def _with(case: str, path: tuple, literal: str) -> bytes:
    return dumps_with_raw(edit_at(seed_doc(case), path, lambda _: raw_placeholder(0)), [literal])


SWEEP_LITERALS = ("1" + "0" * 400, str(2 ** 63 + 1), "-3")


def test_every_numeric_field_of_every_event_type_takes_an_extreme_integer():
    """Deterministic sweep over one envelope run's fields (every event type it
    has, the run section included), the literals taking turns."""
    case = "crash-provider-error-envelope"
    for n, path in enumerate(numeric_fields(case)):
        exercise_views(_with(case, path, SWEEP_LITERALS[n % len(SWEEP_LITERALS)]))


@pytest.mark.parametrize("field", ["droppedEvents", "firstRetainedEventIndex"])
@pytest.mark.parametrize("literal", ["1" + "0" * 400, "9" * 4300])
def test_a_huge_envelope_count_is_named_in_the_gaps_in_full(field, literal):
    case = next(c for c in SEED_CASES if "run" in seed_doc(c))
    other = "firstRetainedEventIndex" if field == "droppedEvents" else "droppedEvents"
    doc = edit_at(seed_doc(case), ("run", other), lambda _: 0)
    data = dumps_with_raw(edit_at(doc, ("run", field), lambda _: raw_placeholder(0)), [literal])
    recording = load_recording(data)
    assert [g for g in recording.gaps if g.code == "dropped" and literal in g.message]


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_nan_and_infinity_spellings_are_refused_in_any_field(literal):
    for path in numeric_fields("agent-no-tools")[:5]:
        with pytest.raises(RecordingError):
            load_recording(_with("agent-no-tools", path, literal))


# ─── The health line names impossible durations ─────────────────────────

TIMED = "crash-provider-error-envelope"


def _edited(edits: list[tuple[tuple, str]]) -> bytes:
    doc = seed_doc(TIMED)
    for n, (path, _) in enumerate(edits):
        doc = edit_at(doc, path, lambda _, n=n: raw_placeholder(n))
    return dumps_with_raw(doc, [literal for _, literal in edits])


def _first_event(kind: str) -> int:
    events = seed_doc(TIMED)["recording"]["events"]
    return next(i for i, e in enumerate(events) if e["type"] == kind)


def _boundary(kind: str) -> tuple:
    recorders = seed_doc(TIMED)["recording"]["snapshot"]["recorders"]
    data = recorders[0]["data"]
    index = max(i for i, e in enumerate(data) if e["type"] == kind)
    return ("recording", "snapshot", "recorders", 0, "data", index, "ts")


def _notes(data: bytes) -> list[str]:
    from lens.run import open_run
    from lens.summary import timing_notes

    run = open_run(data)
    return timing_notes(run.evidence, run.recording.run_info)


def test_a_recording_with_sound_times_has_no_timing_notes():
    assert _notes(_edited([])) == []


def test_a_negative_recorded_duration_is_named():
    llm_end = _first_event("agentfootprint.stream.llm_end")
    notes = _notes(_edited([(("recording", "events", llm_end, "payload", "durationMs"), "-5")]))
    assert len(notes) == 1 and "1 model call has a duration" in notes[0] and "negative" in notes[0]
    assert "−5 ms" in notes[0]


def test_a_duration_past_float_range_is_named_with_its_digits():
    tool_end = _first_event("agentfootprint.stream.tool_end")
    huge = "1" + "0" * 400
    notes = _notes(_edited([(("recording", "events", tool_end, "payload", "durationMs"), huge)]))
    assert len(notes) == 1 and "1 tool call has a duration" in notes[0] and "beyond float range" in notes[0]
    assert huge in notes[0]


def test_an_infinite_wall_clock_span_from_times_at_float_range_is_named():
    start, end = _first_event("agentfootprint.stream.llm_start"), \
        _first_event("agentfootprint.stream.llm_end")
    notes = _notes(_edited([(("recording", "events", start, "meta", "wallClockMs"),
                             "-1.7976931348623157e308"),
                            (("recording", "events", end, "meta", "wallClockMs"),
                             "1.7976931348623157e308")]))
    assert any("1 model call has a duration" in n and "not finite" in n and "inf ms" in n for n in notes)


def test_a_run_that_ends_before_it_starts_is_named():
    notes = _notes(_edited([(_boundary("run.exit"), "5")]))
    assert any(n.startswith("the run's duration is negative") for n in notes)

"""A cause's "The event says ..." tells nested values in words, never as JSON."""

from __future__ import annotations

import json

import pytest

from corpus_files import case_names, recording_path
from family_files import family_names, family_recording
from lens.evidence.causes import likely_causes
from lens.run import OpenRun
from lens.scopes import ROOT
from lens.wording import value_words
from recorders.loading import load_path

ALL_FILES = ([family_recording(name) for name in family_names()]
             + [recording_path(name) for name in case_names()])


def test_a_procedure_step_reads_as_its_name_place_and_note():
    step = {"index": 3, "total": 6, "tool": "verify_identity",
            "note": "verify the caller owns the card"}
    assert value_words(step) == "verify_identity, 3 of 6 (verify the caller owns the card)"


def test_small_values_read_as_words():
    assert value_words(True) == "yes" and value_words(False) == "no"
    assert value_words(["limit"]) == "limit"
    assert value_words([1, 2, 3, 4, 5, 6]) == "1, 2, 3, 4 and 2 more"
    assert value_words(175773) == "175,773"
    assert value_words({"pattern": "US SSN", "occurrences": 1}) == "pattern US SSN, occurrences 1"


def test_objects_of_a_list_and_nested_objects_are_set_apart():
    said = value_words([{"path": "date", "got": "missing"}, {"path": "hours", "got": "text"}])
    assert said == "(path date, got missing) and (path hours, got text)"
    assert value_words({"subject": {"kind": "entity", "id": "fc1/3"}, "value": "down"}) == \
        "subject (fc1/3, kind entity), value down"


def test_deep_values_are_counted_not_dumped():
    deep = {"a": {"b": {"c": {"d": 1, "e": 2}}}}
    said = value_words(deep)
    assert "{" not in said and "2 fields" in said


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.parent.name)
def test_no_cause_says_a_recorded_object_as_json(path):
    run = OpenRun(load_path(str(path)))
    by_position = {f.event_index: f for f in run.evidence.findings}
    for cause in likely_causes(run.evidence, run.step_map("lens", ROOT), gaps=run.recording.gaps):
        for position in cause.events:
            finding = by_position.get(position)
            if finding is None:
                continue
            for _, value in finding.explained:
                if isinstance(value, (dict, list)) and value:
                    assert json.dumps(value, ensure_ascii=False)[:12] not in cause.why

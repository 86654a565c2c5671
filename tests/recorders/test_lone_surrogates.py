"""Half of a UTF-16 surrogate pair in a recording (what ``JSON.stringify``
writes for an emoji cut at a length limit) loads with U+FFFD in its place and
a gap that says so, through either parser. The pages showing such a run:
``tests/app/test_lone_surrogates_in_app.py``."""

from __future__ import annotations

import dataclasses
import json

import pytest

from corpus_files import read_bytes, recording_path
from lone_halves import CASE, poisoned_bytes
from recorders.loading import load_recording
from recorders.surrogates import GAP_CODE, LONE_SURROGATE, REPLACEMENT



@pytest.fixture(scope="module")
def poisoned() -> bytes:
    return poisoned_bytes(json.loads(read_bytes(recording_path(CASE))))


def _texts(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        for name, item in value.items():
            yield name
            yield from _texts(item)


def test_no_lone_half_survives_the_load_and_the_gap_counts_the_texts(poisoned):
    recording = load_recording(poisoned)
    texts = list(_texts(recording.typed_events))
    assert not [t for t in texts if LONE_SURROGATE.search(t)]
    mended = sum(1 for t in texts if t.endswith(REPLACEMENT))
    [gap] = [g for g in recording.gaps if g.code == GAP_CODE]
    assert mended > 0 and f"{mended:,} texts" in gap.message


def test_both_parsers_load_the_same_recording(poisoned):
    fast, plain = load_recording(poisoned), load_recording(poisoned, fast=False)
    assert dataclasses.asdict(fast) == dataclasses.asdict(plain)


def test_a_whole_pair_and_an_ordinary_file_are_left_alone():
    document = json.loads(read_bytes(recording_path(CASE)))
    assert not [g for g in load_recording(json.dumps(document).encode()).gaps
                if g.code == GAP_CODE]
    prompt_event = next(e for e in document["events"] if "payload" in e)
    prompt_event["payload"] = {"text": "@@pair@@"}
    data = json.dumps(document).replace("@@pair@@", "\\ud83d\\ude00 ok").encode()
    recording = load_recording(data)
    assert not [g for g in recording.gaps if g.code == GAP_CODE]
    assert "\U0001F600 ok" in list(_texts(recording.typed_events))

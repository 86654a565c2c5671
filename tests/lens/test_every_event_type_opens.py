"""Every family recording, and an event of every one of the 107 types, opens and is shown.

"Shown" is everything the app builds of a run (``every_view.show_everywhere``):
both profiles' steps with their detail, diagram and served context, the causes,
search, timeline, the raw events page, Compare and the archive's rows. What each
view says is tested where the view is; here, that none of them fails.
"""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest

from corpus_files import read_bytes
from every_view import show_everywhere
from family_files import family_files, family_recording
from recorders import catalogue
from recorders.catalogue import FLAG, LIST, NUMBER, RECORD, TEXT, EventType
from recorders.errors import RecordingError
from recorders.loading import load_path, load_recording

# An agent with tools, progress reports and a refused call: a run with most
# of what a new event can land beside.
HOST_CASE = "field-ops-args-invalid-progress"
_NEEDS_META = frozenset({catalogue.LLM_START, catalogue.LLM_END})  # they become steps


@pytest.mark.parametrize("path", family_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_family_recording_opens_and_is_shown(path):
    recording = load_path(path)
    events = json.loads(read_bytes(path))
    typed = (events["recording"] if "recording" in events else events)["events"]
    assert recording.typed_counts == dict(Counter(e["type"] for e in typed))
    assert not recording.unknown_typed_types
    show_everywhere(read_bytes(path))


def test_the_output_fallback_pair_delivered_without_meta_is_kept():
    path = family_recording("returns-bot-canned-after-provider-outage")
    recording = load_path(path)
    kept = [e for e in recording.typed_events if "meta" not in e]
    assert [e["type"] for e in kept] == [catalogue.RESILIENCE_OUTPUT_FALLBACK_TRIGGERED,
                                         catalogue.RESILIENCE_OUTPUT_CANNED_USED]
    assert kept[1]["payload"]["fallbackErrorMessage"].startswith("review-queue API 502")
    assert [g.code for g in recording.gaps] == ["no-meta"]


# ─── One event of each type ────────────────────────────────────────────

def minimal_payload(entry: EventType) -> dict:
    """The fields 9.62 always writes for ``entry``, each with a value of its
    declared shape (the first of its declared values, where it has some)."""
    plain = {TEXT: "x", NUMBER: 1, FLAG: True, LIST: [], RECORD: {}}
    return {f.name: f.choices[0] if f.choices else plain.get(f.shape)
            for f in entry.fields if f.required}


def _host() -> dict:
    return json.loads(read_bytes(family_recording(HOST_CASE)))


HOST = _host()


def _with_event(event: dict, position: int | None = None) -> bytes:
    document = copy.deepcopy(HOST)
    events = document["events"]
    events.insert(len(events) if position is None else position, event)
    return json.dumps(document).encode()


def _first_call_start() -> int:
    return next(i for i, e in enumerate(HOST["events"]) if e["type"] == catalogue.LLM_START)


@pytest.mark.parametrize("entry", catalogue.EVENT_TYPES, ids=lambda t: t.short)
def test_a_minimal_event_of_every_type_opens_and_is_shown(entry):
    # Beside the first model call's start, in its stage, as most events fire.
    start = _first_call_start()
    event = {"type": entry.name, "payload": minimal_payload(entry),
             "meta": dict(HOST["events"][start]["meta"])}
    run = show_everywhere(_with_event(event, start + 1))
    assert run.recording.typed_events[start + 1] == event
    assert run.recording.typed_counts[entry.name] == \
        sum(e["type"] == entry.name for e in HOST["events"]) + 1
    assert entry.name not in run.recording.unknown_typed_types


@pytest.mark.parametrize("entry", [t for t in catalogue.EVENT_TYPES if t.name not in _NEEDS_META],
                         ids=lambda t: t.short)
def test_an_event_of_every_type_without_meta_opens_and_is_shown(entry):
    # As the framework delivers the output-fallback pair: after the run, no meta.
    event = {"type": entry.name, "timestamp": 1, "payload": minimal_payload(entry)}
    run = show_everywhere(_with_event(event))
    assert run.recording.typed_events[-1] == event
    assert run.recording.typed_without_meta == {entry.name: 1}


@pytest.mark.parametrize("name", sorted(_NEEDS_META), ids=catalogue.short_name)
def test_a_model_call_event_without_meta_is_refused_by_name(name):
    event = {"type": name, "payload": minimal_payload(catalogue.event_type(name))}
    with pytest.raises(RecordingError, match=r"events\[\d+\] \(agentfootprint\.stream\.llm_"
                                             r"(start|end)\): missing field 'meta'"):
        load_recording(_with_event(event))

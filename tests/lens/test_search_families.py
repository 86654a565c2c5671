"""Search filters by the catalogue family of the event each text came from."""

from __future__ import annotations

import gzip
import json

from family_files import family_recording
from lens.evidence.search import search, search_families, searchable_entries
from lens.run import open_run
from recorders.catalogue import event_type

CASE = "travel-desk-circuit-breaker"
FLIGHT = "UA 1536"  # the flight the story held: in tool results, messages and the answer


def opened():
    data = gzip.decompress(family_recording(CASE).read_bytes())
    return open_run(data), json.loads(data)["events"]


def test_each_hit_of_a_family_filter_comes_from_an_event_of_that_family():
    run, events = opened()
    every = search(run.evidence, FLIGHT)
    streamed = search(run.evidence, FLIGHT, families=["stream"])
    served = search(run.evidence, FLIGHT, families=["context"])
    answered = search(run.evidence, FLIGHT, families=["agent"])
    assert streamed.total and served.total and answered.total
    assert streamed.total + served.total + answered.total == every.total  # no other family holds it
    assert {h.kind for h in served.hits} == {"message"}
    assert "message" not in {h.kind for h in streamed.hits}
    # The turn's end carries the answer: found as the framework event it is.
    assert [(h.kind, h.label) for h in answered.hits] == [("framework event", "agent.turn_end")]


def test_the_families_offered_are_those_of_the_runs_texts_with_their_counts():
    run, events = opened()
    expected: dict[str, int] = {}
    for entry in searchable_entries(run.evidence):  # the framework's findings too
        if entry.event_index is not None:  # a text read from the typed stream, at its position
            family = event_type(events[entry.event_index]["type"]).family
            expected[family] = expected.get(family, 0) + 1
    assert search_families(run.evidence) == sorted(expected.items())
    assert {"stream", "context", "recovery"} <= set(expected)

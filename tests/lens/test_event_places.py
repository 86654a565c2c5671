"""Every raw event of every corpus run is placed on a step that can show it.

Checked against facts of the events themselves: a model call's start and end
land on steps anchored at that call's stage, a boundary event lands in the
deepest scope of the projection enclosing its subflow path, and typed and
boundary events of the same model call land on the same steps.
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from corpus_files import case_names, read_bytes, recording_path
from lens.event_places import BOUNDARY, TYPED, EventPlaces
from lens.run import OpenRun, open_run

P = "agentfootprint."


@lru_cache(maxsize=None)
def placed(case: str) -> tuple[OpenRun, EventPlaces]:
    run = open_run(read_bytes(recording_path(case)))
    return run, EventPlaces.for_run(run, "lens")


def step_of(places: EventPlaces, stream: str, index: int) -> tuple[tuple[str, ...], int] | None:
    found = places.step_of(stream, index)
    return None if found is None else (found.place.path, found.place.index)


@pytest.mark.parametrize("case", case_names())
def test_model_call_events_land_on_steps_of_their_own_stage(case):
    run, places = placed(case)
    scopes = run.scopes("lens")
    last_run = run.recording.typed_run_ids[-1] if run.recording.typed_run_ids else None
    for stream, events, kinds in (
            (TYPED, run.recording.typed_events, (P + "stream.llm_start", P + "stream.llm_end")),
            (BOUNDARY, run.recording.boundary_events, ("llm.start", "llm.end"))):
        for index, event in enumerate(events):
            if event.get("type") not in kinds:
                continue
            meta = event["meta"] if stream == TYPED else event
            if stream == TYPED and meta.get("runId") != last_run:
                continue  # an earlier run of the file has no steps
            place = step_of(places, stream, index)
            assert place is not None, (stream, index)
            step = scopes.get(place[0]).steps[place[1]]
            if any(s.runtime_stage_id == meta["runtimeStageId"]
                   for s in scopes.get(place[0]).steps):
                assert step.runtime_stage_id == meta["runtimeStageId"], (stream, event["type"])


@pytest.mark.parametrize("case", case_names())
def test_typed_and_boundary_starts_of_a_model_call_share_a_step(case):
    run, places = placed(case)
    last_run = run.recording.typed_run_ids[-1] if run.recording.typed_run_ids else None
    typed = {e["meta"]["runtimeStageId"]: i for i, e in enumerate(run.recording.typed_events)
             if e.get("type") == P + "stream.llm_start" and e["meta"].get("runId") == last_run}
    for index, event in enumerate(run.recording.boundary_events):
        if event.get("type") == "llm.start" and event.get("runtimeStageId") in typed:
            assert step_of(places, BOUNDARY, index) == step_of(places, 
                TYPED, typed[event["runtimeStageId"]]), event["runtimeStageId"]


@pytest.mark.parametrize("case", case_names())
def test_a_boundary_event_lands_in_the_deepest_scope_enclosing_its_path(case):
    run, places = placed(case)
    scopes = run.scopes("lens")
    with_steps = {path for path in scopes.paths() if scopes.get(path).steps}
    for index, event in enumerate(run.recording.boundary_events):
        path = tuple(event.get("subflowPath") or ())
        place = step_of(places, BOUNDARY, index)
        if place is None:
            continue
        enclosing = [p for p in with_steps if path[:len(p)] == p]
        if enclosing:
            assert place[0] == max(enclosing, key=len), (index, path)


def test_an_index_outside_the_stream_has_no_step():
    _, places = placed("agent-refund-multi-tools-error")
    assert step_of(places, TYPED, -1) is None
    assert step_of(places, BOUNDARY, 10**9) is None

"""A stage's step ("Where from?") agrees with where the one rule shows its events.

The "Where from?" panel places each stage on a step (:class:`StagePlaces`);
the raw events page, Search, the causes and the HTML export show each event
at a step by the one rule (:func:`nav_for_event`). On every family and corpus
recording, a stage is placed at the latest step any of its typed events is
shown at (it commits at its end, after all it did), and a tool-calls stage
and its events are never shown before the model call that asked for its tools.
"""

from __future__ import annotations

from functools import lru_cache

import pytest
from corpus_files import case_names, recording_path
from family_files import family_names, family_recording

from lens.evidence.event_nav import nav_for_event
from lens.lineage_view import StagePlaces
from lens.run import OpenRun
from lens.scopes import ROOT
from recorders.loading import load_path

PROFILE = "lens"
EVERY_RUN = [("family", name) for name in family_names()] + \
    [("corpus", name) for name in case_names()]


@lru_cache(maxsize=None)
def opened(case: str, where: str) -> OpenRun:
    path = family_recording(case) if where == "family" else recording_path(case)
    return OpenRun(load_path(str(path)))


def stage_of(event) -> str | None:
    meta = event.get("meta") if isinstance(event, dict) else None
    rid = meta.get("runtimeStageId") if isinstance(meta, dict) else None
    return rid if isinstance(rid, str) else None


def event_steps(run: OpenRun) -> dict[str, list[int]]:
    """Stage → the root list positions (run order) its typed events are shown at
    (an event before every step is shown at none)."""
    step_map = run.step_map(PROFILE, ROOT)
    found: dict[str, list[int]] = {}
    for index, event in enumerate(run.recording.typed_events):
        rid = stage_of(event)
        nav = nav_for_event(run.evidence, step_map, index) if rid else None
        # An event before every step leads to the first step, which does not show it.
        if nav is not None and nav.step is not None and not nav.before:
            found.setdefault(rid, []).append(nav.step)
    return found


def root_position(run: OpenRun):
    """A StepPlace → its position in the root's list (which is in run order)."""
    everywhere = run.scoped_steps(PROFILE, ROOT)
    positions = {}
    for position in range(len(run.step_map(PROFILE, ROOT).steps)):
        place = everywhere.place(position)
        if place is not None:
            positions.setdefault((place.path, place.index), position)
    return lambda place: None if place is None else positions.get((place.path, place.index))


@pytest.mark.parametrize("where,case", EVERY_RUN)
def test_a_stage_is_placed_at_the_latest_step_its_events_are_shown_at(where, case):
    run = opened(case, where)
    places, position = StagePlaces(run, PROFILE), root_position(run)
    compared = 0
    for rid, steps in event_steps(run).items():
        assert position(places.step_of(rid)) == max(steps), (case, rid, sorted(set(steps)))
        compared += 1
    assert compared or not run.recording.typed_events


@pytest.mark.parametrize("where,case", EVERY_RUN)
def test_a_tool_calls_stage_is_never_shown_before_the_call_that_asked_for_its_tools(where, case):
    run = opened(case, where)
    evidence, step_map = run.evidence, run.step_map(PROFILE, ROOT)
    places, position, shown = StagePlaces(run, PROFILE), root_position(run), event_steps(run)
    for tool in evidence.tool_calls:
        asked_at = step_map.end_step(tool.requested_by) if tool.requested_by is not None \
            else None
        if asked_at is None or tool.start_event_index is None:
            continue
        rid = stage_of(run.recording.typed_events[tool.start_event_index])
        if rid is None:
            continue
        assert position(places.step_of(rid)) >= asked_at, (case, rid, tool.name)
        # Every event of the stage (its loop iteration's end too), on every surface.
        assert min(shown[rid]) >= asked_at, (case, rid, tool.name, sorted(set(shown[rid])))


@pytest.mark.parametrize("where,case", EVERY_RUN)
def test_a_route_decided_on_an_answer_is_shown_after_that_answer(where, case):
    """The route an agent takes on a model call's answer is decided once the call
    ended: the one rule never shows it at the call's start."""
    run = opened(case, where)
    evidence, step_map = run.evidence, run.step_map(PROFILE, ROOT)
    for entry in evidence.search_entries:
        if entry.kind != "route reason" or entry.call is None or entry.event_index is None:
            continue
        ended_at = step_map.end_step(entry.call)
        nav = nav_for_event(evidence, step_map, entry.event_index)
        if ended_at is None or nav is None or nav.step is None:
            continue
        assert nav.step >= ended_at, (case, entry.label, nav.step, ended_at)

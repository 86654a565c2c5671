"""A crash reported at the run's root lands on the step of what was running.

``error.fatal`` is recorded at stage ``__root__#0`` after the run unwound, and
the boundary log's ``run.exit`` carries the same crash: both used to land on
the run's first step. Expected steps are found from the recordings' own model
call starts, not from the placement under test.
"""

from __future__ import annotations

import json

from corpus_files import read_bytes, recording_path
from crash_recordings import CRASH_CASE, sequence_crashed_in_third_call
from family_files import family_recording
from lens_cli.main import main
from lens.event_places import BOUNDARY, TYPED, EventPlaces
from lens.run import OpenRun, open_run
from recorders.catalogue import ERROR_FATAL, LLM_START


class _Places:
    """Events placed on the lens projection's steps, as (scope path, index)."""

    def __init__(self, run: OpenRun) -> None:
        self._places = EventPlaces.for_run(run, "lens")

    def step_of(self, stream: str, index: int) -> tuple[tuple[str, ...], int] | None:
        found = self._places.step_of(stream, index)
        return None if found is None else (found.place.path, found.place.index)


def _places(run: OpenRun) -> _Places:
    return _Places(run)


def _third_call_start(run: OpenRun) -> tuple[tuple[str, ...], int]:
    """(scope path, index) of the step that starts the third model call."""
    starts = [e for e in run.recording.typed_events if e["type"] == LLM_START]
    stage = starts[2]["meta"]["runtimeStageId"]
    scopes = run.scopes("lens")
    found = [(path, index) for path in scopes.paths()
             for index, step in enumerate(scopes.get(path).steps)
             if step.anchor.runtime_stage_id == stage]
    return found[0]


def _fatal_index(run: OpenRun) -> int:
    (index,) = [i for i, e in enumerate(run.recording.typed_events) if e["type"] == ERROR_FATAL]
    return index


def _crash_exit_index(run: OpenRun) -> int:
    events = run.recording.boundary_events
    assert events[-1]["type"] == "run.exit" and "error" in events[-1]["payload"]
    return len(events) - 1


def test_fatal_error_of_an_agent_lands_on_its_third_model_calls_step():
    run = open_run(read_bytes(recording_path(CRASH_CASE)))
    places = _places(run)
    third = _third_call_start(run)
    assert third != (("__root__",), 0)
    assert places.step_of(TYPED, _fatal_index(run)) == third
    assert places.step_of(BOUNDARY, _crash_exit_index(run)) == third


def test_fatal_error_of_a_sequence_lands_on_the_crashed_childs_call_step():
    run = open_run(json.dumps(sequence_crashed_in_third_call()).encode())
    places = _places(run)
    third = _third_call_start(run)
    assert third == (("__root__", "step-draft"), 0)
    assert places.step_of(TYPED, _fatal_index(run)) == third
    assert places.step_of(BOUNDARY, _crash_exit_index(run)) == third


def test_fatal_error_between_two_calls_lands_on_the_last_step_before_it():
    # The tool hub failed while the third call was being prepared: no third call step.
    run = open_run(read_bytes(family_recording("translation-desk-hub-outage-shadowed")))
    places = _places(run)
    steps = run.scopes("lens").root().steps
    last = (("__root__",), len(steps) - 1)
    assert places.step_of(TYPED, _fatal_index(run)) == last
    assert places.step_of(BOUNDARY, _crash_exit_index(run)) == last


def test_the_likely_cause_citing_the_crash_links_the_step_the_crash_is_placed_on(capsys):
    path = recording_path(CRASH_CASE)
    run = open_run(read_bytes(path))
    fatal = _fatal_index(run)
    capsys.readouterr()
    assert main(["causes", str(path)]) == 0
    causes = json.loads(capsys.readouterr().out)
    (citing,) = [cause for cause in causes if fatal in cause["events"]]
    placed_path, placed_index = _places(run).step_of(TYPED, fatal)
    assert citing["step"] == {"path": list(placed_path), "index": placed_index}
    assert (placed_path, placed_index) == _third_call_start(run)

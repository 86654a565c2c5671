"""Where a crash shows in the lens projection (issue 27, item 4).

Expected values come from the recordings themselves: the typed stream says
which model call was open when the run crashed, and the boundary log's root
``run.exit`` carries the error text the steps must repeat.
"""

from __future__ import annotations

import json

from boundary_builder import BoundaryLog
from corpus_files import recording_path
from crash_recordings import (CRASH_CASE, SEQUENCE_ERROR, sequence_crashed_in_third_call)
from family_files import family_recording
from recorders.catalogue import LLM_START
from recorders.lens_projection import LensStepRecorder
from recorders.loading import Recording, load_path, load_recording
from recorders.projections import build_projection

OUTAGE_CASE = "translation-desk-hub-outage-shadowed"


def _lens(recording: Recording):
    return build_projection(recording, "lens")


def _run_exit_error(recording: Recording) -> str:
    run_exit = recording.boundary_events[-1]
    assert run_exit["type"] == "run.exit"
    return run_exit["payload"]["error"]


def _crashed(steps) -> list:
    return [s for s in steps if "crashed" in (s.meta or {})]


def test_an_agent_that_crashed_in_its_third_model_call_says_so_on_that_calls_step():
    recording = load_path(recording_path(CRASH_CASE))
    starts = [e for e in recording.typed_events if e["type"] == LLM_START]
    assert len(starts) == 3
    third_call = starts[2]["meta"]["runtimeStageId"]
    steps = _lens(recording).get_steps()
    (crashed,) = _crashed(steps)
    assert crashed.anchor.runtime_stage_id == third_call
    assert crashed.label == "tool→llm"  # the call's start: it never ended
    assert crashed.meta["crashed"] == "in this model call"
    assert crashed.meta["error"] == _run_exit_error(recording)
    assert "529 Overloaded" in crashed.meta["error"]


def test_an_agent_that_crashed_before_its_next_call_says_so_on_its_last_step():
    # The tool hub was unreachable while the third call's tools were being found:
    # the second call's llm→tool step is the last thing that happened.
    recording = load_path(family_recording(OUTAGE_CASE))
    steps = _lens(recording).get_steps()
    (crashed,) = _crashed(steps)
    assert crashed is steps[-1] and crashed.label == "llm→tool"
    assert crashed.meta["crashed"] == "after this step"
    assert "ECONNREFUSED" in crashed.meta["error"] == _run_exit_error(recording)


def test_a_sequence_that_crashed_in_its_third_call_ends_with_crashed_not_answers():
    recording = load_recording(json.dumps(sequence_crashed_in_third_call()))
    projection = _lens(recording)
    steps = projection.get_steps()
    assert [s.label for s in steps] == ["asks", "forwards", "forwards", "crashed"]
    crashed = steps[-1]
    assert [(t.source, t.target) for t in crashed.transitions] == [("step-draft", "actor:user")]
    assert crashed.meta == {"kind": "crashed", "error": SEQUENCE_ERROR}


def test_the_sequence_child_that_crashed_carries_the_error_on_its_model_call():
    recording = load_recording(json.dumps(sequence_crashed_in_third_call()))
    projection = _lens(recording)
    drilled = projection.get_steps(["__root__", "step-draft"])
    assert [s.label for s in drilled] == ["user→llm"]
    assert drilled[0].meta["crashed"] == "in this model call"
    assert drilled[0].meta["error"] == SEQUENCE_ERROR
    for child in ("step-classify", "step-extract"):  # they finished before the crash
        assert _crashed(projection.get_steps(["__root__", child])) == []


def test_a_parallel_whose_branch_crashed_names_that_branch_instead_of_merging():
    log = BoundaryLog().run_entry().composition("Parallel").fork("Initialize", ["a", "b", "c"],
                                                                 stage="seed#0")
    for child in ("a", "b", "c"):
        log.enter(child, "LLMCall", internal=False)
    log.events.append({**log.events[-1], "type": "llm.start", "runtimeStageId": "c/call-llm#5"})
    log.exit("a").exit("b").run_exit()
    log.events[-1]["payload"] = {"error": "branch c: 503"}
    recorder = LensStepRecorder()
    recorder.ingest_domain_events(log.events)
    steps = recorder.get_steps()
    assert [s.label for s in steps] == ["fork (3)", "crashed"]
    assert [(t.source, t.target) for t in steps[1].transitions] == [("c", "actor:user")]
    (call,) = recorder.get_steps(["__root__", "c"])
    assert (call.meta["crashed"], call.meta["error"]) == ("in this model call", "branch c: 503")

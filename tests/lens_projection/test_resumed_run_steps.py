"""A run paused for a person and resumed keeps its steps before the pause.

The boundary log of a resumed run holds every part, each opened by its own
``run.entry`` (the part before the pause has no ``run.exit``); the typed
stream says how many resumes there were (``pause.resume``, then a new run id).
A log whose second ``run.entry`` follows a finished run, or a file that
records no resume, still shows its last run only.
"""

from __future__ import annotations

import pytest

from boundary_builder import BoundaryLog
from corpus_files import recording_path
from family_files import family_names, family_recording
from recorders.evidence import resumed_run_ids, run_groups
from recorders.evidence.run_groups import resumes_of_last_run
from recorders.lens_projection import LensStepRecorder, lens_run_steps
from recorders.loading import load_path
from recorders.projections import build_projection


def _steps(log: BoundaryLog, resumes: int) -> list[str]:
    recorder = LensStepRecorder(resumes)
    recorder.ingest_domain_events(log.events)
    return [step.label for step in recorder.get_steps()]


def _paused_then_resumed() -> BoundaryLog:
    log = BoundaryLog().run_entry()
    log.llm([], "call-llm#1", tool_calls=1)
    log._add("tool.start", [], "tool-calls#2", toolName="approve", toolCallId="t1")
    log.run_entry()  # the resume: no run.exit before it
    log._add("tool.end", [], "tool-calls#3", toolCallId="t1")
    log.llm([], "call-llm#4", tool_calls=0)
    return log.run_exit()


def test_a_resumed_run_keeps_the_steps_before_its_pause():
    assert _steps(_paused_then_resumed(), resumes=1) == [
        "user→llm", "llm→tool", "tool→llm", "llm→user"]


def test_without_a_recorded_resume_a_second_run_entry_starts_again():
    # A bare boundary log records no resume: the log is read as its last run.
    assert _steps(_paused_then_resumed(), resumes=0) == ["user→llm", "llm→user"]


def test_a_run_entry_after_a_finished_run_starts_again_even_with_a_resume_recorded():
    log = BoundaryLog().run_entry()
    log.llm([], "call-llm#1", tool_calls=0)
    log.run_exit().run_entry()
    log.llm([], "call-llm#2", tool_calls=0)
    assert _steps(log.run_exit(), resumes=1) == ["user→llm", "llm→user"]


RESUMED = [name for name in family_names()
           if resumed_run_ids(load_path(str(family_recording(name))).typed_events)]


def test_the_project_holds_resumed_runs():
    assert len(RESUMED) >= 2


@pytest.mark.parametrize("case", RESUMED)
def test_every_model_call_of_a_resumed_run_has_its_lens_steps(case):
    recording = load_path(str(family_recording(case)))
    entries = [e for e in recording.boundary_events if e.get("type") == "run.entry"]
    assert len(entries) == resumes_of_last_run(recording.typed_events) + 1
    starts = {e["runtimeStageId"] for e in recording.boundary_events if e["type"] == "llm.start"}
    shown = {s.runtime_stage_id for s in lens_run_steps(recording).get_steps()}
    assert starts <= shown


def test_a_file_of_two_runs_shows_its_last_run_only():
    recording = load_path(str(recording_path("multirun-agent-two-runs")))
    assert len(run_groups(recording.typed_events)) == 2
    assert resumes_of_last_run(recording.typed_events) == 0
    steps = build_projection(recording, "lens").get_steps()
    entry = next(i for i, e in enumerate(recording.boundary_events) if e["type"] == "run.entry")
    assert steps and all(s.ts_ms >= recording.boundary_events[entry]["ts"] for s in steps)

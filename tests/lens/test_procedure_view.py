""""Why this skill?" shows a skill's declared procedure as the run walked it.

A run can follow a skill's numbered steps with no skill graph routing it (the
model read the skill itself); the view used to say "No skill graph in this
run" while a cause named the step the model skipped."""

from __future__ import annotations

import pytest

from corpus_files import case_names, recording_path
from family_files import family_names, family_recording
from lens.procedure_view import DONE, NOT_RECORDED, SKIPPED, skill_procedures
from lens.route_view import no_route_message, skills_visited_text
from lens.run import OpenRun
from recorders.catalogue import SKILL_STEP_ADVANCED, SKILL_STEP_SKIPPED
from recorders.loading import load_path

ALL_FILES = ([family_recording(name) for name in family_names()]
             + [recording_path(name) for name in case_names()])


def _open(path) -> OpenRun:
    return OpenRun(load_path(str(path)))


def _step_events(run: OpenRun) -> list[dict]:
    return [e for e in run.recording.typed_events if isinstance(e, dict)
            and e.get("type") in (SKILL_STEP_ADVANCED, SKILL_STEP_SKIPPED)]


WALKED = [path for path in ALL_FILES if _step_events(_open(path))]


def test_the_project_holds_a_run_that_walks_a_procedure():
    assert WALKED


@pytest.mark.parametrize("path", WALKED, ids=lambda p: p.parent.name)
def test_each_skipped_step_is_listed_skipped_with_its_reason(path):
    run = _open(path)
    procedures = {p.skill: p for p in skill_procedures(run.evidence, run.facts.run_ids)}
    for event in _step_events(run):
        payload = event["payload"]
        procedure = procedures[payload["skillId"]]
        assert procedure.total == payload["step"]["total"]
        if event["type"] == SKILL_STEP_SKIPPED:
            step = procedure.steps[payload["step"]["index"] - 1]
            assert step.status == SKIPPED and step.tool == payload["step"]["tool"]
            assert f"“{payload['reason']}”" in step.said
            assert payload["step"]["tool"] in procedure.summary
        else:  # the index is the position after advancing: the step before it is done
            step = procedure.steps[payload["step"]["index"] - 2]
            assert step.status == DONE and step.tool == payload["step"]["tool"]


@pytest.mark.parametrize("path", WALKED, ids=lambda p: p.parent.name)
def test_every_declared_step_has_a_row_and_none_is_guessed(path):
    run = _open(path)
    for procedure in skill_procedures(run.evidence, run.facts.run_ids):
        assert [s.number for s in procedure.steps] == list(range(1, procedure.total + 1))
        for step in procedure.steps:
            assert step.status in (DONE, SKIPPED, NOT_RECORDED)
            assert (step.tool == "") == (step.status == NOT_RECORDED)


@pytest.mark.parametrize("path", WALKED, ids=lambda p: p.parent.name)
def test_a_run_that_walked_a_procedure_is_not_said_to_have_no_skill(path):
    run = _open(path)
    skills = [p.skill for p in skill_procedures(run.evidence, run.facts.run_ids)]
    message = no_route_message((), run.recording.has_typed_stream, skills)
    assert "No skill graph in this run" not in message
    assert all(skill in message for skill in skills)
    assert skills_visited_text((), (), skills) == str(len(skills))


@pytest.mark.parametrize("path", [p for p in ALL_FILES if p not in WALKED],
                         ids=lambda p: p.parent.name)
def test_a_run_with_no_procedure_events_has_no_procedure(path):
    run = _open(path)
    assert skill_procedures(run.evidence, run.facts.run_ids) == ()

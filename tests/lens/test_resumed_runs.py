"""A run paused for a person and resumed: one run in two parts of the file.

The typed stream holds the part before the pause, the application's own
pause events and the part after the resume, each under its own run id; the
steps are built from the last part only. Whatever the file holds, Lens must
say which part a cause sits in rather than leave a bare "no step", count the
run the same way on the bar and in the outcome, and say that it paused.
"""

from __future__ import annotations

import re

import pytest

from corpus_files import case_names, recording_path
from family_files import family_names, family_recording
from lens.evidence.causes import likely_causes
from lens.evidence.nav import BEFORE_THE_FIRST_STEP, BEFORE_THE_PAUSE, BEFORE_THE_RESUMED_STEPS
from lens.run import OpenRun
from lens.scopes import ROOT
from lens.summary import figures_line, steps_note, summarise
from recorders.catalogue import PAUSE_RESUME
from recorders.evidence import resumed_run_ids, run_groups
from recorders.loading import load_path

PROFILE = "lens"
ALL_FILES = ([family_recording(name) for name in family_names()]
             + [recording_path(name) for name in case_names()])


def _open(path) -> OpenRun:
    return OpenRun(load_path(str(path)))


def _resumed(run: OpenRun) -> bool:
    events = run.recording.typed_events
    return any(isinstance(e, dict) and e.get("type") == PAUSE_RESUME for e in events) and any(
        len(group) > 1 for group in run_groups(events))


RESUMED = [path for path in ALL_FILES if _resumed(_open(path))]


def test_the_project_holds_resumed_runs():
    assert len(RESUMED) >= 2


@pytest.mark.parametrize("path", RESUMED, ids=lambda p: p.parent.name)
def test_a_cause_before_the_pause_says_so(path):
    run = _open(path)
    shown = run.evidence.shown_run
    causes = likely_causes(run.evidence, run.step_map(PROFILE, ROOT), gaps=run.recording.gaps)
    by_position = {f.event_index: f for f in run.evidence.findings}
    before = [c for c in causes if any(
        by_position.get(i) is not None and by_position[i].run_id not in (None, shown,
                                                                         "consumer-scope")
        for i in c.events)]
    for cause in before:
        assert cause.nav is not None and cause.nav.step is None
        assert cause.nav.why_no_step == BEFORE_THE_PAUSE


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.parent.name)
def test_no_cause_is_left_without_words_for_its_missing_step(path):
    run = _open(path)
    causes = likely_causes(run.evidence, run.step_map(PROFILE, ROOT), gaps=run.recording.gaps)
    for cause in causes:
        if cause.nav is not None and cause.nav.step is None:
            assert cause.nav.why_no_step
            assert "no step at or before" not in cause.nav.why_no_step


def _summary(run: OpenRun):
    return summarise(run.evidence, run.projection(PROFILE).route.get_path(),
                     run.recording.run_info, run.facts)


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.parent.name)
def test_the_bar_and_the_outcome_count_the_same_model_calls(path):
    run = _open(path)
    said = re.search(r"after ([\d,]+) model calls?", run.facts.outcome.sentence)
    if said is None:
        return
    assert figures_line(_summary(run)).startswith(f"{said.group(1)} model call")


@pytest.mark.parametrize("path", RESUMED, ids=lambda p: p.parent.name)
def test_a_resumed_run_says_it_paused_and_what_its_steps_show(path):
    run = _open(path)
    sentence = run.facts.outcome.sentence
    assert sentence.startswith("The run ") and sentence.endswith(", and was resumed.")
    assert " It had paused " in sentence
    summary = _summary(run)
    assert summary.model_calls == len(run.evidence.calls_of_run(run.facts.run_ids))
    assert summary.calls_in_steps == len(run.evidence.shown_calls()) < summary.model_calls
    note = steps_note(summary, run.scope(PROFILE, ROOT).steps)
    assert note is not None and "only the part after the resume" in note
    assert f"({summary.calls_in_steps} of its {summary.model_calls} model calls)" in note
    # The reference replay keeps the part before the pause: its steps reach back.
    assert steps_note(summary, run.scope("reference", ROOT).steps) is None


@pytest.mark.parametrize("path", [p for p in ALL_FILES if p not in RESUMED],
                         ids=lambda p: p.parent.name)
def test_a_run_never_resumed_says_nothing_of_a_pause_resumed(path):
    run = _open(path)
    assert run.facts.outcome.resumes == 0
    assert " was resumed" not in run.facts.outcome.sentence
    assert steps_note(_summary(run), run.scope(PROFILE, ROOT).steps) is None


@pytest.mark.parametrize("path", RESUMED, ids=lambda p: p.parent.name)
def test_an_event_timed_before_the_resumed_steps_is_not_said_to_precede_the_run(path):
    # After a resume the first step shown is the resumed part's, not the run's first.
    run = _open(path)
    causes = likely_causes(run.evidence, run.step_map(PROFILE, ROOT), gaps=run.recording.gaps)
    for cause in causes:
        if cause.nav is not None and cause.nav.step is None:
            assert cause.nav.why_no_step in (BEFORE_THE_PAUSE, BEFORE_THE_RESUMED_STEPS)


def test_the_resume_rule_names_the_ids_after_a_resume_only():
    events = [{"type": "agentfootprint.agent.turn_start", "meta": {"runId": "a"}},
              {"type": PAUSE_RESUME, "meta": {"runId": "consumer-scope"}},
              {"type": "agentfootprint.agent.turn_start", "meta": {"runId": "b"}},
              {"type": "agentfootprint.agent.turn_start", "meta": {"runId": "c"}}]
    assert run_groups(events) == (("a", "b"), ("c",))
    assert resumed_run_ids(events) == frozenset({"b"})


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.parent.name)
def test_the_file_gap_counts_runs_as_the_run_facts_do(path):
    recording = load_path(str(path))
    codes = [gap.code for gap in recording.gaps]
    groups = run_groups(recording.typed_events)
    resumed = resumed_run_ids(recording.typed_events)
    if resumed and len(groups) == 1:  # one run in two parts: not "several runs"
        assert "paused-and-resumed" in codes and "several-runs" not in codes
    elif len(groups) <= 1:  # the application's own events are no run
        assert "several-runs" not in codes and "paused-and-resumed" not in codes
    else:
        several = [gap for gap in recording.gaps if gap.code == "several-runs"]
        assert several and several[0].message.startswith(f"the typed stream holds {len(groups)} ")


@pytest.mark.parametrize("path", RESUMED, ids=lambda p: p.parent.name)
def test_the_part_before_a_pause_is_no_run_left_open(path):
    # Its run.entry has no run.exit of its own: the run paused, it did not stop.
    recording = load_path(str(path))
    assert not [gap for gap in recording.gaps if gap.code == "unbalanced"
                and "run.entry" in gap.message]


def test_a_run_entry_left_open_beyond_the_paused_parts_is_still_a_gap():
    from recorders.balance import BalanceReport, OpenEnd

    ends = tuple(OpenEnd("__root__#0", n) for n in range(2))
    report = BalanceReport(3, 1, ends, (), (), (), (), (), (), ())
    assert [gap.message for gap in report.gaps(paused_parts=1)] == [
        "1 run.entry event without a run.exit (boundary event 1)"]
    assert report.gaps(paused_parts=2) == []


@pytest.mark.parametrize("path", RESUMED, ids=lambda p: p.parent.name)
def test_under_the_reference_replay_a_cause_before_the_pause_keeps_its_step(path):
    # The reference replay keeps every part of the boundary log: its steps reach back.
    run = _open(path)
    shown = run.evidence.shown_run
    steps = run.step_map("reference", ROOT)
    causes = likely_causes(run.evidence, steps, gaps=run.recording.gaps)
    by_position = {f.event_index: f for f in run.evidence.findings}
    before = [c for c in causes if any(
        by_position.get(i) is not None and by_position[i].run_id not in (None, shown,
                                                                         "consumer-scope")
        for i in c.events)]
    for cause in before:
        assert cause.nav is not None
        if cause.nav.step is None:  # before every step: said so, not "after the resume"
            assert cause.nav.why_no_step == BEFORE_THE_FIRST_STEP


@pytest.mark.parametrize("path", RESUMED, ids=lambda p: p.parent.name)
def test_under_the_reference_replay_nothing_is_said_to_precede_the_resume(path):
    run = _open(path)
    causes = likely_causes(run.evidence, run.step_map("reference", ROOT), gaps=run.recording.gaps)
    for cause in causes:
        if cause.nav is not None and cause.nav.step is None:
            assert cause.nav.why_no_step not in (BEFORE_THE_PAUSE, BEFORE_THE_RESUMED_STEPS)


@pytest.mark.parametrize("path", RESUMED, ids=lambda p: p.parent.name)
def test_a_call_before_the_pause_says_the_snapshot_does_not_hold_it(path):
    from lens.evidence.served import served_context

    run = _open(path)
    shown = run.evidence.shown_run
    steps = run.step_map(PROFILE, ROOT)
    before = [c for c in run.evidence.calls if c.run_id not in (None, shown)]
    assert before
    for call in before:
        served = served_context(run.evidence, call.id, steps)
        assert any(n.startswith("This call comes before the run's pause") for n in served.notices)
        assert served.start_nav.step is None and served.start_nav.why_no_step == BEFORE_THE_PAUSE
    for call in run.evidence.calls:
        if call.run_id == shown:
            notices = served_context(run.evidence, call.id, steps).notices
            assert not any("before the run's pause" in n for n in notices)


def test_an_answer_before_the_pause_is_said_to_be_outside_the_commit_log():
    from dataclasses import replace

    from lens.cause_lineage import BEFORE_THE_PAUSE as NOT_IN_LOG, came_from

    run = _open(RESUMED[0])
    causes = likely_causes(run.evidence, run.step_map(PROFILE, ROOT), gaps=run.recording.gaps)
    early = next(c for c in run.evidence.calls if c.run_id != run.evidence.shown_run)
    cause = replace(causes[0], answer_call=early.id)
    # The commit log is not read for it: any stand-ins will do.
    came = came_from(cause, run.evidence, object(), object(), object())
    assert came is not None and came.stages == () and came.note == NOT_IN_LOG

"""A run paused for a person and resumed: one run in two parts of the file.

The typed stream holds the part before the pause, the application's own
pause events and the part after the resume, each under its own run id; the
boundary log holds every part, and so do the steps of both projections; the
snapshot (the file's state and commit log) holds the part after the resume
only. Lens must place every cause on a step of its own call, count the run
the same way on the bar and in the outcome, say that it paused, and say of a
call before the pause that the file's state does not hold it.
"""

from __future__ import annotations

import re

import pytest

from corpus_files import case_names, recording_path
from family_files import family_names, family_recording
from lens.evidence.causes import likely_causes
from lens.evidence.nav import (BEFORE_THE_FIRST_STEP, BEFORE_THE_PAUSE, BEFORE_THE_RESUMED_STEPS,
                               nav_for_call)
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


def _event_ms(run: OpenRun, index: int) -> float | None:
    meta = run.recording.typed_events[index].get("meta") or {}
    return meta.get("wallClockMs")


@pytest.mark.parametrize("profile", ["lens", "reference"])
@pytest.mark.parametrize("path", RESUMED, ids=lambda p: p.parent.name)
def test_every_cause_of_a_resumed_run_lands_on_a_step_of_its_call(path, profile):
    # The steps hold both parts: a cause of the part before the pause has its step,
    # and the step shows the model call the cause's event belongs to. Only an event
    # timed before the run's first step (a guard on the user's message, before the
    # first model call) has none, as in any run.
    run = _open(path)
    step_map = run.step_map(profile, ROOT)
    first_step_ms = min(s.ts_ms for s in run.scope(profile, ROOT).steps)
    causes = likely_causes(run.evidence, step_map, gaps=run.recording.gaps)
    by_position = {f.event_index: f for f in run.evidence.findings}
    placed_before_the_pause = 0
    for cause in causes:
        assert cause.nav is not None and cause.events, cause.headline
        finding = by_position.get(cause.events[0])
        if cause.nav.step is None:
            assert cause.nav.why_no_step == BEFORE_THE_FIRST_STEP, cause.headline
            assert _event_ms(run, cause.events[0]) < first_step_ms
            continue
        if finding is not None and finding.call is not None:
            assert step_map.call_at(cause.nav.step)[0] == finding.call, cause.headline
        if finding is not None and run.evidence.before_the_resume(finding.run_id):
            placed_before_the_pause += 1
    assert placed_before_the_pause or not any(
        run.evidence.before_the_resume(by_position[i].run_id)
        for c in causes for i in c.events[:1] if i in by_position)


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
def test_a_resumed_run_says_it_paused_and_its_steps_show_every_part(path):
    run = _open(path)
    sentence = run.facts.outcome.sentence
    assert sentence.startswith("The run ") and sentence.endswith(", and was resumed.")
    assert " It had paused " in sentence
    summary = _summary(run)
    assert summary.model_calls == len(run.evidence.calls_of_run(run.facts.run_ids))
    # Both parts are the run the steps show: no note that they show only the last.
    assert summary.calls_in_steps == len(run.evidence.shown_calls()) == summary.model_calls
    assert set(run.evidence.shown_run_ids) == set(run.facts.run_ids)
    for profile in (PROFILE, "reference"):
        assert steps_note(summary, run.scope(profile, ROOT).steps) is None


def test_the_steps_note_is_said_when_the_steps_leave_out_the_part_before_the_pause():
    from dataclasses import replace

    run = _open(RESUMED[0])
    summary = replace(_summary(run), calls_in_steps=3)
    late = [s for s in run.scope(PROFILE, ROOT).steps if s.ts_ms > summary.first_call_ms]
    note = steps_note(summary, late)
    assert note is not None and "only the part after the resume" in note
    assert f"(3 of its {summary.model_calls} model calls)" in note


def test_a_file_of_two_runs_shows_its_last_run_only():
    run = _open(recording_path("multirun-agent-two-runs"))
    evidence, step_map = run.evidence, run.step_map(PROFILE, ROOT)
    earlier = [c for c in evidence.calls if not evidence.in_shown_run(c.run_id)]
    assert earlier and evidence.shown_run_ids == (evidence.shown_run,)
    assert all(c.run_id == evidence.shown_run for c in evidence.shown_calls())
    for call in earlier:
        assert step_map.steps_for_call(call.id) == ()
        nav = nav_for_call(evidence, step_map, call.id)
        assert nav.step is None and "earlier run" in nav.why_no_step
    for call in evidence.shown_calls():
        assert step_map.steps_for_call(call.id)


@pytest.mark.parametrize("path", [p for p in ALL_FILES if p not in RESUMED],
                         ids=lambda p: p.parent.name)
def test_a_run_never_resumed_says_nothing_of_a_pause_resumed(path):
    run = _open(path)
    assert run.facts.outcome.resumes == 0
    assert " was resumed" not in run.facts.outcome.sentence
    assert steps_note(_summary(run), run.scope(PROFILE, ROOT).steps) is None




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


@pytest.mark.parametrize("profile", [PROFILE, "reference"])
@pytest.mark.parametrize("path", RESUMED, ids=lambda p: p.parent.name)
def test_nothing_is_said_to_precede_the_resume(path, profile):
    # Both projections replay every part: no cause is said to sit before the pause.
    run = _open(path)
    causes = likely_causes(run.evidence, run.step_map(profile, ROOT), gaps=run.recording.gaps)
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
        notes = [n for n in served.notices if n.startswith("This call comes before the run's pause")]
        assert notes and "holds only the part after the resume" in notes[0]
        assert "steps" not in notes[0]  # the steps do show it
        # Its step is its own: the link from its served context leads to it.
        assert served.start_nav.step is not None and served.start_nav.exact
        assert steps.call_at(served.start_nav.step)[0] == call.id
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


@pytest.mark.parametrize("path", RESUMED, ids=lambda p: p.parent.name)
def test_a_step_before_the_pause_says_the_commit_log_does_not_hold_it(path):
    # The steps show the part before the pause; the snapshot's commit log does not.
    from lens.lineage_view import BEFORE_THE_RESUME_NOTE, pause_note

    run = _open(path)
    evidence = run.evidence
    for profile in (PROFILE, "reference"):
        step_map = run.step_map(profile, ROOT)
        steps = step_map.steps
        notes = [pause_note(evidence, steps, p) for p in range(len(steps))]
        assert BEFORE_THE_RESUME_NOTE in notes and None in notes
        # The part before the pause comes first: once a step is the resumed part's, so is the rest.
        assert notes == sorted(notes, key=lambda n: n is None)
        for position, note in enumerate(notes):
            call_id, exact = step_map.call_at(position, nearest=False)
            if exact:  # a step of a model call: noted exactly when the call is before the pause
                assert (note is not None) == evidence.before_the_resume(
                    evidence.calls[call_id].run_id)


def test_a_step_of_a_run_never_paused_has_no_pause_note():
    from lens.lineage_view import pause_note

    for path in ALL_FILES:
        if path in RESUMED:
            continue
        run = _open(path)
        steps = run.scope(PROFILE, ROOT).steps
        assert all(pause_note(run.evidence, steps, p) is None for p in range(len(steps))), path

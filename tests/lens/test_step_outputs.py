"""A step shows what it produced: a merge its merged result, a loop pass its
output and number. Expected values are read from the file's events here."""

from __future__ import annotations

import pytest

from corpus_files import case_names, read_bytes, recording_path
from lens.run import open_run
from lens.step_detail import describe_step
from recorders.run_step import ITERATION, MERGE


def all_steps(run, profile="lens"):
    scopes = run.scopes(profile)
    for path in scopes.paths():
        yield from scopes.get(path).steps


@pytest.mark.parametrize("case", case_names())
def test_every_merge_shows_the_result_its_recording_carries(case):
    run = open_run(read_bytes(recording_path(case)))
    summaries = {e["payload"]["resultSummary"] for e in run.recording.typed_events
                 if isinstance(e, dict) and str(e.get("type")).endswith("composition.merge_end")
                 and isinstance(e.get("payload"), dict) and "resultSummary" in e["payload"]}
    merges = [s for s in all_steps(run) if s.kind == MERGE]
    for step in merges:
        texts = {t.title: t.text.full for t in describe_step(step, run.evidence).texts}
        if summaries:
            assert texts.get("Merged result") in summaries, (step.runtime_stage_id, texts)
        else:
            assert "Merged result" not in texts


def test_each_loop_pass_shows_its_number_and_its_own_output():
    run = open_run(read_bytes(recording_path("loop-refine-4-iterations")))
    exits = {e["runtimeStageId"]: e["payload"]["answer"] for e in run.recording.boundary_events
             if e.get("type") == "subflow.exit" and isinstance(e.get("payload"), dict)
             and "answer" in e["payload"]}
    passes = [s for s in all_steps(run) if s.kind == ITERATION]
    assert len(passes) >= 2
    outputs = []
    for number, step in enumerate(passes, start=1):
        detail = describe_step(step, run.evidence)
        facts = {f.name: f.value for f in detail.facts}
        assert facts["pass"] == str(number)
        texts = {t.title: t.text.full for t in detail.texts}
        assert texts["This pass's output"] == exits[step.runtime_stage_id]
        outputs.append(texts["This pass's output"])
    assert len(set(outputs)) == len(outputs)  # each pass its own output

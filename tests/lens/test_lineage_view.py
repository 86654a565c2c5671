"""The "Where from?" view model on real sample runs: the chain, timeline and
what a key fed are footprintjs 9.24.0's slices (the pinned references), each
stage placed on the step that shows its events; the default keys are found
in the recording's own values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lineage.lineage_refs import reference_of
from lens.lineage_view import (NO_COMMIT_LOG, StagePlaces, answer_key, default_key,
                               key_for_step, keys_written_at, lineage_of, where_from)
from lens.run import open_run

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ("llmcall-single", "agent-refund-multi-tools-error", "loop-refine-4-iterations",
           "conditional-routes-to-agent", "nested-sequence-with-parallel",
           "parallel-3-reviewers")


def sample(name: str) -> tuple[bytes, dict]:
    data = (ROOT / "sample_runs" / f"{name}.json").read_bytes()
    return data, json.loads(data)


def opened(name: str):
    data, document = sample(name)
    run = open_run(data)
    return run, lineage_of(data), StagePlaces(run), document


def reference(name: str) -> dict:
    return reference_of(f"sample_runs/{name}.json")


@pytest.mark.parametrize("name", SAMPLES)
def test_chain_timeline_and_fed_are_the_footprintjs_slices_of_every_key(name):
    run, lineage, places, _ = opened(name)
    for key, parts in reference(name).items():
        view = where_from(lineage.lineage, places, key)
        nodes = parts["backward"].get("nodes", {})
        assert [row.runtime_stage_id for row in view.chain] == list(nodes)
        assert [row.depth for row in view.chain] == [n["depth"] for n in nodes.values()]
        assert [row.depth for row in view.chain] == sorted(row.depth for row in view.chain)
        moments = parts["timeline"].get("moments", [])
        assert [(row.commit, row.what, row.runtime_stage_id) for row in view.timeline] == [
            (m["commitIdx"], m["verb"] if m["kind"] == "write" else "read", m["runtimeStageId"])
            for m in moments]
        fed = parts["forward"].get("nodes", [])[1:]
        assert [(row.runtime_stage_id, row.what) for row in view.fed] == [
            (n["runtimeStageId"], f"wrote {n['key'].replace(chr(31), '/')}") for n in fed]


def test_the_writer_of_a_key_heads_its_chain_named_by_the_key():
    run, lineage, places, _ = opened("llmcall-single")
    view = where_from(lineage.lineage, places, "answer")
    writer = reference("llmcall-single")["answer"]["backward"]["writerId"]
    assert view.chain[0].runtime_stage_id == writer == "sf-llm-call#1"
    assert view.chain[0].what == "wrote answer"
    assert view.chain[0].stage_name == "LLM"


def test_a_subflow_stage_is_placed_on_the_last_step_it_ran():
    """The LLM subflow (sf-llm-call#1) wrote the answer as it exited: the step
    showing its model call's end, the run's last step (llm→user)."""
    run, lineage, places, _ = opened("llmcall-single")
    steps = run.root_steps()
    view = where_from(lineage.lineage, places, "answer")
    place = view.chain[0].place
    assert (place.path, place.index, place.count) == (("__root__",), len(steps) - 1, len(steps))
    assert steps[place.index].label == "llm→user"


@pytest.mark.parametrize("name", ("agent-refund-multi-tools-error", "loop-refine-4-iterations"))
def test_a_stage_with_a_step_of_its_own_is_placed_on_it(name):
    """Where a step is anchored at the stage itself, the stage is placed there
    (or, for a subflow, inside it)."""
    run, lineage, places, _ = opened(name)
    anchored = {}
    for path in run.scopes().paths():
        for index, step in enumerate(run.scope("lens", path).steps):
            anchored.setdefault(step.anchor.runtime_stage_id, set()).add((path, index))
    checked = 0
    for key in reference(name):
        for row in where_from(lineage.lineage, places, key).chain:
            if row.runtime_stage_id in anchored:
                where = (row.place.path, row.place.index)
                # A subflow's stage is shown by its own step or, drilled in, by
                # the last step it ran (a scope below that step's).
                assert where in anchored[row.runtime_stage_id] or any(
                    len(where[0]) > len(path) and where[0][:len(path)] == path
                    for path, _ in anchored[row.runtime_stage_id])
                checked += 1
    assert checked > 0


def test_the_step_of_a_stage_no_event_carries_is_none_and_said():
    """llmcall-single's client#9 read the answer but carries no event (the JSON says so)."""
    run, lineage, places, document = opened("llmcall-single")
    carried = {e["meta"].get("runtimeStageId") for e in document["events"]}
    assert "client#9" not in carried
    view = where_from(lineage.lineage, places, "answer")
    [read] = [row for row in view.timeline if row.what == "read"]
    assert read.runtime_stage_id == "client#9" and read.place is None
    assert any("no step" in note for note in view.notes)


def test_the_notes_state_the_reads_coverage_of_the_recording():
    run, lineage, places, _ = opened("agent-refund-multi-tools-error")
    parts = reference("agent-refund-multi-tools-error")["llmLatestContent"]
    coverage = parts["backward"]["readsCoverage"]
    assert 0 < coverage["stepsWithReads"] < coverage["steps"]
    view = where_from(lineage.lineage, places, "llmLatestContent")
    assert (f"Reads were recorded for {coverage['stepsWithReads']} of {coverage['steps']} "
            "stages") in " ".join(view.notes)


def test_the_answer_key_holds_the_final_answer_text_of_the_model_call():
    """llmcall-single: the last llm_end event's content is what sharedState's
    ``answer`` holds, and the run's final answer."""
    run, lineage, _, document = opened("llmcall-single")
    [end] = [e for e in document["events"] if e["type"].endswith("llm_end")]
    text = end["payload"]["content"]
    holding = [k for k, v in document["snapshot"]["sharedState"].items() if v == text]
    assert holding == ["answer"]
    assert answer_key(lineage.lineage, run.facts.final_answer, lineage.shared_state) == "answer"


@pytest.mark.parametrize("name", ("loop-refine-4-iterations", "conditional-routes-to-agent"))
def test_the_answer_key_is_the_one_whose_recorded_value_is_the_answer(name):
    run, lineage, _, document = opened(name)
    answer = run.facts.final_answer
    holding = [k for k, v in document["snapshot"]["sharedState"].items() if v == answer]
    assert len(holding) == 1
    assert answer_key(lineage.lineage, answer, lineage.shared_state) == holding[0]


def test_no_answer_key_when_no_recorded_value_equals_the_answer():
    run, lineage, _, document = opened("parallel-3-reviewers")
    answer = run.facts.final_answer
    assert answer not in document["snapshot"]["sharedState"].values()
    assert answer_key(lineage.lineage, answer, lineage.shared_state) is None
    assert answer_key(lineage.lineage, None, lineage.shared_state) is None


def test_the_default_key_of_a_step_is_one_its_stage_wrote():
    run, lineage, _, document = opened("agent-refund-multi-tools-error")
    log = document["snapshot"]["commitLog"]
    for step in run.root_steps():
        rid = step.anchor.runtime_stage_id
        wrote = [t["path"] for c in log if c.get("runtimeStageId") == rid for t in c["trace"]]
        assert keys_written_at(lineage.lineage, rid) == list(dict.fromkeys(wrote))
        assert default_key(lineage.lineage, rid) == (wrote[-1] if wrote else None)


def test_the_final_step_opens_on_the_answer_key_other_steps_on_their_own():
    run, lineage, _, _ = opened("llmcall-single")
    answer = run.facts.final_answer
    assert key_for_step(lineage, "client#0", final_step=True, final_answer=answer) == "answer"
    assert key_for_step(lineage, "client#0", final_step=False,
                        final_answer=answer) == "iteration"  # client#0 wrote userMessage, iteration
    assert key_for_step(lineage, "nowhere#3", final_step=False, final_answer=answer) == "answer"


def test_a_file_without_a_commit_log_has_no_lineage():
    data, document = sample("llmcall-single")
    del document["snapshot"]["commitLog"]
    assert lineage_of(json.dumps(document).encode()) is None
    stream = "\n".join(json.dumps(event) for event in document["events"]).encode()
    assert lineage_of(stream) is None
    assert "commit log" in NO_COMMIT_LOG

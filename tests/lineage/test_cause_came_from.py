"""Lineage as evidence: a cause resting on the answer names the stages its values came from.

``footprint-lens causes`` gives such a cause ``came_from``: the backward
slice of the state key whose write holds the answer, in run order, each
stage with its step. Every expected value here comes from the recording
itself (the family's facts.json for the answer, the snapshot's commit log
for the key and the run order) or from footprintjs 9.24.0's own slice of
that key (the pinned references), never from Lens.
"""

from __future__ import annotations

import argparse
import gzip
import json

import pytest

from family_facts import family_facts
from lineage_refs import ROOT, reference_of
from lens_cli import causes_command

ANSWER_CAUSES = ("answer repeats a contradicted memory", "answered without grounding")
CASES = ["hr-handbook-rag-outdated-policy", "ops-analyst-code-sessions-teardown-failed"]


def _path(case: str) -> str:
    return f"tests/data/families/{case}/recording.json.gz"


def _causes(path) -> list[dict]:
    return causes_command.run(argparse.Namespace(file=str(path), profile="lens"))


def _commit_log(path) -> list[dict]:
    return json.loads(gzip.decompress((ROOT / path).read_bytes()))["snapshot"]["commitLog"]


def _key_written_last_with(commits: list[dict], text: str) -> str:
    """The flat key whose write holds ``text`` in the last commit holding it."""
    found = None
    for bundle in commits:
        for part in ("overwrite", "updates"):
            for key, value in (bundle.get(part) or {}).items():
                if value == text:
                    found = key
    assert found is not None, "the answer is in the commit log"
    return found


@pytest.mark.parametrize("case", CASES)
def test_the_answer_cause_names_the_stages_of_the_key_holding_the_answer(case):
    path = _path(case)
    answer = family_facts(case)["expected"]["answer"]
    commits = _commit_log(path)
    key = _key_written_last_with(commits, answer)
    [cause] = [c for c in _causes(ROOT / path) if c["kind"] in ANSWER_CAUSES]
    assert cause["came_from_key"] == key
    # The stages are footprintjs's own backward slice of that key ...
    reference = reference_of(path)[key]["backward"]
    stages = cause["came_from"]
    assert {s["runtime_stage_id"] for s in stages} == set(reference["nodes"])
    assert {s["stage"] for s in stages} == {n["stageName"] for n in reference["nodes"].values()}
    # ... in run order: the order of their first commits in the log.
    first_commit = {}
    for position, bundle in enumerate(commits):
        first_commit.setdefault(bundle["runtimeStageId"], position)
    assert [first_commit[s["runtime_stage_id"]] for s in stages] == \
        sorted(first_commit[s["runtime_stage_id"]] for s in stages)
    # The last is the stage that wrote the answer; it is at a step.
    writer = [b for b in commits if b["runtimeStageId"] == reference["writerId"]][-1]
    assert stages[-1]["runtime_stage_id"] == reference["writerId"]
    assert stages[-1]["stage"] == writer["stage"]
    assert stages[-1]["step"] is not None
    # Reads were recorded for only some stages: the note says how many.
    coverage = reference["readsCoverage"]
    assert coverage["stepsWithReads"] < coverage["steps"]
    assert f"{coverage['stepsWithReads']} of {coverage['steps']} stages" in cause["came_from_note"]


def test_the_model_call_stage_is_placed_at_the_step_of_its_model_call():
    """CallLLM's step is the step whose model call ran at that stage."""
    from recorders.loading import load_path
    from lens.run import OpenRun
    from lens.scopes import ROOT as ROOT_SCOPE

    path = _path("hr-handbook-rag-outdated-policy")
    [cause] = [c for c in _causes(ROOT / path) if c["kind"] in ANSWER_CAUSES]
    steps = OpenRun(load_path(ROOT / path)).step_map("lens", ROOT_SCOPE).steps
    writer = cause["came_from"][-1]
    anchored = [n for n, step in enumerate(steps)
                if step.anchor.runtime_stage_id == writer["runtime_stage_id"]]
    assert writer["step"] == {"path": ["__root__"], "index": anchored[-1]}


def test_without_a_commit_log_the_cause_says_so_and_names_no_stage(tmp_path):
    path = _path("hr-handbook-rag-outdated-policy")
    document = json.loads(gzip.decompress((ROOT / path).read_bytes()))
    del document["snapshot"]["commitLog"]
    stripped = tmp_path / "no-commit-log.json"
    stripped.write_text(json.dumps(document), "utf-8")
    [cause] = [c for c in _causes(stripped) if c["kind"] in ANSWER_CAUSES]
    assert cause["came_from"] == [] and cause["came_from_key"] is None
    assert "no commit log" in cause["came_from_note"]


def test_an_answer_no_key_holds_names_no_stage(tmp_path):
    """The commit log's writes of the answer changed: no key holds its text."""
    case = "hr-handbook-rag-outdated-policy"
    answer = family_facts(case)["expected"]["answer"]
    document = json.loads(gzip.decompress((ROOT / _path(case)).read_bytes()))
    for bundle in document["snapshot"]["commitLog"]:
        for part in ("overwrite", "updates"):
            for key, value in (bundle.get(part) or {}).items():
                if value == answer:
                    bundle[part][key] = "something else"
    changed = tmp_path / "answer-in-no-key.json"
    changed.write_text(json.dumps(document), "utf-8")
    [cause] = [c for c in _causes(changed) if c["kind"] in ANSWER_CAUSES]
    assert cause["came_from"] == [] and cause["came_from_key"] is None
    assert cause["came_from_note"].startswith("No state key holds the answer's text")


def test_a_cause_resting_on_no_answer_has_no_came_from():
    causes = _causes(ROOT / _path("hr-handbook-rag-outdated-policy").replace(
        "hr-handbook-rag-outdated-policy", "field-ops-args-invalid-progress"))
    assert causes and all("came_from" not in cause for cause in causes)


def test_an_answer_of_an_earlier_run_names_no_stage_of_the_last_runs_log():
    """Each run counts its stages from 0, so an earlier run's model call has a
    stage id the last run's commit log also holds: it must not be traced there."""
    from recorders.catalogue import LLM_END
    from recorders.loading import load_path, read_path
    from lens.cause_lineage import EARLIER_RUN, came_from
    from lens.evidence.cause_record import WARNING, LikelyCause
    from lens.lineage_view import StagePlaces, lineage_of
    from lens.run import OpenRun
    from lens.value_keys import ValueIndex

    path = ROOT / "tests/corpus/multirun-agent-two-runs/recording.json"
    document = json.loads(path.read_text("utf-8"))
    ends = [e["meta"]["runId"] for e in document["events"] if e.get("type") == LLM_END]
    run = OpenRun(load_path(path))
    lineage = lineage_of(read_path(path))
    places = StagePlaces(run)
    for call in run.evidence.calls:
        cause = LikelyCause("test", WARNING, "", "", None, None, answer_call=call.id)
        came = came_from(cause, run.evidence, lineage, ValueIndex(lineage.lineage), places)
        if ends[call.id] == ends[0]:  # the earlier run's
            assert came.stages == () and came.note == EARLIER_RUN
        else:
            assert came.stages and came.key is not None

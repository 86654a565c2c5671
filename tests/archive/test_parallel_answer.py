"""A root Parallel's final answer in the archive is the merged answer the
composition returned, so a phrase from any branch finds the run; not the
answer of whichever branch finished last."""

from __future__ import annotations

import gzip
import json

import pytest

from archive.rows import index_file
from lens.evidence.run_end import BRANCH_ANSWERS_NOTE
from corpus_files import read_bytes, recording_path
from family_files import family_recording


def document(data: bytes) -> dict:
    return json.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)


def branch_answers(events: list) -> list[str]:
    return [e["payload"]["finalContent"] for e in events
            if e["type"].endswith("agent.turn_end")
            and e["meta"].get("compositionPath", [""])[0].startswith("Parallel:")]


@pytest.mark.parametrize("data", [
    family_recording("vendor-due-diligence-parallel").read_bytes(),
    read_bytes(recording_path("nested-parallel-of-agents")),
    read_bytes(recording_path("parallel-3-reviewers")),
], ids=["vendor-dd", "nested-parallel-of-agents", "parallel-3-reviewers"])
def test_the_final_answer_is_the_merged_answer(data):
    recording = document(data)
    boundary = next(r["data"] for r in recording["snapshot"]["recorders"]
                    if r["name"] == "BoundaryEvents")
    merged = [e["payload"] for e in boundary if e["type"] == "run.exit"][-1]
    [run] = index_file("run.json", data).tables["runs"]
    assert run["final_answer"] == merged
    # Each merge function here keeps each branch's answer (cut): a phrase of each is found.
    # (parallel-3-reviewers' branches are plain model calls: no agent turn to read.)
    assert all(answer[:25] in run["final_answer"] for answer in branch_answers(recording["events"]))


def test_without_the_merged_answer_every_branch_answer_is_kept_and_said_so():
    data = family_recording("vendor-due-diligence-parallel").read_bytes()
    recording = document(data)
    for entry in recording["snapshot"]["recorders"]:
        if entry["name"] == "BoundaryEvents":
            for event in entry["data"]:
                if event["type"] == "run.exit":
                    event["payload"] = {"not": "text"}
    [run] = index_file("run.json", json.dumps(recording).encode()).tables["runs"]
    assert run["final_answer"].startswith(BRANCH_ANSWERS_NOTE)
    for answer in branch_answers(recording["events"]):
        assert answer in run["final_answer"]

"""A decision shows the rationale its recording carries, in both projections.

The rationale of a Conditional (``composition.route_decided``) or of an
agent's route (``agent.route_decided``) travels in a typed event at the
decision's own stage. The expected rationales are read straight from the
file's typed events here, not through the evidence index the view uses.
"""

from __future__ import annotations

import pytest

from corpus_files import case_names, read_bytes, recording_path
from lens.run import open_run
from lens.step_detail import describe_step
from recorders.projections import PROFILES
from recorders.run_step import DECIDE


def recorded_rationales(typed_events: list) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for event in typed_events:
        if not isinstance(event, dict) or not str(event.get("type", "")).endswith("route_decided"):
            continue
        payload, meta = event.get("payload"), event.get("meta")
        if isinstance(payload, dict) and isinstance(meta, dict) \
                and isinstance(payload.get("rationale"), str) and payload["rationale"]:
            found.setdefault(meta.get("runtimeStageId"), set()).add(payload["rationale"])
    return found


@pytest.mark.parametrize("case", case_names())
def test_every_decision_with_a_recorded_rationale_shows_it(case):
    run = open_run(read_bytes(recording_path(case)))
    expected = recorded_rationales(run.recording.typed_events)
    checked = 0
    for profile in PROFILES:
        scopes = run.scopes(profile)
        for path in scopes.paths():
            for step in scopes.get(path).steps:
                if step.kind != DECIDE or step.runtime_stage_id not in expected:
                    continue
                detail = describe_step(step, run.evidence)
                shown = [t.text.full for t in detail.texts if t.title == "Rationale"]
                assert shown and shown[0] in expected[step.runtime_stage_id], \
                    (profile, step.runtime_stage_id, shown)
                assert not any("rationale" in note for note in detail.absent)
                checked += 1
    if any(expected.values()):
        assert checked, "the recording carries rationales but no decision step was checked"


def test_a_conditional_shows_its_predicate_in_both_projections():
    run = open_run(read_bytes(recording_path("conditional-triage-llmcall")))
    for profile in PROFILES:
        decisions = [s for s in run.root_steps(profile) if s.kind == DECIDE]
        assert decisions, profile
        texts = [t.text.full for t in describe_step(decisions[0], run.evidence).texts]
        assert any("returned true" in text for text in texts), (profile, texts)

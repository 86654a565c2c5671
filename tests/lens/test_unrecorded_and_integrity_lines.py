"""Two lines above the likely causes: the integrity ledger in one line, and,
for a composition, which families its file cannot hold.

Expected words come from the recordings' own events and the family corpus's
README (what a composition passes to the recording), not from the code's tables.
"""

from __future__ import annotations

import gzip
import json

from family_files import family_recording
from lens.evidence.causes import integrity_line
from lens.run import open_run
from lens.summary import unrecorded_in_composition

P = "agentfootprint."


def opened(case: str):
    data = gzip.decompress(family_recording(case).read_bytes())
    return open_run(data), json.loads(data)["events"]


def test_the_dev_posture_ledger_is_one_line_naming_what_ran_and_found():
    run, events = opened("san-port-unsupported-claim-dev-posture")
    rows = next(e["payload"]["rows"] for e in events if e["type"] == P + "integrity.disposition")
    line = integrity_line(run.evidence)
    assert line.startswith("Integrity checks (posture: dev): ")
    ran = sum(1 for row in rows if row.get("checked"))
    assert f"{ran} of {len(rows)} checks ran" in line
    assert "unsupported-claim found 1" in line
    assert "\n" not in line


def test_a_run_without_a_ledger_has_no_integrity_line():
    run, events = opened("vendor-due-diligence-parallel")
    assert not any(e["type"] == P + "integrity.disposition" for e in events)
    assert integrity_line(run.evidence) is None


def test_a_parallel_of_agents_names_the_families_its_file_cannot_hold():
    run, events = opened("vendor-due-diligence-parallel")
    notice = unrecorded_in_composition(run.recording.typed_counts)
    lost = notice.rpartition(": ")[2].rstrip(".").split(", ")
    # The README's list of what fires inside the agents but is not recorded.
    assert {"permission", "credential", "tools", "integrity", "cost", "memory",
            "skills"} <= set(lost)
    # What a composition passes through is never said to be lost, nor a family the file holds;
    # a Parallel passes fallbacks and errors too.
    assert not {"stream", "agent", "composition", "context", "error", "recovery"} & set(lost)
    assert "Parallel" in notice


def test_a_loop_holding_an_app_evaluation_does_not_call_evaluations_lost():
    run, events = opened("newsletter-loop-eval-below-threshold")
    assert any(e["type"].startswith(P + "eval.") for e in events)
    notice = unrecorded_in_composition(run.recording.typed_counts)
    lost = notice.rpartition(": ")[2].rstrip(".").split(", ")
    assert "eval" not in lost and "permission" in lost
    assert "error" in lost  # only a Parallel passes error events


def test_a_single_agent_has_no_composition_notice():
    run, events = opened("payments-permission-halt")
    assert not any(e["type"].startswith(P + "composition.") for e in events)
    assert unrecorded_in_composition(run.recording.typed_counts) is None

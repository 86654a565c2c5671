"""The skill evaluation before a model call reads as rows and words, not JSON."""

from __future__ import annotations

import gzip
import json

from family_files import family_recording
from lens.skill_evaluation import SkillRow, skill_evaluation

EVALUATED = "agentfootprint.context.evaluated"


def first_evaluation(case: str) -> dict:
    recording = json.loads(gzip.decompress(family_recording(case).read_bytes()))
    return next(e["payload"] for e in recording["events"] if e["type"] == EVALUATED)


def test_an_entry_skill_is_active_via_its_route_with_its_tools_and_the_rest_listed():
    evaluation = skill_evaluation(first_evaluation("billing-graph-declared-edge-wins"))
    assert evaluation.summary == "1 active of 3 judged, 0 skipped."
    assert evaluation.rows[0] == SkillRow("intake", "active", "via entry", "lookup_subscription",
                                          "Entry: look up the subscription.")
    assert [(r.skill, r.status) for r in evaluation.rows[1:]] == [
        ("payment-methods", "not active"), ("renewals", "not active")]
    assert evaluation.cursor == ("The skill graph's cursor moved to intake by entry; "
                                 "reachable next: payment-methods, renewals.")


def test_a_parked_map_is_skipped_with_its_reason_in_the_frameworks_words():
    recording = json.loads(gzip.decompress(
        family_recording("zone-audit-map-parked").read_bytes()))
    payload = next(e["payload"] for e in recording["events"]
                   if e["type"] == EVALUATED and e["payload"].get("skippedDetails"))
    evaluation = skill_evaluation(payload)
    parked = [r for r in evaluation.rows if r.skill == "zone-audit"]
    assert parked and parked[0].status == "skipped"
    assert parked[0].why.startswith("parked: its map is parked")


def test_odd_values_are_shown_as_text_and_missing_parts_leave_no_row():
    evaluation = skill_evaluation({"activeIds": [7, {"id": "x"}], "skippedDetails": "nope",
                                   "cursorMove": None})
    assert [r.skill for r in evaluation.rows] == ["7", '{"id":"x"}']
    assert evaluation.summary == "2 active, 0 skipped."
    assert evaluation.cursor is None and evaluation.superseded == ()

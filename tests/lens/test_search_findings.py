"""Search finds the framework's own words: each verdict's and warning's
explaining fields are searchable texts of the event's family, linked to its step."""

from __future__ import annotations

import gzip
import json

from family_files import family_recording
from lens.evidence.search import search, search_families
from lens.run import open_run
from recorders.profiles import DEFAULT_PROFILE

CASE = "payments-permission-halt"
RULE = "TRS-11"  # the policy rule that halted the external email (facts.json)


def opened():
    data = gzip.decompress(family_recording(CASE).read_bytes())
    return open_run(data), json.loads(data)["events"]


def test_the_halting_rule_is_found_as_a_permission_verdict_with_a_step():
    run, events = opened()
    found = search(run.evidence, RULE, run.step_map(DEFAULT_PROFILE, ()))
    assert found.total >= 1
    hit = found.hits[0]
    assert hit.kind == "framework verdict" and hit.error
    assert hit.label == "permission.check"
    assert "rationale: external email after reading vendor banking data" in hit.full_value
    assert hit.nav is not None and hit.nav.step is not None
    # The same hit through the family filter, and none through another family.
    assert search(run.evidence, RULE, families=["permission"]).total == found.total
    assert search(run.evidence, RULE, families=["stream"]).total == 0


def test_a_family_with_only_verdicts_is_offered_by_the_filter():
    run, events = opened()
    permission_events = sum(1 for e in events if e["type"].startswith("agentfootprint.permission."))
    offered = dict(search_families(run.evidence))
    assert 0 < offered["permission"] <= permission_events


def test_filtering_a_verdict_family_finds_the_halt():
    run, _ = opened()
    halted = search(run.evidence, "halt", families=["permission"])
    assert "permission.halt" in {hit.label for hit in halted.hits}
    assert all(hit.kind in ("framework verdict", "framework warning") for hit in halted.hits)

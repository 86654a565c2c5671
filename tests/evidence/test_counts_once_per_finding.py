"""A count in a cause's headline counts findings, not passes: the same absence
found again on a repeated call is one finding, and two different decisions of
a governance chain are two findings told apart, never one said "twice".
Checked on the family recordings against facts.json."""

from __future__ import annotations

from family_facts import family_facts
from family_files import family_recording
from lens.evidence.causes import likely_causes
from recorders.evidence import build_evidence_index
from recorders.loading import load_path

_REPEATS = ("twice", "times)")


def _index(case: str):
    return build_evidence_index(load_path(str(family_recording(case))))


def _events_of(case: str, short: str) -> list[tuple[int, dict]]:
    events = load_path(str(family_recording(case))).typed_events
    return [(i, e) for i, e in enumerate(events) if e["type"].endswith(short)]


def test_an_absence_found_again_on_a_repeated_call_is_told_once():
    case = "replication-health-coverage-gaps"
    absences = _events_of(case, "tools.absent")
    assert len(absences) == family_facts(case)["eventTypes"]["agentfootprint.tools.absent"] == 2
    searched = {e["payload"]["lookedFor"] for _, e in absences}
    assert len(searched) == 1  # the facts: the same lookup asked again with identical args
    [cause] = [c for c in likely_causes(_index(case)) if set(c.events) & {i for i, _ in absences}]
    assert set(cause.events) == {i for i, _ in absences}
    payload = absences[0][1]["payload"]
    assert f"{payload['toolName']} found nothing for “{payload['lookedFor']}”" in cause.headline
    assert payload["notChecked"][0]["what"] in cause.headline
    assert not any(word in cause.headline for word in _REPEATS)
    assert "not offered" not in cause.headline  # the tool was offered; it found nothing


def test_different_middleware_decisions_are_each_told_in_their_own_words():
    case = "refund-middleware-pii-and-ceiling"
    index = _index(case)
    warned = [f for f in index.findings if f.short == "middleware.decision"
              and f.kind == "warning"]
    assert len({(f.payload["middleware"], f.payload["outcome"]) for f in warned}) == 2
    [cause] = [c for c in likely_causes(index) if set(c.events) == {f.event_index for f in warned}]
    for finding in warned:
        assert finding.payload["why"] in cause.headline
    assert "issue_refund" in cause.headline and "a message" in cause.headline
    assert not any(word in cause.headline for word in _REPEATS)

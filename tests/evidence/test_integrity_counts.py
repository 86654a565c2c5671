"""A check's count in the integrity line is per distinct defect, not per pass:
the disposition rows count every re-detection, while the framework files each
defect once per run as an integrity.context_error (families/README.md)."""

from __future__ import annotations

import copy

from evidence_events import event
from family_facts import family_facts
from family_files import family_recording
from lens.evidence.causes import integrity_line
from recorders.evidence import build_evidence_index, build_from_events
from recorders.loading import load_path

SAN_PORT = "san-port-unsupported-claim-dev-posture"
P = "agentfootprint."


def _rows(check: str, seam: str, detections: int) -> list[dict]:
    return [{"check": check, "seam": seam, "checked": detections, "findings": detections,
             "notApplicable": 0, "unreachable": 0}]


def test_the_real_runs_one_defect_is_found_once():
    index = build_evidence_index(load_path(str(family_recording(SAN_PORT))))
    [error] = family_facts(SAN_PORT)["expected"]["contextErrors"]
    assert f"{error['kind']} found 1" in integrity_line(index)


def test_a_defect_re_detected_on_five_passes_is_found_once():
    # The real run's context_error and disposition, its row now counting the
    # one defect on each of five passes, as a longer run's rows do.
    events = copy.deepcopy(load_path(str(family_recording(SAN_PORT))).typed_events)
    [disposition] = [e for e in events if e["type"] == P + "integrity.disposition"]
    [row] = [row for row in disposition["payload"]["rows"] if row["findings"]]
    row["findings"] = row["checked"] = 5
    line = integrity_line(build_from_events(events))
    assert f"{row['check']} found 1" in line
    assert "found 5" not in line


def test_two_defects_of_one_check_are_found_twice_and_a_canary_is_not_one():
    def filed(subject: str, **extra) -> dict:
        return event("integrity.context_error",
                     {"kind": "invariant-violation", "seam": "wire", "subjects": [subject],
                      "witnesses": [], "message": f"{subject} both up and down", **extra})
    events = [filed("port-1"), filed("port-2"), filed("canary", synthetic=True),
              event("integrity.disposition",
                    {"posture": "dev", "rows": _rows("invariant-violation", "wire", 7)})]
    [ledger] = build_from_events(events).integrity
    assert ledger.found == (("invariant-violation", 2),)


def test_a_row_whose_defects_the_file_lacks_says_how_often_it_detected():
    # Inside a composition integrity.* events are not recorded; a ledger that
    # reached the file alone cannot tell defects from re-detections.
    events = [event("integrity.disposition",
                    {"posture": "observe", "rows": _rows("unsupported-claim", "claim", 5)})]
    [ledger] = build_from_events(events).integrity
    assert ledger.found == ()
    assert "unsupported-claim detected 5 times" in ledger.summary

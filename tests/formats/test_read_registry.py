"""The file-kind registry (recorders/read/): one record per kind, asked in
order, and the kinds' modules below the loader (no import circle).

Also: a BoundaryRecorder replay's state (``commits`` and/or
``subflowResults``) with no boundary event log is refused by what it is."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from lens.summary import SOURCE_KINDS
from recorders.errors import RecordingError
from recorders.loading import load_file
from recorders.read import names
from recorders.read.not_runs import NotARun
from recorders.read.registry import KINDS, bytes_kind, document_kind, kind_named

ROOT = Path(__file__).resolve().parents[2]
KIND_NAMES = {value for key, value in vars(names).items()
              if key.isupper() and isinstance(value, str)}


def test_every_kind_has_one_record_under_its_name():
    assert [kind.name for kind in KINDS] == list(dict.fromkeys(k.name for k in KINDS))
    assert {kind.name for kind in KINDS} == KIND_NAMES
    for kind in KINDS:
        assert kind_named(kind.name) is kind
        assert (kind.sniff is None) == (kind.read is None)
        assert (kind.sniff_bytes is None) == (kind.read_bytes is None)


def test_every_kind_is_described_for_a_person():
    assert set(SOURCE_KINDS) == KIND_NAMES


@pytest.mark.parametrize("document, kind", [
    ({"snapshot": {}, "events": []}, names.RECORDING),
    ({"format": "agentfootprint.recording.v1", "recording": {}}, names.ENVELOPE),
    ({"format": "agentfootprint.recording.packed.v1", "recording": {}, "values": []},
     names.PACKED),
    ([], names.BOUNDARY_LIST),
    ({"type": "agentfootprint.stream.llm_start", "payload": {}, "meta": {}}, names.EVENT_STREAM),
    ({"version": 1, "events": [], "redaction": "none"}, names.TRACE),
    ({"format": 1, "meta": {}, "payload": {}}, names.ARTIFACT_RECORDING),
], ids=lambda value: value if isinstance(value, str) else "")
def test_a_document_is_read_by_the_first_kind_that_claims_it(document, kind):
    assert document_kind(document).name == kind


def test_a_trace_is_not_taken_for_the_recording_its_events_look_like():
    # A Trace has "events" too: its record is asked before the recording's.
    order = [kind.name for kind in KINDS]
    assert order.index(names.TRACE) < order.index(names.RECORDING)
    assert order.index(names.AUDIT_BUNDLE) < order.index(names.ENVELOPE)
    assert order.index(names.PACKED) < order.index(names.ENVELOPE)


def test_bytes_kinds_are_sniffed_before_any_parse():
    assert bytes_kind(b"PK\x03\x04rest").name == names.BUG_REPORT
    line = json.dumps({"type": "agentfootprint.stream.llm_start", "payload": {}, "meta": {}})
    assert bytes_kind((line + "\n" + line + "\n").encode()).name == names.EVENT_STREAM
    assert bytes_kind(b'{"snapshot": {}, "events": []}') is None


def test_a_document_no_kind_reads_is_refused_naming_every_kind():
    with pytest.raises(RecordingError, match="expected one of the files Lens reads: .*; "
                                             "found an object with a, b"):
        document_kind({"a": 1, "b": 2})
    with pytest.raises(RecordingError, match="found a number"):
        document_kind(3)


# ─── A replay's state without events ───────────────────────────────────


@pytest.mark.parametrize("document, held", [
    ({"commits": [{"stageId": "seed", "updates": {"x": 1}}], "subflowResults": {}},
     "commits and subflowResults"),
    ({"commits": []}, "commits"),
    ({"subflowResults": {"sf-1": {"result": 2}}, "runId": "r-1"}, "subflowResults"),
], ids=["both", "commits", "subflow-results"])
def test_a_replays_state_without_events_is_refused_saying_what_it_is(document, held):
    with pytest.raises(NotARun) as refused:
        load_file(json.dumps(document).encode())
    message = str(refused.value)
    assert message.startswith(f"this holds a run's {held} (the state a BoundaryRecorder "
                              "replay reads) but no boundary event log")
    assert "open the run's recording, envelope, event stream, Trace or bug report" in message


def test_a_recording_beside_a_replays_state_still_opens():
    # With its events, the file is a recording: the state keys do not make it a refusal.
    loaded = load_file(json.dumps({"commits": [], "snapshot": {}, "events": []}).encode())
    assert loaded.kind == names.RECORDING


# ─── No import circle ──────────────────────────────────────────────────


def _imported(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    return modules


@pytest.mark.parametrize("path", sorted((ROOT / "recorders" / "read").glob("*.py"))
                         + [ROOT / "recorders" / name for name in
                            ("validation.py", "audit.py", "bug_report.py")],
                         ids=lambda path: f"{path.parent.name}/{path.name}")
def test_the_kinds_and_what_they_use_never_import_the_loader(path):
    assert "recorders.loading" not in _imported(path)

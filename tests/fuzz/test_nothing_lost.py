"""Nothing lost: the loader's counts equal the events in the file, on every corpus recording.

The file is counted independently here with plain ``json`` (no loader code),
and both counts are compared with ``expected.json → counts``.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from corpus_files import case_names, load_expected, recording_path
from recorders.cli import info_report
from recorders.loading import load_path, load_recording



def _plain_count(path: Path) -> tuple[Counter, Counter]:
    """Typed and boundary events by type, read with nothing but gzip and json."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))  # one file nests 1,213 deep
    doc = json.loads(raw)
    if doc.get("format") == "agentfootprint.recording.v1":
        doc = doc["recording"]
    typed = Counter(e["type"] for e in doc["events"])
    (log,) = [r["data"] for r in doc["snapshot"]["recorders"] if r.get("name") == "BoundaryEvents"]
    boundary = Counter(e["type"] for e in log)
    return typed, boundary


@pytest.mark.parametrize("case", case_names())
def test_counts_equal_the_file_and_the_reference(case):
    path = recording_path(case)
    typed, boundary = _plain_count(path)
    expected = load_expected(case)["counts"]
    recording = load_path(path)

    assert recording.typed_counts == dict(typed) == expected["typedEventsByType"]
    assert recording.boundary_counts == dict(boundary) == expected["boundaryEventsByType"]
    assert sum(recording.typed_counts.values()) == len(recording.typed_events) \
        == sum(typed.values()) == expected["typedEvents"]
    assert sum(recording.boundary_counts.values()) == len(recording.boundary_events) \
        == sum(boundary.values()) == expected["boundaryEvents"]
    # What `python -m recorders info` reports is the same figure.
    info = info_report(recording)
    assert info["typedEvents"] == sum(typed.values())
    assert info["boundaryEvents"] == sum(boundary.values())
    assert info["typedEventsByType"] == dict(typed)
    assert info["boundaryEventsByType"] == dict(boundary)


def test_unknown_and_duplicated_events_are_counted_not_dropped():
    path = recording_path("llmcall-single")
    doc = json.loads(path.read_bytes())
    log = doc["snapshot"]["recorders"][0]["data"]
    assert doc["snapshot"]["recorders"][0]["name"] == "BoundaryEvents"
    doc["events"] += [{"type": "agentfootprint.future.kind", "meta": {}, "payload": {}}] * 3
    log += [{**log[1], "type": "subflow.teleport"}] * 2 + [log[1]]  # unknown ×2, duplicate ×1
    typed, boundary = Counter(e["type"] for e in doc["events"]), Counter(e["type"] for e in log)

    recording = load_recording(json.dumps(doc))
    assert recording.typed_counts == dict(typed)
    assert recording.boundary_counts == dict(boundary)
    assert recording.unknown_typed_types == {"agentfootprint.future.kind": 3}
    assert recording.unknown_boundary_types == {"subflow.teleport": 2}
    (gap,) = [g for g in recording.gaps if g.code == "unknown-types"]
    assert "5 events" in gap.message and "subflow.teleport ×2" in gap.message

"""Hand-built snapshots: each equals footprintjs 9.24.0 (references/cases),
and says what it should -- a key never written, nested paths, an array grown
by two stages, reads not recorded, budgets cut -- plus the clear error of a
file with nothing to trace through."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from lineage_refs import ROOT, case, case_names, case_reference
from recorders.errors import RecordingError
from recorders.loading import load_path
from recorders.lineage import DELIM, Lineage, NoCommitLog, normalise_key, snapshot_of, \
    snapshot_of_path


def lineage_of(name: str) -> Lineage:
    return Lineage(case(name)["snapshot"])


@pytest.mark.parametrize("name", case_names())
def test_each_case_equals_the_footprintjs_reference(name):
    doc = case(name)
    lineage = Lineage(doc["snapshot"])
    keys = lineage.keys() + [normalise_key(key) for key in doc["extra_keys"]]
    assert {key: lineage.of_key(key) for key in keys} == case_reference(name)


def test_a_key_never_written_is_said_so_in_each_direction():
    lineage = lineage_of("never-written")
    assert lineage.backward("nobody")["missing"] == "never-written"
    forward = lineage.forward("nobody")
    assert forward["missing"] == "never-written" and "nodes" not in forward
    assert forward["notes"][0]["code"] == "unknown-key"
    assert "unknown key 'nobody'" in forward["notes"][0]["detail"]
    assert lineage.timeline("nobody")["missing"] == "never-written"
    assert lineage.births("nobody") == {"key": "nobody", "missing": "never-written"}
    # Read but never written: known (it was read), a value from before the run.
    seeded = lineage.forward("seeded")
    assert seeded["nodes"][0]["origin"] == "pre-run" and seeded["nodes"][0]["reads"]
    assert [note["code"] for note in seeded["notes"]] == ["pre-run-origin",
                                                          "conservative-fed-edges"]
    assert lineage.backward("seeded")["missing"] == "never-written"


def test_nested_paths_are_joined_with_the_logs_separator():
    lineage = lineage_of("nested-paths")
    address = "customer" + DELIM + "address"
    assert DELIM == "\u001f" and address in lineage.keys()
    assert lineage.of_key(["customer", "address"]) == lineage.of_key(address)
    backward = lineage.backward(address)
    assert backward["writerId"] == "move#2"
    # move read verdict (check), which check wrote after reading both customer fields.
    assert [(edge["from"], edge["to"], edge["key"]) for edge in backward["edges"]] == [
        ("move#2", "check#1", "verdict"), ("check#1", "seed#0", address),
        ("check#1", "seed#0", "customer" + DELIM + "name")]
    moments = lineage.timeline(address)["moments"]
    assert [(m["kind"], m["commitIdx"]) for m in moments] == [
        ("write", 0), ("read", 1), ("write", 2), ("read", 3)]
    assert moments[3]["fromWriteIdx"] == 2


def test_an_array_appended_by_two_stages_knows_each_elements_birth():
    births = lineage_of("array-two-stages").births("history")
    assert births["length"] == 4 and births["atIdx"] == 5
    assert [(b["runtimeStageId"], b["basis"]) for b in births["births"]] == [
        ("init#0", "whole-value"), ("model#1", "append-verb"), ("tool#2", "append-verb"),
        ("model#3", "prefix-inference")]
    report = lineage_of("array-two-stages").report()
    assert "births" not in report["scalar"] and "births" not in report["gone"]  # arrays only
    labels = report["labels"]["births"]["births"]
    assert [b["value"] for b in labels] == ["x", 2, "y", False, {"o": 1}]  # a merge unions


def test_reads_not_recorded_and_budgets_are_stated():
    lineage = lineage_of("no-reads")
    assert lineage.backward("x")["readsCoverage"] == {"steps": 2, "stepsWithReads": 0}
    assert [n["code"] for n in lineage.forward("x")["notes"]] == ["reads-not-recorded"]
    assert lineage.backward("x")["nodes"]["a#0"]["incompleteSources"] == ["args"]
    assert lineage.forward("typo")["nodes"][0]["origin"] == "pre-run"
    cut = lineage_of("truncation")
    assert cut.backward("k29")["truncated"] == {"byDepth": True, "byNodes": False}
    assert cut.backward("total")["truncated"] == {"byDepth": False, "byNodes": True}
    assert len(cut.backward("total")["nodes"]) == 100


def test_per_write_provenance_gives_exact_edges_and_exclusions():
    forward = lineage_of("per-write").forward("q")
    fed = {node["key"] for node in forward["nodes"][1:] if node["depth"] == 1}
    assert fed == {"s", "out"}  # r's write did not read q: no edge


def test_an_empty_log_is_a_result_not_an_error():
    assert lineage_of("empty-log").backward("x")["missing"] == "empty-log"
    assert lineage_of("empty-log").keys() == []


@pytest.mark.parametrize("document, says", [
    ({"events": []}, "has no snapshot"),
    ({"snapshot": {"sharedState": {}}, "events": []}, "has no commitLog"),
    ("boundary-list", "has no snapshot"),
    ("event-stream", "holds events only, no snapshot"),
])
def test_a_recording_without_a_commit_log_is_a_clear_error(document, says):
    if isinstance(document, str):
        recording = load_path(ROOT / "sample_runs" / "llmcall-single.json")
        events = (recording.boundary_events if document == "boundary-list"
                  else recording.typed_events)
        data = (json.dumps(events) if document == "boundary-list"
                else "\n".join(json.dumps(event) for event in events) + "\n").encode()
    else:
        data = json.dumps(document).encode()
    with pytest.raises(NoCommitLog, match=says) as raised:
        snapshot_of(data)
    assert isinstance(raised.value, RecordingError)  # status 2 on the command line


def test_a_malformed_commit_log_is_named_where_it_breaks():
    with pytest.raises(NoCommitLog, match=r"snapshot\.commitLog\[1\]"):
        Lineage({"commitLog": [{"trace": []}, {"trace": "no"}]})
    with pytest.raises(NoCommitLog, match="no snapshot"):
        Lineage(None)


def test_the_snapshot_comes_through_the_loader_gzipped_or_not(tmp_path):
    source = ROOT / "sample_runs" / "llmcall-single.json"
    packed = tmp_path / "run.json.gz"
    packed.write_bytes(gzip.compress(source.read_bytes()))
    assert snapshot_of_path(packed) == snapshot_of_path(source)
    with pytest.raises(RecordingError, match="cannot read"):
        snapshot_of_path(tmp_path / "absent.json")


def test_the_package_imports_no_ui_or_dataframe_library():
    code = ("import sys, recorders.lineage, recorders.lineage.lineage; "
            "print(sorted(m for m in ('streamlit', 'plotly', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert out.strip() == "[]"

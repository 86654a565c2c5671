"""The hash-chained audit bundle (agentfootprint.audit/1) of auditExport().

Expected hashes never come from the code under test: the sample bundles were
written by agentfootprint 9.62 itself, and the canonicalization cases and the
crafted bundle by a separate JavaScript reading of the rules run in Node
(tests/data/formats/audit-bundle/canonical/afp_cjson.js; how to rerun it is
at its top, and the last tests here rerun it when Node is installed).
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import re
import shutil
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from lens_cli.main import main as lens_main
from lens.run import open_run
from recorders.audit import (
    BOUNDED_PAYLOADS, GENESIS_TYPE, UNFINISHED_RUN, ZERO_HASH, canonical_json, canonical_json_walk,
    read_audit_bundle, record_hash,
)
from recorders.cli import main as recorders_main
from recorders.errors import RecordingError
from recorders.loading import load_file, load_recording

DATA = Path(__file__).resolve().parents[1] / "data" / "formats" / "audit-bundle"
CANONICAL = DATA / "canonical"
CASES = ("agent-tool", "agent-failing-tool", "parallel-agents")
SAMPLES = [(case, suffix) for case in CASES for suffix in ("", ".mid-run")]
TOKEN = "agentfootprint.stream.token"


def _bundle_path(case: str, suffix: str) -> Path:
    return DATA / case / f"audit-bundle{suffix}.json"


def _document(case: str = "agent-tool", suffix: str = "") -> dict:
    return json.loads(_bundle_path(case, suffix).read_text("utf-8"))


def _recording_events(case: str, suffix: str) -> list[dict]:
    return json.loads((DATA / case / f"recording-events{suffix}.json").read_text("utf-8"))["events"]


def _bytes(document: dict) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode("utf-8")


def _cli(*args: str, main=recorders_main) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


# ─── The samples agentfootprint wrote ─────────────────────────────────


@pytest.mark.parametrize("case,suffix", SAMPLES)
def test_each_sample_verifies_intact(case, suffix):
    document = _document(case, suffix)
    bundle = read_audit_bundle(document)
    assert bundle.chain_intact is True
    assert bundle.first_bad_record is None
    assert bundle.records == len(document["records"]) == document["header"]["recordCount"]
    assert bundle.check.status() == f"hash chain intact: {len(document['records'])} records"
    assert not bundle.check.segment


@pytest.mark.parametrize("case,suffix", SAMPLES)
def test_typed_events_are_the_records_in_order(case, suffix):
    records = _document(case, suffix)["records"]
    events = read_audit_bundle(_document(case, suffix)).typed_events
    assert [e["type"] for e in events] == [r["eventType"] for r in records]
    assert [e["payload"] for e in events] == [r["payload"] for r in records]
    for event, record in zip(events, records):
        # The export lifted meta.wallClockMs into the record's timestamp; it is put back.
        assert event["meta"] == {**record["meta"], "wallClockMs": record["timestamp"]}
    genesis = [e for e in events if e["type"] == GENESIS_TYPE]
    assert len(genesis) == 1 and events[0] is genesis[0]  # one run, anchored first


@pytest.mark.parametrize("case,suffix", SAMPLES)
def test_typed_events_match_the_recording_of_the_same_run_without_tokens(case, suffix):
    audit = [e for e in read_audit_bundle(_document(case, suffix)).typed_events
             if e["type"] != GENESIS_TYPE]
    recorded = [e for e in _recording_events(case, suffix) if e["type"] != TOKEN]
    assert [e["type"] for e in audit] == [e["type"] for e in recorded]
    assert [e["meta"] for e in audit] == [e["meta"] for e in recorded]
    # Bounded payloads keep every field; only what could echo content is replaced.
    assert [set(e["payload"]) for e in audit] == [set(e["payload"]) for e in recorded]


def test_bounded_payloads_are_markers_where_the_recording_has_content():
    audit = read_audit_bundle(_document("agent-tool")).typed_events
    starts = [e["payload"] for e in audit if e["type"] == "agentfootprint.stream.tool_start"]
    assert starts and all(p["args"].startswith("[keys: ") for p in starts)
    ends = [e["payload"] for e in audit if e["type"] == "agentfootprint.stream.tool_end"]
    assert ends and all(p["result"].startswith("[type: ") for p in ends)


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("case,suffix", SAMPLES)
def test_the_loader_opens_each_sample_as_an_audit_bundle(case, suffix, fast):
    document = _document(case, suffix)
    recording = load_recording(_bundle_path(case, suffix).read_bytes(), fast=fast)
    assert recording.source_kind == "audit-bundle"
    assert recording.has_typed_stream and not recording.has_boundary_log
    assert [e["type"] for e in recording.typed_events] == [
        r["eventType"] for r in document["records"]]
    messages = {gap.code: gap.message for gap in recording.gaps}
    assert messages["audit-chain"] == f"hash chain intact: {len(document['records'])} records"
    assert messages["audit-payloads"] == BOUNDED_PAYLOADS
    assert "steps need the boundary log" in messages["no-boundary-log"]
    assert GENESIS_TYPE not in recording.unknown_typed_types
    assert recording.audit.to_wire() == {"records": len(document["records"]),
                                         "chainIntact": True, "firstBadRecord": None}


@pytest.mark.parametrize("case,suffix", SAMPLES)
def test_a_bundle_taken_mid_run_says_the_run_had_not_ended(case, suffix):
    messages = [gap.message for gap in load_recording(_bundle_path(case, suffix).read_bytes()).gaps]
    assert (UNFINISHED_RUN in messages) == (suffix == ".mid-run")
    # The mid-run copies were taken inside a running tool.
    assert any(m.startswith("1 tool call started and not ended") for m in messages) == (
        suffix == ".mid-run")


def test_info_reports_the_audit_check():
    status, out, _ = _cli("info", str(_bundle_path("parallel-agents", "")))
    assert status == 0
    info = json.loads(out)
    assert info["sourceKind"] == "audit-bundle"
    assert info["audit"] == {"records": 63, "chainIntact": True, "firstBadRecord": None}


@pytest.mark.parametrize("case,suffix", SAMPLES)
def test_info_counts_the_runs_framework_events_not_the_chains_genesis(case, suffix):
    """The bundle's genesis record is the chain's, not an event the framework
    emitted: the counts are those of the same run recorded (less its tokens,
    which the bundle leaves out), and the genesis is said under its own key."""
    status, out, _ = _cli("info", str(_bundle_path(case, suffix)))
    assert status == 0
    info = json.loads(out)
    recorded: dict[str, int] = {}
    for event in _recording_events(case, suffix):
        if event["type"] != TOKEN:
            recorded[event["type"]] = recorded.get(event["type"], 0) + 1
    assert info["typedEventsByType"] == recorded
    assert info["typedEvents"] == sum(recorded.values())
    runs = {event["meta"]["runId"] for event in _recording_events(case, suffix)}
    assert info["auditChainRecordsByType"] == {GENESIS_TYPE: len(runs)}


def test_info_of_a_recording_has_no_audit_field(tmp_path):
    path = tmp_path / "recording.json"
    path.write_text(json.dumps({"events": _recording_events("agent-tool", "")}), "utf-8")
    status, out, _ = _cli("info", str(path))
    assert status == 0 and "audit" not in json.loads(out)


@pytest.mark.parametrize("case,suffix", SAMPLES)
def test_every_command_and_open_run_read_bounded_payloads(case, suffix):
    path = str(_bundle_path(case, suffix))
    for command in ("steps", "route"):
        status, out, err = _cli(command, path)
        assert status == 0, err
        assert "no boundary log" in " ".join(json.loads(out)["notes"])
    status, out, err = _cli("causes", path, main=lens_main)
    assert status == 0, err
    assert isinstance(json.loads(out), list)
    run = open_run(_bundle_path(case, suffix).read_bytes())
    assert run.recording.source_kind == "audit-bundle"
    assert run.evidence.calls  # every sample makes at least one model call


@pytest.mark.parametrize("case,suffix", SAMPLES)
def test_the_likely_causes_are_those_of_the_same_run_recorded(case, suffix, tmp_path):
    recorded = tmp_path / "recording.json"
    recorded.write_text(json.dumps({"events": _recording_events(case, suffix)}), "utf-8")
    told = []
    for path in (_bundle_path(case, suffix), recorded):
        status, out, _ = _cli("causes", str(path), main=lens_main)
        assert status == 0
        told.append([(c["kind"], c["headline"], c["why"]) for c in json.loads(out)])
    bundle, recording = told
    # A bounded bundle holds a result's type, not its words: the same causes, the
    # recording's headline quoting the error text the bundle cannot hold.
    assert [(k, w) for k, _, w in bundle] == [(k, w) for k, _, w in recording]
    for (_, said, _), (_, full, _) in zip(bundle, recording):
        assert "[type:" not in said and full.startswith(said)
    if case == "agent-failing-tool":
        assert bundle[0][0] == ("failed tool" if suffix == "" else "tool did not end")


# ─── Tampering ─────────────────────────────────────────────────────────


def _check(document: dict):
    return read_audit_bundle(document).check


def test_an_edited_payload_names_its_record():
    document = _document()
    document["records"][13]["payload"]["toolCallCount"] = 3
    check = _check(document)
    assert (check.chain_intact, check.first_bad_record) == (False, 13)
    assert check.status().startswith("hash chain broken at record seq 13: ")


def test_an_edited_timestamp_or_an_added_field_names_its_record():
    for edit in (lambda r: r.update(timestamp=r["timestamp"] + 1),
                 lambda r: r.update(note="added"),
                 lambda r: r["meta"].update(runId="other")):
        document = _document()
        edit(document["records"][20])
        assert _check(document).first_bad_record == 20


def test_a_removed_record_names_the_seq_it_held():
    document = _document()
    del document["records"][9]
    check = _check(document)
    assert (check.chain_intact, check.first_bad_record) == (False, 9)
    assert "recordCount 38" in check.problem  # the header still counts it

    document = _document()
    del document["records"][9]
    document["header"]["recordCount"] -= 1
    assert _check(document).first_bad_record == 9


def test_swapped_records_name_the_first_of_them():
    document = _document()
    records = document["records"]
    records[5], records[6] = records[6], records[5]
    assert _check(document).first_bad_record == 5

    # Renumbered to hide the swap: the links still break there.
    document = _document()
    records = document["records"]
    records[5], records[6] = records[6], records[5]
    records[5]["seq"], records[6]["seq"] = 5, 6
    assert _check(document).first_bad_record == 5


def test_an_edited_hash_names_its_record():
    document = _document()
    document["records"][30]["hash"] = "f" * 64
    assert _check(document).first_bad_record == 30


def test_an_edited_final_hash_names_the_last_record():
    document = _document()
    document["finalHash"] = "0" * 63 + "1"
    check = _check(document)
    assert (check.chain_intact, check.first_bad_record) == (False, 37)
    assert "finalHash" in check.problem


def test_a_tampered_bundle_still_opens_and_says_where_it_broke():
    document = _document("agent-failing-tool")
    document["records"][4]["payload"] = {"tampered": True}
    recording = load_recording(_bytes(document))
    chain = [gap.message for gap in recording.gaps if gap.code == "audit-chain"]
    assert chain == ["hash chain broken at record seq 4: its content does not match its hash "
                     "(edited or corrupted)"]
    assert recording.audit.to_wire() == {"records": 35, "chainIntact": False,
                                         "firstBadRecord": 4}


def test_info_names_the_first_bad_record(tmp_path):
    document = _document("parallel-agents", ".mid-run")
    document["records"][40]["eventType"] = "agentfootprint.stream.tool_end"
    path = tmp_path / "tampered.json"
    path.write_bytes(_bytes(document))
    status, out, _ = _cli("info", str(path))
    assert status == 0
    assert json.loads(out)["audit"] == {"records": 44, "chainIntact": False,
                                        "firstBadRecord": 40}


def test_cutting_off_the_head_is_caught_unless_it_says_it_is_a_segment():
    document = _document()
    survivors = document["records"][3:]
    document["records"] = survivors
    document["header"].update(recordCount=len(survivors), chainHead=survivors[0]["prevHash"])
    # Claiming to be the chain's start: seq 0 must hang from the zero hash.
    assert (_check(document).first_bad_record, _check(document).segment) == (0, False)
    # Zero hash but not seq 0: not a start either.
    document["header"].update(chainHead=ZERO_HASH, firstSeq=3)
    assert (_check(document).first_bad_record, _check(document).segment) == (3, False)
    # Said as what it is, a segment from seq 3 on: it verifies from its chainHead.
    document["header"].update(chainHead=survivors[0]["prevHash"])
    assert (_check(document).chain_intact, _check(document).segment) == (True, True)


# ─── Several runs in one chain ────────────────────────────────────────


def _two_runs() -> dict:
    # The agent-tool and agent-failing-tool records chained back to back, as one
    # auditExport() strategy attached across two runs writes them (hashed by Node).
    return json.loads((CANONICAL / "two-runs.json").read_text("utf-8"))


def test_each_run_of_a_chain_is_a_run_of_its_own():
    document = _two_runs()
    loaded = load_file(_bytes(document))
    assert loaded.kind == "audit-bundle"
    assert loaded.audit.to_wire() == {"records": 73, "chainIntact": True, "firstBadRecord": None}
    by_run: dict[str, list[str]] = {}
    for record in document["records"]:
        by_run.setdefault(record["meta"]["runId"], []).append(record["eventType"])
    assert [run.typed_run_ids for run in loaded.runs] == [[run_id] for run_id in by_run]
    for run, types in zip(loaded.runs, by_run.values()):
        assert [e["type"] for e in run.typed_events] == types
        assert types[0] == GENESIS_TYPE
        assert not [g for g in run.gaps if g.code == "several-runs"]


def test_dropping_a_whole_run_is_caught():
    document = _two_runs()
    document["records"] = document["records"][38:]  # the first run, genesis and all
    document["header"]["recordCount"] = 35
    assert _check(document).first_bad_record == 0
    document = _two_runs()
    document["records"] = document["records"][:38]  # the second run
    document["header"]["recordCount"] = 38
    assert _check(document).first_bad_record == 37  # finalHash no longer the last record's


def test_tampering_in_the_second_run_names_its_seq_in_the_chain():
    document = _two_runs()
    document["records"][40]["payload"]["turnIndex"] = 1
    loaded = load_file(_bytes(document))
    assert loaded.audit.first_bad_record == 40
    assert all(run.audit.first_bad_record == 40 for run in loaded.runs)


# ─── drain() segments ─────────────────────────────────────────────────


def _segments(document: dict, at: int) -> tuple[dict, dict]:
    """The bundle as two drain() calls would have written it, split before seq ``at``."""
    records = document["records"]
    first = copy.deepcopy(document)
    first["records"] = records[:at]
    first["header"]["recordCount"] = at
    first["finalHash"] = records[at - 1]["hash"]
    second = copy.deepcopy(document)
    second["records"] = records[at:]
    second["header"].update(recordCount=len(records) - at, firstSeq=at,
                            chainHead=records[at - 1]["hash"])
    return first, second


def test_a_drained_segment_verifies_from_its_chain_head():
    first, second = _segments(_document("parallel-agents"), 25)
    assert _check(first).chain_intact and not _check(first).segment
    check = _check(second)
    assert (check.chain_intact, check.segment, check.records) == (True, True, 38)
    recording = load_recording(_bytes(second))
    messages = {gap.code: gap.message for gap in recording.gaps}
    assert messages["audit-chain"] == "hash chain intact: 38 records"
    assert "records seq 25–62" in messages["audit-segment"]
    assert "earlier segment" in messages["audit-genesis"]  # its run's genesis is in the first
    assert UNFINISHED_RUN not in [gap.message for gap in recording.gaps]  # it holds the end
    assert UNFINISHED_RUN in [gap.message for gap in load_recording(_bytes(first)).gaps]


def test_a_tampered_segment_names_the_seq_in_the_whole_chain():
    _, second = _segments(_document("parallel-agents"), 25)
    second["records"][2]["payload"] = "edited"
    assert _check(second).first_bad_record == 27
    _, second = _segments(_document("parallel-agents"), 25)
    second["header"]["chainHead"] = "a" * 64
    assert _check(second).first_bad_record == 25


# ─── Refused by name ──────────────────────────────────────────────────


@pytest.mark.parametrize("edit,named", [
    (lambda d: d["header"].update(format="agentfootprint.audit/2"), "agentfootprint.audit/2"),
    (lambda d: d["header"].pop("format"), "header.format"),
    (lambda d: d.pop("header"), "header"),
    (lambda d: d.update(header=[]), "header"),
    (lambda d: d["header"].update(hashAlgorithm="sha-512"), "sha-512"),
    (lambda d: d["header"].update(canonicalization="afp-cjson/2"), "afp-cjson/2"),
    (lambda d: d["header"].update(firstSeq="0"), "firstSeq"),
    (lambda d: d.update(records={}), "records"),
    (lambda d: d.pop("finalHash"), "finalHash"),
    (lambda d: d["records"][3].update(eventType=7), "records[3].eventType"),
    (lambda d: d["records"].__setitem__(2, "a record"), "records[2]"),
])
def test_a_bundle_this_version_cannot_check_is_refused_by_name(edit, named, tmp_path):
    document = _document("agent-tool", ".mid-run")
    edit(document)
    with pytest.raises(RecordingError, match=re.escape(named)):
        load_recording(_bytes(document))
    path = tmp_path / "bundle.json"
    path.write_bytes(_bytes(document))
    status, out, err = _cli("info", str(path))
    assert (status, out) == (2, "")
    assert named in err and len(err.strip().splitlines()) == 1


def test_a_later_audit_format_says_which_one_is_read():
    document = _document()
    document["header"]["format"] = "agentfootprint.audit/2"
    with pytest.raises(RecordingError) as raised:
        load_recording(_bytes(document))
    assert str(raised.value) == ("header.format 'agentfootprint.audit/2' is not supported; "
                                 "this version reads agentfootprint.audit/1")


# ─── Canonicalization as JavaScript writes it ─────────────────────────


def _canonical_cases() -> list[dict]:
    return json.loads((CANONICAL / "expected.json").read_text("utf-8"))


@pytest.mark.parametrize("case", _canonical_cases(), ids=lambda case: case["name"])
def test_canonical_json_is_what_javascript_writes(case):
    text = canonical_json(json.loads(case["json"]))
    assert text == case["canonical"]
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == case["sha256"]


@pytest.mark.parametrize("case", _canonical_cases(), ids=lambda case: case["name"])
def test_the_general_walk_writes_the_same_text(case):
    assert canonical_json_walk(json.loads(case["json"])) == case["canonical"]


def test_both_ways_of_writing_agree_on_every_sample_record():
    # canonical_json takes the json module's way for most records: the walk is
    # the reference it must equal.
    for case, suffix in SAMPLES:
        for record in _document(case, suffix)["records"]:
            assert canonical_json(record) == canonical_json_walk(record)


_JSON_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | _JSON_TEXT
    | st.integers(min_value=-(2 ** 70), max_value=2 ** 70)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_JSON_TEXT, inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(_JSON_VALUES)
def test_the_quick_way_writes_what_the_walk_writes(value):
    assert canonical_json(value) == canonical_json_walk(value)


def test_the_canonical_cases_cover_what_differs_from_python():
    by_name = {case["name"]: case["canonical"] for case in _canonical_cases()}
    # UTF-16 order: a character past U+FFFF sorts before U+E000..U+FFFF.
    assert by_name["unicode-keys"].index("\U0001F600") < by_name["unicode-keys"].index("\ue000")
    assert by_name["numbers"].startswith("[1e+21,100000000000000000000,0.1,0,0,0,1.5e-7,")
    assert "\\ud800" in by_name["string-escapes"]


def test_a_crafted_bundle_with_lone_halves_and_edge_numbers_verifies_before_mending():
    path = CANONICAL / "crafted.json"
    document = json.loads(path.read_text("utf-8"))
    assert read_audit_bundle(document).chain_intact
    assert [record_hash(r) for r in document["records"]] == [
        r["hash"] for r in document["records"]]
    recording = load_recording(path.read_bytes())
    assert recording.audit.chain_intact is True
    codes = [gap.code for gap in recording.gaps]
    assert "lone-surrogates" in codes  # shown mended, after the hashes were checked
    tool = next(e for e in recording.typed_events
                if e["type"] == "agentfootprint.stream.tool_start")
    assert tool["payload"]["toolName"] == "cut \ufffd"


_NODE = shutil.which("node")


@pytest.mark.skipif(_NODE is None, reason="Node is not installed (the stored JavaScript "
                                          "results above are still checked)")
def test_the_stored_javascript_results_are_what_node_gives_now():
    script = str(CANONICAL / "afp_cjson.js")
    fresh = subprocess.run([_NODE, script, str(CANONICAL / "cases.json")], check=True,
                           capture_output=True, text=True).stdout
    assert json.loads(fresh) == _canonical_cases()
    rechained = subprocess.run([_NODE, script, "--chain", str(CANONICAL / "crafted.json")],
                               check=True, capture_output=True, text=True).stdout
    assert json.loads(rechained) == json.loads((CANONICAL / "crafted.json").read_text("utf-8"))
    bundles = [str(_bundle_path(case, suffix)) for case, suffix in SAMPLES]
    bundles += [str(CANONICAL / "crafted.json"), str(CANONICAL / "two-runs.json")]
    subprocess.run([_NODE, script, "--verify", *bundles], check=True, capture_output=True)

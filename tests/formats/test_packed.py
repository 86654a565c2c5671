"""Packed recordings (``agentfootprint.recording.packed.v1``): opened as the plain
recording they stand for, values shared, the expansion bounded before it starts.

The samples in ``tests/data/formats/packed/<case>/`` were written by
agentfootprint's own ``packRecording`` from the plain ``recording.json`` beside
them (each unpacks to it byte for byte). ``hostile/recording.packed.json`` is
a 2 KB recording whose tool result is values[0], where values[i] is
``[values[i+1], values[i+1]]`` down to a 64-character string at values[40]:
about 2^40 × 67 bytes (74 TB) of plain JSON.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from formats.packer import pack_recording, packed_json
from recorders import packed
from recorders.errors import ExpansionRefused, RecordingError
from recorders.loading import _KeptParse, load_file, load_recording
from recorders.projections import build_projection

DATA = Path(__file__).resolve().parents[1] / "data" / "formats" / "packed"
CASES = ("agent-tool", "agent-failing-tool", "parallel-agents")
HOSTILE = DATA / "hostile" / "recording.packed.json"
LARGE = 10**12


def _packed_bytes(case: str) -> bytes:
    return (DATA / case / "recording.packed.json").read_bytes()


def _plain_bytes(case: str) -> bytes:
    return (DATA / case / "recording.json").read_bytes()


def _steps(recording, profile: str) -> tuple[list, list]:
    projection = build_projection(recording, profile)
    return ([step.to_wire() for step in projection.steps.raw_steps()],
            [step.to_wire() for step in projection.get_steps()])


def _compact(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _minimal(result, values: list, fmt: str = packed.PACKED_FORMAT) -> dict:
    """A packed document whose one tool result is ``result``."""
    return {"format": fmt, "values": values, "recording": {"events": [{
        "type": "agentfootprint.stream.tool_end",
        "payload": {"toolCallId": "c1", "result": result},
        "meta": {"runtimeStageId": "tool#1", "subflowPath": [], "wallClockMs": 5, "runId": "r"},
    }], "snapshot": None, "structure": None}}


# ─── The samples open as their plain twins ─────────────────────────────


@pytest.mark.parametrize("fast", [True, False], ids=["msgspec", "json-module"])
@pytest.mark.parametrize("case", CASES)
def test_a_packed_sample_opens_as_its_plain_twin(case, fast):
    opened = load_recording(_packed_bytes(case), fast=fast)
    plain = load_recording(_plain_bytes(case), fast=fast)

    assert opened.source_kind == "packed"
    assert opened.envelope_format == packed.PACKED_FORMAT
    assert opened.typed_events == plain.typed_events
    assert opened.boundary_events == plain.boundary_events
    assert opened.typed_counts == plain.typed_counts
    assert opened.snapshot == plain.snapshot and opened.structure == plain.structure
    assert opened.dropped_snapshot_keys == plain.dropped_snapshot_keys
    assert [gap.text for gap in opened.gaps] == [gap.text for gap in plain.gaps]
    for profile in ("lens", "reference"):
        assert _steps(opened, profile) == _steps(plain, profile), profile


@pytest.mark.parametrize("case", CASES)
def test_the_file_kind_is_packed(case):
    loaded = load_file(_packed_bytes(case), name="run.json")
    assert loaded.kind == "packed"
    assert [run.source_kind for run in loaded.runs] == ["packed"]


@pytest.mark.parametrize("case", CASES)
def test_unpacking_gives_the_plain_json_byte_for_byte(case):
    expanded = packed.expand_packed(json.loads(_packed_bytes(case)), max_bytes=LARGE)
    assert _compact(expanded) == _plain_bytes(case)


def test_a_pooled_value_is_one_object_wherever_it_is_referred_to():
    document = json.loads(_packed_bytes("agent-tool"))
    referred: dict[int, list[int]] = {}
    for index, event in enumerate(document["recording"]["events"]):
        ref = event.get("meta", {}).get(packed.REF) if isinstance(event, dict) else None
        if ref is not None:
            referred.setdefault(ref, []).append(index)
    value, places = next((v, p) for v, p in referred.items() if len(p) > 1)

    events = load_recording(_packed_bytes("agent-tool")).typed_events

    assert all(events[i]["meta"] is events[places[0]]["meta"] for i in places), value


def test_views_built_on_shared_values_leave_the_events_as_the_file_says():
    from lens.run import PROFILES, open_run

    run = open_run(_packed_bytes("parallel-agents"))
    for profile in PROFILES:
        run.views(profile)
    assert run.recording.typed_events == load_recording(_plain_bytes("parallel-agents")).typed_events
    assert run.recording.boundary_events == load_recording(
        _plain_bytes("parallel-agents")).boundary_events


@pytest.mark.parametrize("case", CASES)
def test_keys_in_another_order_and_pretty_printing_open_the_same(case):
    document = json.loads(_packed_bytes(case))
    values_first = {"values": document["values"], "recording": document["recording"],
                    "format": document["format"]}
    plain = load_recording(_plain_bytes(case))
    reordered = json.dumps(values_first, ensure_ascii=False, separators=(",", ":")).encode()
    # Read the fast way too: the fast parse's skipped values are read again.
    assert type(packed.parse_kept(reordered, _KeptParse.TOP)[0]) is packed.ExpandedPacked
    for data in (reordered, json.dumps(values_first).encode(),
                 json.dumps(document, indent=2).encode()):
        for fast in (True, False):
            opened = load_recording(data, fast=fast)
            assert opened.source_kind == "packed"
            assert opened.typed_events == plain.typed_events
            assert opened.boundary_events == plain.boundary_events


# ─── The bound: the plain size, measured before expanding ──────────────


@pytest.mark.parametrize("case", CASES)
def test_the_bound_is_the_plain_size_to_the_byte(case):
    size = len(_plain_bytes(case))
    raw = _packed_bytes(case)
    pretty = json.dumps(json.loads(raw), indent=2, ensure_ascii=False).encode()

    for data in (raw, pretty):
        assert packed.parse_packed(data, _KeptParse.TOP, max_bytes=size) is not None
        with pytest.raises(ExpansionRefused):
            packed.parse_packed(data, _KeptParse.TOP, max_bytes=size - 1)
        packed.expand_packed(json.loads(data), max_bytes=size)
        with pytest.raises(ExpansionRefused):
            packed.expand_packed(json.loads(data), max_bytes=size - 1)


def _unpacked(node, values):
    """The plain value ``node`` stands for (an oracle of the test's own)."""
    if isinstance(node, dict):
        if len(node) == 1 and packed.REF in node:
            return _unpacked(values[node[packed.REF]], values)
        if len(node) == 1 and packed.ESC in node:
            node = node[packed.ESC]
        return {key: _unpacked(member, values) for key, member in node.items()}
    if isinstance(node, list):
        return [_unpacked(member, values) for member in node]
    return node


@pytest.mark.parametrize("case", CASES)
def test_a_top_written_otherwise_is_never_measured_short(case):
    # The recording's text is found from the values' lengths when the top is as
    # JSON.stringify writes it; spaces, a member of its own or a byte-order
    # mark may only make the measure longer, by no more than what they add.
    size = len(_plain_bytes(case))
    raw = _packed_bytes(case)
    document = json.loads(raw)
    spaced = (raw[:raw.rindex(b',"values":[')] + b',"values":['
              + b" , ".join(_compact(value) for value in document["values"]) + b"]}")
    assert json.loads(spaced) == document
    extra = raw[:raw.rindex(b',"values":[')] + b',"note":"x"' + raw[raw.rindex(b',"values":['):]
    variants = {"spaced": spaced, "extra member": extra, "bom and newline": b"\xef\xbb\xbf" + raw + b"\n"}
    for name, data in variants.items():
        added = len(data) - len(raw)
        with pytest.raises(ExpansionRefused):
            packed.parse_packed(data, _KeptParse.TOP, max_bytes=size - 1)
        assert packed.parse_packed(data, _KeptParse.TOP, max_bytes=size + added) is not None, name
        assert load_recording(data).typed_events == load_recording(_plain_bytes(case)).typed_events


def test_values_referring_back_and_forth_are_measured_to_the_byte():
    values = [{"later": {"$af:ref": 2}, "n": 1}, "a string of its own " * 3,
              [{"$af:ref": 1}, {"$af:ref": 1}, 2.5], {"earlier": {"$af:ref": 1}, "deep": [[{"$af:ref": 2}]]}]
    document = _minimal({"$af:ref": 3}, values)
    document["recording"]["events"].append({**document["recording"]["events"][0],
                                            "payload": {"$af:ref": 0}})
    size = len(_compact(_unpacked(document["recording"], values)))
    data = _compact(document)
    assert packed.parse_packed(data, _KeptParse.TOP, max_bytes=size) is not None
    with pytest.raises(ExpansionRefused):
        packed.parse_packed(data, _KeptParse.TOP, max_bytes=size - 1)
    opened = load_recording(data).typed_events
    assert opened == _unpacked(document["recording"], values)["events"]


def test_a_reference_key_spelled_with_an_escape_is_still_measured(monkeypatch):
    # "\u0024af:ref" is "$af:ref" to a parser, not to a search of the text: the
    # fast way leaves such a file to the objects, whose bound still holds.
    values = ["x" * 70]
    document = _minimal({"$af:ref": 0}, values)
    size = len(_compact(_unpacked(document["recording"], values)))
    data = _compact(document).replace(b'"$af:ref"', b'"\\u0024af:ref"')
    assert b"$af:ref" not in data
    assert packed.parse_packed(data, _KeptParse.TOP, max_bytes=LARGE) is None
    assert load_recording(data).typed_events[0]["payload"]["result"] == values[0]
    monkeypatch.setenv("LENS_MAX_EXPANDED_MB", str((size - 1) / 1024**2))
    with pytest.raises(ExpansionRefused):
        load_recording(data)


@pytest.mark.parametrize("backwards", [False, True], ids=["forward", "backward"])
def test_a_long_chain_of_values_is_measured_without_the_stack(backwards):
    count = 20_000  # far past Python's stack; each value holds the next one down
    if backwards:
        values = ["end"] + [{"v": {"$af:ref": i - 1}} for i in range(1, count)]
        top = count - 1
    else:
        values = [{"v": {"$af:ref": i + 1}} for i in range(count - 1)] + ["end"]
        top = 0
    data = _compact(_minimal({"$af:ref": top}, values))
    nested = len(b'{"v":}') * (count - 1) + len(b'"end"')
    size = len(_compact(_minimal("", [])["recording"])) - 2 + nested  # "" replaced by the chain
    with pytest.raises(ExpansionRefused):
        packed.parse_packed(data, _KeptParse.TOP, max_bytes=size - 1)
    with pytest.raises(RecordingError, match="nested"):
        packed.parse_packed(data, _KeptParse.TOP, max_bytes=size)
    with pytest.raises(RecordingError, match="nested"):
        load_recording(data)


def test_the_loader_holds_a_packed_file_to_lens_max_expanded_mb(monkeypatch):
    size = len(_plain_bytes("agent-tool"))
    monkeypatch.setenv("LENS_MAX_EXPANDED_MB", str((size - 1) / 1024**2))
    with pytest.raises(ExpansionRefused, match="LENS_MAX_EXPANDED_MB"):
        load_recording(_packed_bytes("agent-tool"))
    monkeypatch.setenv("LENS_MAX_EXPANDED_MB", str((size + 1) / 1024**2))
    assert load_recording(_packed_bytes("agent-tool")).source_kind == "packed"


def test_parsed_by_the_json_module_the_bound_covers_what_is_kept(monkeypatch):
    # That parse drops the snapshot's unread members before the expansion sees them.
    monkeypatch.setenv("LENS_MAX_EXPANDED_MB", str(20_000 / 1024**2))
    with pytest.raises(ExpansionRefused, match="LENS_MAX_EXPANDED_MB"):
        load_recording(_packed_bytes("agent-tool"), fast=False)


def test_the_hostile_file_is_as_described():
    document = json.loads(HOSTILE.read_bytes())
    values = document["values"]
    assert len(values) == 41 and len(values[40]) == 64
    assert all(v == [{packed.REF: i + 1}] * 2 for i, v in enumerate(values[:40]))


@pytest.mark.parametrize("fast", [True, False], ids=["msgspec", "json-module"])
def test_the_hostile_file_is_refused_with_nothing_expanded(monkeypatch, fast):
    expansions = []
    real = packed._Expansion

    class Watched(real):
        def expand(self, root):
            expansions.append(root)
            return super().expand(root)

    monkeypatch.setattr(packed, "_Expansion", Watched)
    data = HOSTILE.read_bytes()
    tracemalloc.start()
    try:
        with pytest.raises(ExpansionRefused, match="refused before expanding"):
            load_recording(data, fast=fast)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert expansions == []
    assert peak < 2 * 1024**2  # the 74 TB it stands for never comes near memory


def test_the_hostile_document_is_refused_by_expand_packed_too():
    with pytest.raises(ExpansionRefused):
        packed.expand_packed(json.loads(HOSTILE.read_bytes()), max_bytes=LARGE)


# ─── Escapes: a recording's own reserved keys come back ───────────────


def _with_reserved_keys() -> dict:
    plain = json.loads(_plain_bytes("agent-tool"))
    event = next(e for e in plain["events"] if e["type"] == "agentfootprint.stream.tool_end")
    event["payload"]["result"] = {
        "$af:ref": 0,  # looks like a reference, is the recording's own
        "alone": {"$af:ref": 1},
        "escape": {"$af:esc": {"$af:ref": 2}},
        "nested": [{"$af:esc": "not an escape"}, {"plain": 1, "$af:esc": None}],
    }
    return plain


@pytest.mark.parametrize("fast", [True, False], ids=["msgspec", "json-module"])
def test_reserved_keys_of_the_recording_come_back_as_written(fast):
    plain = _with_reserved_keys()
    data = packed_json(plain)
    assert b'"$af:esc":{"$af:ref":0' in data  # the packer escaped them

    opened = load_recording(data, fast=fast)
    expected = load_recording(_compact(plain), fast=fast)

    assert opened.source_kind == "packed"
    assert opened.typed_events == expected.typed_events
    assert _compact(packed.expand_packed(json.loads(data), max_bytes=LARGE)) == _compact(plain)


def test_a_packed_recording_of_a_packed_looking_recording_round_trips():
    inner = json.loads(_packed_bytes("agent-failing-tool"))  # refs everywhere, as data
    plain = json.loads(_plain_bytes("agent-failing-tool"))
    plain["events"][0]["payload"]["quoted"] = inner["values"][:5]
    packed_document = pack_recording(plain)
    assert _compact(packed.expand_packed(packed_document, max_bytes=LARGE)) == _compact(plain)


# ─── Refused by name ───────────────────────────────────────────────────


def _refusal(document: dict) -> str:
    with pytest.raises(RecordingError) as caught:
        load_recording(json.dumps(document).encode())
    assert not isinstance(caught.value, ExpansionRefused)
    with pytest.raises(RecordingError) as direct:
        packed.expand_packed(json.loads(json.dumps(document)), max_bytes=LARGE)
    assert str(direct.value) == str(caught.value)
    return str(caught.value)


def test_a_later_packed_format_is_refused_by_name():
    for fmt in ("agentfootprint.recording.packed.v2", "agentfootprint.recording.packed.v1.1"):
        document = json.loads(_packed_bytes("agent-tool"))
        document["format"] = fmt
        message = _refusal(document)
        assert fmt in message and packed.PACKED_FORMAT in message


def test_a_cycle_is_refused_by_name():
    message = _refusal(_minimal({"$af:ref": 0}, [[{"$af:ref": 1}], {"again": {"$af:ref": 0}}]))
    assert "values[0] refers to itself" in message and "values[1].again" in message
    message = _refusal(_minimal({"$af:ref": 0}, [{"self": [{"$af:ref": 0}]}]))
    assert "values[0].self[0]" in message and "cycle" in message


def test_a_dangling_reference_is_refused_by_name():
    message = _refusal(_minimal({"$af:ref": 7}, ["x" * 70]))
    assert message.startswith("recording.events[0].payload.result:")
    assert "values[7]" in message and "holds 1 values" in message
    message = _refusal(_minimal({"$af:ref": 0}, [{"inner": {"$af:ref": 3}}]))
    assert message.startswith("values[0].inner:") and "values[3]" in message


@pytest.mark.parametrize("bad", ["1", -1, 1.5, True, None, [0], {"n": 0}])
def test_a_reference_that_is_not_an_index_is_refused(bad):
    message = _refusal(_minimal({"$af:ref": bad}, ["x" * 70, "y" * 70]))
    assert message.startswith("recording.events[0].payload.result:")
    assert "$af:ref" in message or "does not hold" in message


def test_a_malformed_escape_or_an_unescaped_reserved_key_is_refused():
    message = _refusal(_minimal({"$af:esc": "text"}, []))
    assert "escape" in message and "a string" in message
    message = _refusal(_minimal({"$af:ref": 0, "other": 1}, ["x" * 70]))
    assert "reserved key" in message and "recording.events[0].payload.result" in message


@pytest.mark.parametrize("document, words", [
    ({"format": packed.PACKED_FORMAT, "values": "garbage", "recording": {}}, "values:"),
    ({"format": packed.PACKED_FORMAT, "values": {"0": 1}, "recording": {}}, "values:"),
    ({"format": packed.PACKED_FORMAT, "values": []}, "recording: missing"),
    ({"format": packed.PACKED_FORMAT, "values": [], "recording": [1, 2]}, "recording:"),
])
def test_missing_or_garbage_parts_are_refused(document, words):
    with pytest.raises(RecordingError, match=words):
        load_recording(json.dumps(document).encode())


@pytest.mark.parametrize("cut", [0.25, 0.5, 0.999])
def test_a_truncated_packed_file_is_refused_as_truncated(cut):
    data = _packed_bytes("agent-tool")
    for fast in (True, False):
        with pytest.raises(RecordingError, match="truncated"):
            load_recording(data[:int(len(data) * cut)], fast=fast)


def test_garbage_inside_a_value_is_refused_where_it_is():
    document = json.loads(_packed_bytes("agent-tool"))
    document["values"][0] = {"$af:ref": "garbage"}
    message = _refusal(document)
    assert "values[0]" in message or "$af:ref" in message


def test_nesting_deeper_than_the_parser_allows_is_refused():
    depth = packed.MAX_EXPANDED_DEPTH + 5
    values = [[{"$af:ref": i + 1}] for i in range(depth)] + ["end"]
    for document in (_minimal({"$af:ref": 0}, values),):
        with pytest.raises(RecordingError, match="nested"):
            packed.expand_packed(document, max_bytes=LARGE)


def test_a_plain_recording_that_quotes_the_format_is_not_taken_for_packed():
    plain = json.loads(_plain_bytes("agent-tool"))
    plain["events"][0]["payload"]["note"] = {"format": packed.PACKED_FORMAT, "values": []}
    opened = load_recording(_compact(plain))
    assert opened.source_kind == "recording"


def test_the_cli_reports_the_packed_kind(tmp_path, capsys):
    from recorders.cli import main

    path = tmp_path / "run.json"
    path.write_bytes(_packed_bytes("agent-tool"))
    assert main(["info", str(path)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["sourceKind"] == "packed"
    assert info["format"] == packed.PACKED_FORMAT


def test_a_packed_recording_minted_into_an_artifact_store_opens_as_its_twin():
    entry = {"format": 1,
             "meta": {"ref": "art_1", "kind": "recording/run", "mediaType": "application/json",
                      "bytes": 96824, "createdAt": 1, "label": "run r", "origin": {"runId": "r"}},
             "payload": {"shape": "text", "value": _packed_bytes("agent-tool").decode()}}
    opened = load_recording(json.dumps(entry).encode())
    assert opened.source_kind == "artifact-recording"
    assert opened.typed_events == load_recording(_plain_bytes("agent-tool")).typed_events

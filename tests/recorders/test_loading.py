"""Loading: every accepted shape reads, everything else is refused by name."""

from __future__ import annotations

import copy
import gzip
import json

import pytest

from corpus_files import load_json, read_bytes, recording_path
from recorders.errors import RecordingError
from recorders.loading import load_recording


def _corpus(case: str) -> dict | list:
    return load_json(recording_path(case))


def _bytes(document) -> bytes:
    return json.dumps(document).encode()


def _refused(data) -> str:
    with pytest.raises(RecordingError) as info:
        load_recording(data)
    message = str(info.value)
    assert message and "\n" not in message
    return message


# ── accepted shapes ──────────────────────────────────────────────────

def test_recording_reads_with_both_streams():
    rec = load_recording(read_bytes(recording_path("agent-no-tools")))
    assert rec.source_kind == "recording"
    assert rec.has_typed_stream and rec.has_boundary_log
    assert len(rec.typed_events) == 33 and len(rec.boundary_events) == 24
    assert rec.gaps == []


def test_envelope_reads_with_producer_and_run():
    rec = load_recording(read_bytes(recording_path("agent-one-tool-envelope")))
    assert rec.source_kind == "envelope"
    assert rec.envelope_format == "agentfootprint.recording.v1"
    assert rec.producer == {"agentfootprintVersion": "9.62.0", "footprintjsVersion": "9.24.0"}
    assert rec.complete is True and rec.dropped_events == 0


def test_gzipped_files_read_the_same_as_plain():
    plain = read_bytes(recording_path("parallel-3-reviewers"))
    assert load_recording(gzip.compress(plain)).boundary_counts == load_recording(plain).boundary_counts


def test_a_byte_order_mark_is_accepted():
    plain = read_bytes(recording_path("llmcall-single"))
    assert len(load_recording(b"\xef\xbb\xbf" + plain).boundary_events) == 12


def test_bare_boundary_list_reads_and_says_it_has_no_typed_stream():
    document = _corpus("llmcall-single")
    data = document["snapshot"]["recorders"][0]["data"]
    rec = load_recording(_bytes(data))
    assert rec.source_kind == "boundary-list" and len(rec.boundary_events) == 12
    assert not rec.has_typed_stream
    assert [g.code for g in rec.gaps] == ["no-typed-stream"]


def test_the_1213_level_deep_recording_reads():
    rec = load_recording(read_bytes(recording_path("large-agent-300-tool-calls")))
    assert len(rec.boundary_events) == 4671


# ── gaps are reported, not hidden ────────────────────────────────────

def test_lean_mode_is_reported():
    rec = load_recording(read_bytes(recording_path("lean-agent-two-tools")))
    assert rec.is_lean and "lean" in [g.code for g in rec.gaps]


def test_incomplete_run_is_reported():
    rec = load_recording(read_bytes(recording_path("crash-provider-error-envelope")))
    assert rec.complete is False and "incomplete" in [g.code for g in rec.gaps]


def test_several_runs_are_reported():
    rec = load_recording(read_bytes(recording_path("multirun-agent-two-runs")))
    assert len(rec.typed_run_ids) == 2 and "several-runs" in [g.code for g in rec.gaps]


def test_dropped_events_are_reported():
    document = _corpus("agent-one-tool-envelope")
    document["run"]["droppedEvents"] = 12
    gaps = load_recording(_bytes(document)).gaps
    assert any(g.code == "dropped" and "12 events" in g.message for g in gaps)


def test_unknown_event_types_are_counted_and_kept():
    document = _corpus("llmcall-single")
    document["events"].append({"type": "agentfootprint.future.thing", "payload": {}, "meta": {}})
    document["snapshot"]["recorders"][0]["data"].insert(3, {"type": "warp.drive", "x": 1})
    rec = load_recording(_bytes(document))
    assert rec.unknown_typed_types == {"agentfootprint.future.thing": 1}
    assert rec.unknown_boundary_types == {"warp.drive": 1}
    assert rec.boundary_events[3] == {"type": "warp.drive", "x": 1}
    assert any(g.code == "unknown-types" and "warp.drive" in g.message for g in rec.gaps)


def test_missing_structure_is_reported():
    document = _corpus("llmcall-single")
    del document["structure"]
    assert "no-structure" in [g.code for g in load_recording(_bytes(document)).gaps]


def test_missing_boundary_log_is_reported_and_typed_events_stay():
    document = _corpus("llmcall-single")
    document["snapshot"]["recorders"] = [{"name": "SomethingElse", "data": []}]
    rec = load_recording(_bytes(document))
    assert not rec.has_boundary_log and rec.boundary_events == []
    assert len(rec.typed_events) == 6
    assert any(g.code == "no-boundary-log" and "BoundaryEvents" in g.message for g in rec.gaps)


# ── refusals name the problem and the place ──────────────────────────

def test_truncated_json_is_refused():
    plain = read_bytes(recording_path("llmcall-single"))
    assert "truncated" in _refused(plain[: len(plain) // 2])


def test_truncated_gzip_is_refused():
    packed = gzip.compress(read_bytes(recording_path("llmcall-single")))
    assert "gzip" in _refused(packed[:-20])


def test_invalid_utf8_is_refused():
    assert "UTF-8" in _refused(b'{"events": ["\xff\xfe"]}')


def test_empty_file_is_refused():
    assert "empty" in _refused(b"  \n")


@pytest.mark.parametrize("document, expected", [
    ("a string", "found a string"),
    (42, "found a number"),
    (None, "found null"),
    ({"hello": 1}, "found an object with hello"),
])
def test_wrong_top_level_type_is_refused(document, expected):
    assert expected in _refused(_bytes(document))


def test_unknown_envelope_format_is_refused_never_half_read():
    document = _corpus("agent-one-tool-envelope")
    document["format"] = "agentfootprint.recording.v9"
    assert _refused(_bytes(document)) == (
        "format 'agentfootprint.recording.v9' is not supported; "
        "this version reads agentfootprint.recording.v1")


def test_event_that_is_not_an_object_is_refused_with_its_index():
    document = _corpus("llmcall-single")
    document["events"][4] = "oops"
    assert _refused(_bytes(document)) == "events[4]: expected an object, found a string"


def test_boundary_event_that_is_not_an_object_names_where_it_is():
    document = _corpus("agent-one-tool-envelope")
    document["recording"]["snapshot"]["recorders"][0]["data"][7] = [1]
    assert _refused(_bytes(document)) == (
        "recording.snapshot.recorders[0].data[7]: expected an object, found a list")


def test_missing_field_the_projection_needs_is_named():
    document = _corpus("llmcall-single")
    data = document["snapshot"]["recorders"][0]["data"]
    index = next(i for i, e in enumerate(data) if e["type"] == "llm.end")
    del data[index]["toolCallCount"]
    assert _refused(_bytes(document)) == (
        f"snapshot.recorders[0].data[{index}] (llm.end): missing field 'toolCallCount' "
        "(expected a number)")


def test_field_of_the_wrong_type_is_named():
    document = _corpus("llmcall-single")
    document["snapshot"]["recorders"][0]["data"][1]["subflowPath"] = "__root__/x"
    message = _refused(_bytes(document))
    assert message.startswith("snapshot.recorders[0].data[1].subflowPath (subflow.entry): "
                              "expected a list of strings")


def _first_typed(document: dict, short: str) -> int:
    return next(i for i, e in enumerate(document["events"])
                if e["type"] == "agentfootprint." + short)


def test_a_typed_event_without_meta_is_kept_and_named_in_the_gaps():
    # agentfootprint delivers the output-fallback pair after the run with no meta at all.
    document = _corpus("llmcall-single")
    document["events"].append({"type": "agentfootprint.resilience.output_canned_used",
                               "timestamp": 1, "payload": {"rawOutputPreview": "x",
                                                           "fallbackErrorMessage": "502"}})
    index = _first_typed(document, "context.injected")
    del document["events"][index]["meta"]
    recording = load_recording(_bytes(document))
    assert recording.typed_events == document["events"]
    assert recording.typed_without_meta == {"agentfootprint.context.injected": 1,
                                            "agentfootprint.resilience.output_canned_used": 1}
    (gap,) = [g for g in recording.gaps if g.code == "no-meta"]
    assert gap.message.startswith("2 typed events carry no meta")
    assert "resilience.output_canned_used ×1" in gap.message


def test_a_model_call_event_without_meta_is_refused():
    # It becomes a step: without its stage and time there is nowhere to put it.
    document = _corpus("llmcall-single")
    index = _first_typed(document, "stream.llm_start")
    del document["events"][index]["meta"]
    message = _refused(_bytes(document))
    assert message == (f"events[{index}] (agentfootprint.stream.llm_start): missing field 'meta' "
                       "(expected an object)")


def test_an_event_of_an_undeclared_type_without_meta_is_refused():
    # What a Trace's boundary log looks like read as a typed stream: not a run
    # of unknown typed events with no steps, but a file that is not a recording.
    document = _corpus("llmcall-single")
    document["events"].insert(0, {"type": "run.entry", "payload": {}})
    assert _refused(_bytes(document)) == ("events[0] (run.entry): missing field 'meta' "
                                          "(expected an object)")


def test_a_typed_meta_that_is_not_an_object_is_refused():
    document = _corpus("llmcall-single")
    document["events"][0]["meta"] = None
    assert _refused(_bytes(document)).startswith("events[0].meta (")


def test_events_that_are_not_a_list_are_refused():
    assert "events: expected a list" in _refused(_bytes({"events": {"a": 1}, "snapshot": {}}))


def test_nan_and_huge_numbers_are_refused():
    assert "NaN" in _refused(b'{"events": [], "snapshot": {"x": NaN}}')
    assert "too large" in _refused(b'{"events": [], "snapshot": {"x": 1e999}}')


def test_nesting_beyond_the_limit_is_refused_cleanly():
    deep = b"[" * 50_000 + b"]" * 50_000
    assert "nested deeper" in _refused(deep)


def test_input_is_not_mutated_by_loading():
    document = _corpus("llmcall-single")
    before = copy.deepcopy(document)
    load_recording(_bytes(document))
    assert document == before


def test_equal_paths_share_one_list_and_keep_their_content():
    # A long run repeats a few subflow paths in every event: the loader keeps
    # one list per distinct path (memory, and fewer objects for the
    # collector to walk), in both streams, without changing any event.
    document = _corpus("large-agent-300-tool-calls")
    recording = load_recording(_bytes(document))
    assert recording.typed_events == document["events"]
    for events, path_of in ((recording.typed_events, lambda e: e["meta"].get("subflowPath")),
                            (recording.boundary_events, lambda e: e.get("subflowPath"))):
        paths = [path_of(e) for e in events if isinstance(path_of(e), list)]
        distinct = {tuple(p) for p in paths}
        assert len(paths) > 10 * len(distinct)
        assert len({id(p) for p in paths}) == len(distinct)


@pytest.mark.parametrize("kind", ["\x1b[2J\x1b[31mINJECTED\x1b[0m\u202e", "T" * 100_000],
                         ids=["terminal-controls", "100,000 characters"])
def test_a_bad_events_type_is_quoted_escaped_and_short_in_the_message(kind):
    """The type names the event in the message; it is file content, so it is
    shown as such: terminal controls written out, a long one cut."""
    document = json.loads(read_bytes(recording_path("agent-refund-multi-tools-error")))
    event = next(e for e in document["events"] if isinstance(e.get("meta"), dict))
    event["type"], event["meta"]["wallClockMs"] = kind, "x"
    with pytest.raises(RecordingError) as refused:
        load_recording(json.dumps(document).encode())
    message = str(refused.value)
    assert "wallClockMs" in message and len(message) < 200
    assert message.isprintable()

"""The NDJSON event stream decoder: whole events out of appended bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recorders.errors import RecordingError
from recorders.event_stream import EventStreamDecoder, split_runs

DATA = Path(__file__).resolve().parents[1] / "data" / "formats" / "ndjson"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _decode_all(data: bytes, piece: int) -> list[dict]:
    decoder = EventStreamDecoder()
    events: list[dict] = []
    for start in range(0, len(data), piece):
        events += decoder.feed(data[start:start + piece])
    return events + decoder.finish()


@pytest.mark.parametrize("piece", [1, 7, 100, 4096, 1 << 20])
def test_any_chunking_gives_the_events_of_the_file(piece):
    path = DATA / "agent-tool" / "events.firehose.ndjson"
    assert _decode_all(path.read_bytes(), piece) == _lines(path)


def test_a_partial_line_is_held_until_its_newline_arrives():
    decoder = EventStreamDecoder()
    first = b'{"type":"a","meta":{"runId":"r"}}\n{"type":"b",'
    assert decoder.feed(first) == [{"type": "a", "meta": {"runId": "r"}}]
    assert decoder.pending_bytes == len(b'{"type":"b",')
    assert decoder.lines_read == 1
    assert decoder.feed(b'"meta":{}}\n') == [{"type": "b", "meta": {}}]
    assert decoder.pending_bytes == 0
    assert decoder.lines_read == 2


def test_a_character_split_across_feeds_is_joined():
    line = json.dumps({"type": "x", "payload": {"text": "météo ☀"}}, ensure_ascii=False)
    data = line.encode("utf-8") + b"\n"
    cut = data.index("☀".encode("utf-8")) + 1  # inside the three-byte character
    decoder = EventStreamDecoder()
    assert decoder.feed(data[:cut]) == []
    assert decoder.feed(data[cut:]) == [json.loads(line)]


def test_finish_gives_a_complete_last_line_without_newline():
    decoder = EventStreamDecoder()
    assert decoder.feed(b'{"type":"a"}\n{"type":"b"}') == [{"type": "a"}]
    assert decoder.finish() == [{"type": "b"}]
    assert decoder.lines_read == 2


def test_finish_keeps_an_unfinished_last_line_out():
    decoder = EventStreamDecoder()
    decoder.feed(b'{"type":"a"}\n{"type":"b","payload":{"te')
    assert decoder.finish() == []
    assert decoder.pending_bytes > 0


def test_finish_keeps_a_line_cut_inside_a_character_out():
    decoder = EventStreamDecoder()
    decoder.feed(b'{"type":"a"}\n{"type":"b","payload":"\xe2\x98')
    assert decoder.finish() == []


def test_a_bad_line_is_refused_with_its_number():
    decoder = EventStreamDecoder()
    decoder.feed(b'{"type":"a"}\n\n')
    with pytest.raises(RecordingError, match=r"^line 3 of the event stream is not valid JSON"):
        decoder.feed(b'{"type": nope}\n')


def test_a_line_that_is_not_an_object_is_refused_with_its_number():
    with pytest.raises(RecordingError, match=r"line 2 of the event stream: expected an event "
                                             r"object, found a list"):
        EventStreamDecoder().feed(b'{"type":"a"}\n[1,2]\n')


def test_a_bad_last_line_without_newline_is_refused_at_finish():
    decoder = EventStreamDecoder()
    decoder.feed(b'{"type":"a"}\n{"type" "b"}')
    with pytest.raises(RecordingError, match=r"^line 2 of the event stream is not valid JSON"):
        decoder.finish()


def test_non_standard_constants_and_invalid_utf8_are_refused_by_line():
    with pytest.raises(RecordingError, match="line 1 .*constant NaN"):
        EventStreamDecoder().feed(b'{"type":"a","payload":NaN}\n')
    with pytest.raises(RecordingError, match="line 2 of the event stream is not valid UTF-8"):
        EventStreamDecoder().feed(b'{"type":"a"}\n{"type":"\xff"}\n')


def test_a_byte_order_mark_at_the_start_is_skipped_even_when_split():
    decoder = EventStreamDecoder()
    assert decoder.feed(b"\xef\xbb") == []
    assert decoder.feed(b'\xbf{"type":"a"}\n') == [{"type": "a"}]


def test_rotation_the_older_generation_then_the_current_is_the_whole_stream():
    rotated = DATA / "agent-tool-rotated"
    older = (rotated / "events.ndjson.1").read_bytes()
    current = (rotated / "events.ndjson").read_bytes()
    whole = _decode_all(older, 333) + _decode_all(current, 333)
    assert whole == _lines(rotated / "events.ndjson.1") + _lines(rotated / "events.ndjson")
    # The rotated run is the agent-tool script run again: the same events in the
    # same order, none lost or repeated at the seam, all of one run.
    same_script = _lines(DATA / "agent-tool" / "events.ndjson")
    assert [e["type"] for e in whole] == [e["type"] for e in same_script]
    assert len(split_runs(whole)) == 1
    offsets = [e["meta"]["runOffsetMs"] for e in whole]
    assert offsets == sorted(offsets)


def _event(kind: str, run_id: str | None) -> dict:
    return {"type": kind, "meta": {} if run_id is None else {"runId": run_id}}


def test_split_runs_groups_by_run_id_in_order_of_first_appearance():
    events = [_event("a", "r2"), _event("b", "r1"), _event("c", "r2"), _event("d", "r1")]
    assert split_runs(events) == [[events[0], events[2]], [events[1], events[3]]]


def test_split_runs_keeps_events_without_a_run_id_with_the_run_before_them():
    leading = {"type": "x"}
    events = [leading, _event("a", "r1"), {"type": "late"}, _event("b", "r2"),
              {"type": "later", "meta": {}}]
    assert split_runs(events) == [[leading, events[1], events[2]], [events[3], events[4]]]


def test_split_runs_of_nothing_and_of_no_run_ids():
    assert split_runs([]) == []
    events = [{"type": "a"}, {"type": "b"}]
    assert split_runs(events) == [events]


def test_two_runs_appended_to_one_file_split_into_the_two_streams():
    first = _lines(DATA / "agent-tool" / "events.ndjson")
    second = _lines(DATA / "parallel-agents" / "events.ndjson")
    runs = split_runs(first + second)
    assert runs == [first, second]


@pytest.mark.parametrize("name", ["agent-tool/events.firehose.ndjson",
                                  "parallel-agents/events.ndjson"])
def test_the_one_pass_parse_gives_what_reading_line_by_line_gives(monkeypatch, name):
    data = (DATA / name).read_bytes()
    at_once = _decode_all(data, 1 << 20)
    from recorders import fast_parse
    monkeypatch.setattr(fast_parse, "available", lambda: False)
    assert _decode_all(data, 1 << 20) == at_once == _lines(DATA / name)


def test_lines_the_one_pass_parse_declines_are_read_one_by_one():
    data = (b'{"type":"a","payload":{"text":"half \\ud83d"}}\n'  # a lone surrogate escape
            b'{"type":"b","payload":{"n":1e400}}\n')  # a number too large: refused by line
    decoder = EventStreamDecoder()
    with pytest.raises(RecordingError, match="^line 2 of the event stream is not valid JSON: "
                                             "the number 1e400 is too large"):
        decoder.feed(data)
    assert EventStreamDecoder().feed(data.splitlines(keepends=True)[0]) == [
        {"type": "a", "payload": {"text": "half \ud83d"}}]


def test_two_objects_on_one_line_are_refused_by_its_number():
    with pytest.raises(RecordingError, match="^line 2 of the event stream is not valid JSON"):
        EventStreamDecoder().feed(b'{"type":"a"}\n{"type":"b"},{"type":"c"}\n')

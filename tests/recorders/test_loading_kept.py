"""The loader keeps only what the views read, and says nothing different otherwise.

``load_recording`` walks the top of the document and drops the snapshot's
unread members as it reads them (a memory saving); everything it keeps, and
every error it raises, must be what parsing the whole file would give.
"""

from __future__ import annotations

import gc
import json
import sys

import pytest

from corpus_files import case_names, read_bytes, recording_path
from recorders import deep_parse
from recorders.errors import RecordingError
from recorders.loading import (MAX_NESTING_DEPTH, UNREAD_SNAPSHOT_KEYS, interpret,
                               load_recording, parse_json)


def _whole(data) -> object:
    """What the loader would make of ``data`` had it kept everything."""
    return interpret(parse_json(data))


def _without_unread(snapshot: dict | None) -> dict | None:
    if snapshot is None:
        return None
    return {k: v for k, v in snapshot.items() if k not in UNREAD_SNAPSHOT_KEYS}


def _same_apart_from_dropped(kept, whole) -> None:
    assert kept.snapshot == _without_unread(whole.snapshot)
    for name in ("source_kind", "typed_events", "boundary_events", "has_typed_stream",
                 "has_boundary_log", "boundary_mode", "envelope_format", "producer", "run_info",
                 "privacy", "configuration", "structure", "typed_counts", "boundary_counts",
                 "typed_run_ids", "unknown_typed_types", "unknown_boundary_types", "gaps"):
        assert getattr(kept, name) == getattr(whole, name), name


def _message(load, data) -> str:
    with pytest.raises(RecordingError) as info:
        load(data)
    return str(info.value)


@pytest.mark.parametrize("case", case_names())
def test_every_corpus_recording_loads_as_the_whole_parse_would(case):
    data = read_bytes(recording_path(case))
    kept, whole = load_recording(data), _whole(data)
    _same_apart_from_dropped(kept, whole)
    present = set(whole.snapshot or {}) & UNREAD_SNAPSHOT_KEYS
    assert set(kept.dropped_snapshot_keys) == present


def test_the_unread_snapshot_members_are_the_ones_dropped():
    rec = load_recording(read_bytes(recording_path("large-agent-300-tool-calls")))
    assert set(rec.dropped_snapshot_keys) == {"executionTree", "subflowResults", "commitLog"}
    assert "executionTree" not in rec.snapshot and rec.snapshot_run_id is not None
    assert len(rec.boundary_events) == 4671


def test_an_envelope_drops_inside_its_recording():
    data = read_bytes(recording_path("agent-one-tool-envelope"))
    rec = load_recording(data)
    assert rec.source_kind == "envelope" and "executionTree" in rec.dropped_snapshot_keys
    _same_apart_from_dropped(rec, _whole(data))


def test_duplicate_keys_count_as_json_loads_counts_them():
    document = json.loads(read_bytes(recording_path("llmcall-single")))
    body = json.dumps(document)
    # A second, empty "events" after the first: the last one counts, as in json.loads.
    data = (body[:-1] + ', "events": [], "snapshot": ' + json.dumps(document["snapshot"])
            + "}").encode()
    kept, whole = load_recording(data), _whole(data)
    assert kept.typed_events == [] == whole.typed_events
    _same_apart_from_dropped(kept, whole)


def _broken(case: str, edit) -> bytes:
    return edit(read_bytes(recording_path(case)).decode()).encode()


BROKEN = {
    "trailing comma in the snapshot": lambda t: t.replace('"runId"', '"runId": 1, }', 1),
    "a constant inside a dropped member": lambda t: t.replace(
        '"executionTree": {', '"executionTree": {"x": NaN, ', 1).replace(
        '"executionTree":{', '"executionTree":{"x":NaN,', 1),
    "a bad token inside a dropped member": lambda t: t.replace(
        '"commitLog": [', '"commitLog": [tru, ', 1).replace('"commitLog":[', '"commitLog":[tru,', 1),
    "cut short inside the snapshot": lambda t: t[: t.index("executionTree") + 200],
    "extra data after the document": lambda t: t + " {}",
    "a second byte-order mark": lambda t: "\ufeff\ufeff" + t,
    "an unquoted key at the top": lambda t: t.replace('{', '{snapshot2: 1, ', 1),
    "an overlong integer in a dropped member": lambda t: t.replace(
        '"commitLog": [', '"commitLog": [' + "9" * 5000 + ", ", 1).replace(
        '"commitLog":[', '"commitLog":[' + "9" * 5000 + ",", 1),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_file_is_refused_with_the_whole_parse_message(name):
    data = _broken("agent-no-tools", BROKEN[name])
    assert _message(load_recording, data) == _message(_whole, data)


def test_a_too_deep_dropped_member_is_refused_as_before():
    document = json.loads(read_bytes(recording_path("llmcall-single")))
    deep = "[" * 12_000 + "]" * 12_000
    body = json.dumps(document)
    data = body.replace('"snapshot": {', '"snapshot": {"executionTree": ' + deep + ", ", 1).encode()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(MAX_NESTING_DEPTH + 100)  # the loader's own; other tests raise it
    try:
        message = _message(load_recording, data)
        assert "nested deeper" in message and message == _message(_whole, data)
    finally:
        sys.setrecursionlimit(limit)


# ── the process is left as it was ────────────────────────────────────

def _process_state() -> tuple:
    return gc.isenabled(), gc.get_freeze_count(), sys.getrecursionlimit()


def test_loading_the_deepest_corpus_file_leaves_the_process_as_it_found_it():
    data = read_bytes(recording_path("large-agent-300-tool-calls"))  # 1,213 levels deep
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1_000)  # Python's default, as a caller would have it
    try:
        before = _process_state()
        load_recording(data)
        assert _process_state() == before
        with pytest.raises(RecordingError):
            load_recording(data[: len(data) // 2])  # large, and cut short
        assert _process_state() == before
    finally:
        sys.setrecursionlimit(limit)


def test_a_collector_disabled_by_the_caller_stays_disabled():
    gc.disable()
    try:
        load_recording(read_bytes(recording_path("llmcall-single")))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_parses_nest_and_the_last_one_out_restores():
    limit = sys.getrecursionlimit()
    with deep_parse.parsing(limit + 500):
        with deep_parse.collector_paused():
            assert not gc.isenabled()
            assert sys.getrecursionlimit() == limit + 500
        assert not gc.isenabled()
    assert gc.isenabled() and sys.getrecursionlimit() == limit


def test_a_parse_in_another_thread_keeps_its_limit_until_it_ends():
    import threading

    limit = sys.getrecursionlimit()
    inside, release = threading.Event(), threading.Event()

    def long_parse() -> None:
        with deep_parse.parsing(limit + 700):
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=long_parse)
    thread.start()
    inside.wait(5)
    with deep_parse.parsing(limit + 100):
        pass  # a short parse ends while the long one is still reading
    assert sys.getrecursionlimit() == limit + 700
    release.set()
    thread.join(5)
    assert sys.getrecursionlimit() == limit and gc.isenabled()


def test_a_limit_the_caller_sets_during_a_parse_is_kept():
    limit = sys.getrecursionlimit()
    try:
        with deep_parse.parsing(limit + 300):
            sys.setrecursionlimit(limit + 900)  # the caller's own thread, meanwhile
        assert sys.getrecursionlimit() == limit + 900
    finally:
        sys.setrecursionlimit(limit)

"""The fast parse (msgspec) gives what the json module gives, or declines.

``load_recording`` tries ``recorders.fast_parse`` first; ``fast=False`` parses
with the json module alone. Whatever the input, the two must load the same
recording or refuse it with the same message. The fuzz suite holds every
mutated file to this too (``fuzz_support.exercise_bytes``).
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys

import pytest

from corpus_files import case_names, read_bytes, recording_path
from recorders import fast_parse
from recorders.deep_parse import parsing
from recorders.errors import RecordingError
from recorders.loading import (MAX_NESTING_DEPTH, PARSE_RECURSION_LIMIT, UNREAD_SNAPSHOT_KEYS,
                               load_recording)

pytestmark = pytest.mark.skipif(not fast_parse.available(), reason="msgspec is not installed")

PLAN = {"snapshot": {k: None for k in UNREAD_SNAPSHOT_KEYS},
        "recording": {"snapshot": {k: None for k in UNREAD_SNAPSHOT_KEYS}}}


def _outcome(data, fast: bool):
    try:
        return load_recording(data, fast=fast)
    except RecordingError as exc:
        return str(exc)


def _fields(recording) -> dict:
    return {f.name: getattr(recording, f.name) for f in dataclasses.fields(recording)}


def _assert_same(data) -> object:
    fast, slow = _outcome(data, True), _outcome(data, False)
    if isinstance(slow, str) or isinstance(fast, str):
        assert fast == slow
    else:
        assert _fields(fast) == _fields(slow)
    return fast


def _taken(data: bytes) -> bool:
    """Whether the fast parse accepts ``data`` (rather than leaving it to the json module)."""
    with parsing(PARSE_RECURSION_LIMIT):
        try:
            fast_parse.parse_kept(data, PLAN)
        except fast_parse.Declined:
            return False
    return True


@pytest.mark.parametrize("case", case_names())
def test_every_corpus_recording_takes_the_fast_parse_and_loads_the_same(case):
    data = read_bytes(recording_path(case))
    assert _taken(data)
    recording = _assert_same(data)
    assert not isinstance(recording, str)
    assert set(recording.dropped_snapshot_keys) == UNREAD_SNAPSHOT_KEYS


def test_the_character_count_is_the_decoded_texts():
    data = read_bytes(recording_path("large-agent-300-tool-calls"))
    assert not data.isascii()  # the count must not be the byte count
    assert load_recording(data).source_chars == len(data.decode("utf-8"))


def _agent() -> dict:
    return json.loads(read_bytes(recording_path("agent-no-tools")))


def _with_member(where: str, literal: str) -> bytes:
    """agent-no-tools with ``literal`` put first inside snapshot member ``where``."""
    text = json.dumps(_agent())
    if where == "events":
        marker = '"events": ['
    else:
        marker = f'"{where}": {{' if where != "commitLog" else '"commitLog": ['
    assert marker in text
    glue = '"x": ' if marker.endswith("{") else ""
    # Lone surrogates in ``literal`` stand for bytes that are not UTF-8.
    return text.replace(marker, marker + glue + literal + ", ", 1).encode("utf-8", "surrogateescape")


# Tokens a skipped member may hold that the json module refuses or reads in its
# own way; each is put inside a member the views never read, then inside one
# they do.
LITERALS = ("1e400", "-1e400", "1E+400", "1e0400", "1.7976931348623159e308", "1e-400",
            "5e-324", "1e308", "9" * 400, "9" * 4301, "-" + "9" * 299, "123456789012345678901",
            "NaN", "Infinity", "-Infinity", "tru", "nul", "01", "1.", ".5", "-", "+1", "1e",
            "0x10", '"\\ud800"', '"\\ud83d\\ude00"', '"\\x"', '"a\\u00"', '"\x01"', "[1,]",
            '{"a" 1}', '{"a":1,}', "[1 2]", "{1:2}", '"\udcff"', '"\udced\udca0\udc80"',
            '"\udcf4\udc90\udc80\udc80"', '"\udcc0\udcaf"', '"\u2028é…"', "[]", "{}", "-0",
            "-0.0")
WHERE = ("executionTree", "subflowResults", "commitLog", "events")


def _short(literal: str) -> str:
    return ascii(literal if len(literal) < 24 else f"{literal[:8]}…({len(literal)})")


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("literal", LITERALS, ids=_short)
def test_a_token_anywhere_gives_what_the_json_module_gives(where, literal):
    _assert_same(_with_member(where, literal))


@pytest.mark.parametrize("literal", ["1e400", "9" * 4301, "NaN", '"\udcff"', "tru"], ids=_short)
def test_a_malformed_unread_member_is_refused_with_a_clear_message(literal):
    data = _with_member("executionTree", literal)
    assert not _taken(data)
    message = _outcome(data, True)
    assert isinstance(message, str) and "\n" not in message
    assert any(word in message for word in ("too large", "not valid", "not standard"))


@pytest.mark.parametrize("literal", ["1e400", "1E+308", "2e-0400", "9" * 4301, "7" * 301],
                         ids=_short)
def test_a_risky_number_across_the_number_scans_slices_is_still_seen(monkeypatch, literal):
    # The scan reads the file in slices; a number cut by a slice's end must
    # be found whole, wherever the cut falls in it.
    monkeypatch.setattr(fast_parse, "_SLICE", 64)
    data = _with_member("executionTree", literal)
    at = data.index(literal.encode())
    for shift in range(64):
        padded = data[:at] + b" " * shift + data[at:]
        assert not _taken(padded), shift
        _assert_same(padded)


def test_numbers_decode_as_the_json_module_decodes_them():
    rnd = random.Random(15)
    literals = []
    for _ in range(20_000):
        kind = rnd.random()
        if kind < 0.3:
            literals.append(repr(rnd.uniform(-1e9, 1e9)))
        elif kind < 0.6:
            literals.append(f"{rnd.randint(1, 10**17)}e{rnd.randint(-99, 99)}")
        elif kind < 0.8:
            literals.append(f"0.{rnd.randint(0, 10**30):030d}")
        else:
            literals.append(str(rnd.randint(-(10**rnd.randint(1, 290)), 10**rnd.randint(1, 290))))
    document = _agent()
    document["events"][0]["payload"] = {"numbers": "PLACEHOLDER"}
    data = json.dumps(document).replace('"PLACEHOLDER"', "[" + ",".join(literals) + "]").encode()
    assert _taken(data)
    fast = _assert_same(data)
    values = fast.typed_events[0]["payload"]["numbers"]
    assert [type(v) for v in values] == [type(json.loads(x)) for x in literals]


def test_a_repeated_name_counts_once_and_last():
    document = _agent()
    body = json.dumps(document)
    shadowed = json.dumps({"commitLog": [1], "runId": "first"})
    data = ('{"snapshot": ' + shadowed + ", " + body[1:]).encode()
    recording = _assert_same(data)
    assert recording.snapshot_run_id == document["snapshot"]["runId"]
    # A snapshot shadowed by a later one is still checked: here it holds 1e400.
    hidden = ('{"snapshot": {"commitLog": [1e400]}, ' + body[1:]).encode()
    assert "too large" in _assert_same(hidden)


def test_unknown_names_at_the_top_change_nothing():
    document = _agent()
    document["scaledFrom"] = {"note": "an unknown name", "n": [1, 2.5]}
    data = json.dumps(document).encode()
    assert _taken(data)
    _assert_same(data)
    # With none of the names a recording has, the message lists what was found.
    message = _assert_same(b'{"hello": 1, "world": [2]}')
    assert "hello" in message and "world" in message


@pytest.mark.parametrize("document", [
    {"format": "agentfootprint.recording.v1", "recording": {"snapshot": [1], "events": []}},
    {"snapshot": "text", "events": []},
    {"snapshot": {"commitLog": 1}, "recording": {"snapshot": {"executionTree": 2}}, "events": []},
    {"snapshot": None, "events": [], "recording": 5},
])
def test_odd_shapes_load_or_fail_the_same(document):
    _assert_same(json.dumps(document).encode())


def _max_accepted_depth(where: str, fast: bool) -> int:
    """The deepest ``[[…]]`` put first in member ``where`` that still parses (binary search)."""
    low, high = 9_000, 10_300
    while low < high:
        depth = (low + high + 1) // 2
        outcome = _outcome(_with_member(where, "[" * depth + "]" * depth), fast)
        if isinstance(outcome, str) and "nested deeper" in outcome:
            high = depth - 1
        else:  # loaded, or refused after the parse (an event that is not an object)
            low = depth
    return low


@pytest.mark.parametrize("where", ["events", "executionTree"])
def test_the_fast_parse_never_accepts_a_depth_the_json_module_refuses(where):
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(MAX_NESTING_DEPTH + 100)  # the loader's own; other tests raise it
    try:
        assert _max_accepted_depth(where, True) <= _max_accepted_depth(where, False)
    finally:
        sys.setrecursionlimit(limit)


def test_without_msgspec_the_json_module_parses(monkeypatch):
    data = read_bytes(recording_path("large-loop-of-parallel"))
    with_msgspec = load_recording(data)
    monkeypatch.setattr(fast_parse, "msgspec", None)
    assert not fast_parse.available()
    with pytest.raises(fast_parse.Declined):
        fast_parse.parse_kept(data, PLAN)
    assert _fields(load_recording(data)) == _fields(with_msgspec)


def test_real_recordings_fit_the_one_pass_shapes(monkeypatch):
    """Every corpus file decodes in one pass; the name-by-name walk is for odd files."""
    def no_walk(*_args):
        raise AssertionError("walked name by name")

    monkeypatch.setattr(fast_parse, "_object", no_walk)
    for case in case_names():
        assert _taken(read_bytes(recording_path(case))), case


def test_an_odd_snapshot_is_walked_name_by_name_and_kept_whole():
    document = _agent()
    document["snapshot"]["extraBookkeeping"] = {"kept": [1, 2]}
    data = json.dumps(document).encode()
    assert _taken(data)
    recording = _assert_same(data)
    assert recording.snapshot["extraBookkeeping"] == {"kept": [1, 2]}

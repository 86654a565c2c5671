"""Property tests: one changed payload field is found exactly; volatile fields never count."""

from __future__ import annotations

import copy
import json
from functools import lru_cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus_files import load_json, pair_run_path
from lens.compare import compare_runs
from lens.run import open_run

# A Sequence of LLMCalls and an Agent with tool calls: two shapes, small files.
SOURCES = ("sequence-middle-step-differs", "refund-tool-fails-vs-succeeds")
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@lru_cache(maxsize=None)
def _document(pair: str) -> dict:
    return load_json(pair_run_path(pair, "a"))


for _pair in SOURCES:  # read before any example runs (reading raises the recursion limit)
    _document(_pair)


def _events(document: dict) -> list:
    return document.get("recording", document)["events"]


def _tool_call_ids(document: dict) -> set[str]:
    return {e["payload"]["toolCallId"] for e in _events(document)
            if isinstance(e.get("payload"), dict) and "toolCallId" in e["payload"]}


def _leaves(value, path=()):
    """(path, value) of every string, number and boolean under ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, path + (key,))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _leaves(item, path + (position,))
    elif isinstance(value, (str, bool, int, float)):
        yield path, value


@lru_cache(maxsize=None)
def _mutable_leaves(pair: str) -> tuple:
    """Every payload leaf that is not volatile: no durationMs, no provider id."""
    document = _document(pair)
    ids = _tool_call_ids(document)
    found = []
    for index, event in enumerate(_events(document)):
        for path, value in _leaves(event.get("payload")):
            if "durationMs" in path or (isinstance(value, str) and value in ids):
                continue
            found.append((index, path))
    return tuple(found)


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    return value + "·changed"


def _set(root, path, make):
    for key in path[:-1]:
        root = root[key]
    root[path[-1]] = make(root[path[-1]])


def _open(document: dict):
    return open_run(json.dumps(document).encode())


@SETTINGS
@given(data=st.data())
def test_one_changed_payload_field_is_found_exactly(data):
    pair = data.draw(st.sampled_from(SOURCES))
    index, path = data.draw(st.sampled_from(_mutable_leaves(pair)))
    original = _document(pair)
    mutated = copy.deepcopy(original)
    _set(_events(mutated)[index]["payload"], path, _changed)
    result = compare_runs(_open(original), _open(mutated))
    assert not result.identical
    first = result.first_difference
    assert first is not None
    assert first.a.typed_index == index and first.b.typed_index == index
    assert first.field == "payload." + ".".join(str(p) for p in path)


@st.composite
def _volatile_changes(draw):
    return {
        "run_id": draw(st.booleans()),
        "time_shift": draw(st.integers(min_value=-10**6, max_value=10**6)),
        "durations": draw(st.booleans()),
        "stage_ids": draw(st.booleans()),
        "tool_call_ids": draw(st.booleans()),
        "salt": draw(st.text(alphabet="abcdefXYZ0123", min_size=1, max_size=6)),
    }


def _rename(value, names: dict):
    if isinstance(value, dict):
        return {k: _rename(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, names) for v in value]
    return names.get(value, value) if isinstance(value, str) else value


def _scramble_durations(value, salt: int):
    if isinstance(value, dict):
        for key in value:
            if key == "durationMs" and isinstance(value[key], (int, float)):
                value[key] = value[key] + salt
            else:
                _scramble_durations(value[key], salt)
    elif isinstance(value, list):
        for item in value:
            _scramble_durations(item, salt)


@SETTINGS
@given(pair=st.sampled_from(SOURCES), changes=_volatile_changes())
def test_volatile_fields_changed_alone_never_make_a_difference(pair, changes):
    original = _document(pair)
    mutated = copy.deepcopy(original)
    salt = changes["salt"]
    if changes["tool_call_ids"]:  # a real provider: fresh ids, used consistently
        names = {old: f"call_{salt}_{n}" for n, old in enumerate(sorted(_tool_call_ids(original)))}
        mutated = _rename(mutated, names)
    for event in _events(mutated):
        meta = event["meta"]
        if changes["run_id"]:
            meta["runId"] = f"run-{salt}"
        meta["wallClockMs"] += changes["time_shift"]
        meta["runOffsetMs"] += abs(changes["time_shift"]) % 97
        if changes["stage_ids"]:
            meta["runtimeStageId"] = f"{salt}/{meta['runtimeStageId']}"
        if changes["durations"]:
            _scramble_durations(event.get("payload"), len(salt) * 7 + 1)
    result = compare_runs(_open(original), _open(mutated))
    assert result.identical, result.first_difference
    assert result.first_difference is None and result.served_difference is None


def test_an_id_reused_for_two_calls_is_a_difference():
    original = _document("refund-tool-fails-vs-succeeds")
    ids = [e["payload"]["toolCallId"] for e in _events(original)
           if e["type"].endswith("stream.tool_start")]
    mutated = _rename(copy.deepcopy(original), {ids[1]: ids[0]})  # second call reuses the first id
    result = compare_runs(_open(original), _open(mutated))
    assert not result.identical
    second_start = [i for i, e in enumerate(_events(original))
                    if e["type"].endswith("stream.tool_start")][1]
    assert result.first_difference.a.typed_index <= second_start


def _boolean_leaves(pair: str) -> tuple:
    document = _document(pair)
    return tuple((index, path) for index, path in _mutable_leaves(pair)
                 if isinstance(_get(_events(document)[index]["payload"], path), bool))


def _get(root, path):
    for key in path:
        root = root[key]
    return root


@SETTINGS
@given(data=st.data())
def test_true_against_the_number_one_is_a_difference(data):
    # JSON true and 1 are different values although Python's == calls them equal.
    pair = data.draw(st.sampled_from([p for p in SOURCES if _boolean_leaves(p)]))
    index, path = data.draw(st.sampled_from(_boolean_leaves(pair)))
    original = _document(pair)
    mutated = copy.deepcopy(original)
    _set(_events(mutated)[index]["payload"], path, int)
    result = compare_runs(_open(original), _open(mutated))
    assert not result.identical
    first = result.first_difference
    assert first.a.typed_index == index and first.b.typed_index == index
    assert first.field == "payload." + ".".join(str(p) for p in path)


def test_true_against_one_is_found_without_the_optional_encoder(monkeypatch):
    import lens.compare.events as events
    monkeypatch.setattr(events, "_json_text", None)
    pair = next(p for p in SOURCES if _boolean_leaves(p))
    index, path = _boolean_leaves(pair)[0]
    mutated = copy.deepcopy(_document(pair))
    _set(_events(mutated)[index]["payload"], path, int)
    first = compare_runs(_open(_document(pair)), _open(mutated)).first_difference
    assert first is not None and first.a.typed_index == index
    assert first.field == "payload." + ".".join(str(p) for p in path)

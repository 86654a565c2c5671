"""Pack a plain recording the way agentfootprint's ``packRecording`` does, for
tests and benchmarks that need packed files the samples do not have (a
payload with the reserved keys, a scaled copy). Lens itself never packs.

The rules (``agentfootprint.recording.packed.v1``): a value (object, array,
or string of at least 64 UTF-16 units) that occurs at least twice by content
and whose JSON is at least 64 UTF-16 units long is written once in
``values`` and referred to as ``{"$af:ref": n}``, values in the order they
are first written (an outer value before the values inside it); an object
of the recording's own with a key ``$af:ref`` or ``$af:esc`` is written
``{"$af:esc": <it>}``. Counting here is by content over the parsed JSON
(agentfootprint also counts a shared object once by identity, which JSON text
does not keep), so its choice of what to pool can differ from the samples';
the file is a valid packed recording either way.
"""

from __future__ import annotations

import json
from typing import Any

PACKED_FORMAT = "agentfootprint.recording.packed.v1"
MIN_POOLED_CHARS = 64
REF = "$af:ref"
ESC = "$af:esc"


def _units(text: str) -> int:
    """Length in UTF-16 code units, as JavaScript's ``length``."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _number_text(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return json.dumps(value)


def pack_recording(recording: Any) -> dict:
    """``recording`` (parsed JSON) packed; its objects are not changed."""
    keys: dict[Any, int] = {}  # content key: id
    sizes: list[int] = []
    counts: list[int] = []
    by_object: dict[int, int] = {}  # id() of a container: content id

    def content_id(key: Any, size: int) -> int:
        found = keys.get(key)
        if found is None:
            found = keys[key] = len(sizes)
            sizes.append(size)
            counts.append(0)
        return found

    def fragment(value: Any) -> tuple[Any, int]:
        """A member's content key and JSON length; counts what it reaches."""
        if value is None:
            return "n", 4
        if value is True or value is False:
            return ("t", 4) if value else ("f", 5)
        if isinstance(value, (int, float)):
            text = _number_text(value)
            return ("d", text), len(text)
        if isinstance(value, str):
            size = _units(json.dumps(value, ensure_ascii=False))
            if _units(value) < MIN_POOLED_CHARS:
                return ("s", value), size
            ident = content_id(("S", value), size)
            counts[ident] += 1
            return ("#", ident), size
        if isinstance(value, list):
            parts = [fragment(member) for member in value]
            key = ("A", tuple(part[0] for part in parts))
            size = 2 + max(0, len(parts) - 1) + sum(part[1] for part in parts)
        else:
            parts = [(name, fragment(member)) for name, member in value.items()]
            key = ("O", tuple((name, part[0]) for name, part in parts))
            size = 2 + max(0, len(parts) - 1) + sum(
                _units(json.dumps(name, ensure_ascii=False)) + 1 + part[1] for name, part in parts)
        ident = content_id(key, size)
        by_object[id(value)] = ident
        counts[ident] += 1
        return ("#", ident), size

    fragment(recording)
    values: list[Any] = []
    written: dict[int, int] = {}

    def emit(value: Any) -> Any:
        if isinstance(value, str):
            if _units(value) < MIN_POOLED_CHARS:
                return value
            ident = keys[("S", value)]
        elif isinstance(value, (list, dict)):
            ident = by_object[id(value)]
        else:
            return value
        if counts[ident] < 2 or sizes[ident] < MIN_POOLED_CHARS:
            return expand(value)
        index = written.get(ident)
        if index is None:
            index = written[ident] = len(values)
            values.append(None)
            values[index] = expand(value)
        return {REF: index}

    def expand(value: Any) -> Any:
        if isinstance(value, list):
            return [emit(member) for member in value]
        if isinstance(value, dict):
            out = {name: emit(member) for name, member in value.items()}
            return {ESC: out} if REF in value or ESC in value else out
        return value

    packed_recording = emit(recording)
    return {"format": PACKED_FORMAT, "recording": packed_recording, "values": values}


def packed_json(recording: Any) -> bytes:
    """The packed recording as compact JSON, as ``JSON.stringify`` writes it."""
    return json.dumps(pack_recording(recording), ensure_ascii=False,
                      separators=(",", ":")).encode()

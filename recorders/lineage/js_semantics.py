"""The few JavaScript semantics the lineage port must reproduce exactly.

Owns: what "undefined" is here, how a JS engine orders an object's keys and
sorts strings, and the value operations the engine's array fold uses
(own-property path reads, structural equality, union merge), all over parsed
JSON values. Nothing here knows about commit logs.
"""

from __future__ import annotations

from typing import Any

# A field the engine leaves undefined: JSON.stringify drops it, so must we.
MISSING: Any = object()

_MAX_ARRAY_INDEX = 2**32 - 2  # the largest index a JS array (and key order) treats as one
_DENIED = frozenset({"__proto__", "constructor", "prototype"})


def array_index(text: str) -> int | None:
    """``text`` as a canonical array index ("7", not "07" or "-1"), or None."""
    if not text.isdigit() or not text.isascii() or (len(text) > 1 and text[0] == "0"):
        return None
    value = int(text)
    return value if value <= _MAX_ARRAY_INDEX else None


def object_keys(obj: dict) -> list[str]:
    """``Object.keys`` order: integer-like keys ascending first, then the rest
    as inserted. It decides the order reads are expanded in, hence BFS order."""
    numbered = []
    named = []
    for key in obj:
        index = array_index(key) if isinstance(key, str) else None
        if index is None:
            named.append(key)
        else:
            numbered.append((index, key))
    if not numbered:
        return named
    numbered.sort()
    return [key for _, key in numbered] + named


def utf16_order(text: str) -> bytes:
    """Sort key matching ``Array.prototype.sort`` on strings (UTF-16 code units);
    lone surrogates from a hostile recording are kept, not refused."""
    return text.encode("utf-16-be", "surrogatepass")


def without_missing(fields: dict) -> dict:
    """``fields`` less the undefined ones, as JSON.stringify would write them."""
    return {key: value for key, value in fields.items() if value is not MISSING}


def is_array(value: Any) -> bool:
    return isinstance(value, list)


def own_get(obj: Any, segments: list[str]) -> Any:
    """The value at ``segments`` through own properties only; None when absent
    (the engine's guarded path read; strings and arrays own indices and length)."""
    current = obj
    for segment in segments:
        if current is None or segment in _DENIED:
            return None
        if isinstance(current, dict):
            if segment not in current:
                return None
            current = current[segment]
        elif isinstance(current, (list, str)):
            if segment == "length":
                current = len(current)
                continue
            index = array_index(segment)
            if index is None or index >= len(current):
                return None
            current = current[index]
        else:  # numbers and booleans own no properties
            return None
    return current


def _kind(value: Any) -> str:
    # JavaScript's typeof over JSON values (an array is an "object"), unlike a JSON type name.
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def deep_equal(a: Any, b: Any) -> bool:
    """Structural equality of JSON values as the engine judges it: numbers by
    value (1 and 1.0 alike), a boolean never a number, arrays by position."""
    kind = _kind(a)
    if kind != _kind(b):
        return False
    if kind != "object":
        return a == b
    if isinstance(a, list) or isinstance(b, list):
        if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
            return False
        return all(deep_equal(x, y) for x, y in zip(a, b))
    if len(a) != len(b):
        return False
    return all(key in b and deep_equal(value, b[key]) for key, value in a.items())


def _same_value_zero(value: Any) -> Any:
    """A hashable identity for a Set: primitives by value, containers by reference."""
    kind = _kind(value)
    if kind == "object":
        return ("ref", id(value))
    if kind == "number":
        return ("number", float(value) if isinstance(value, float) else value)
    return (kind, value)


def smart_merge(dst: Any, src: Any) -> Any:
    """The engine's merge verb: arrays union without repeats (an empty one
    clears), objects merge key by key, anything else replaces. Never mutates."""
    if not isinstance(src, (dict, list)):
        return src
    if isinstance(src, list):
        if not src:
            return []
        if isinstance(dst, list):
            seen: set = set()
            union = []
            for item in (*dst, *src):
                identity = _same_value_zero(item)
                if identity not in seen:
                    seen.add(identity)
                    union.append(item)
            return union
        return list(src)
    if isinstance(dst, dict):
        out = dict(dst)
    elif isinstance(dst, list):  # spreading an array into an object keys it by index
        out = {str(index): item for index, item in enumerate(dst)}
    else:
        out = {}
    for key in object_keys(src):
        out[key] = smart_merge(out.get(key), src[key])
    return out


def truthy(value: Any) -> bool:
    """JavaScript truthiness: an empty object or array is true, unlike Python's."""
    if isinstance(value, (dict, list)):
        return True
    return bool(value) and value is not MISSING

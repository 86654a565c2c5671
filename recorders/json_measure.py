"""The JSON text of a parsed value, measured and written from its start, at a
cost that follows the value's distinct objects and the characters asked for,
never the size of the text it stands for.

A packed recording's value referred to from a million places is one object in
memory and a million copies in its JSON; measuring it whole or writing its
first page must not write the million copies.

Owns: :func:`json_length` (``len(json.dumps(value, ensure_ascii=False))``
without writing it) and :func:`json_start` (the first characters of that
text). Both walk without recursion, so any depth is fine.

Does not own: when a caller writes a value whole or cuts it (``lens.text``,
``lens.share.otlp``).
"""

from __future__ import annotations

import json
import re
from typing import Any

_json_string = json.encoder.encode_basestring  # what json.dumps(ensure_ascii=False) writes
_ESCAPED = re.compile('[\x00-\x1f"\\\\]')
# What each character JSON escapes adds to a string's length: \" \\ \b \f \n \r \t
# add one; any other control character, written \u00XX, five.
_ESCAPE_EXTRA = tuple((chr(code), 1 if chr(code) in '\b\f\n\r\t' else 5) for code in range(32)) \
    + (('"', 1), ("\\", 1))
_SHARED_STRING_CHARS = 256  # a longer string is measured once per object


def _string_length(text: str) -> int:
    """Characters of ``text`` written as a JSON string (quotes included), without writing it."""
    if _ESCAPED.search(text) is None:
        return len(text) + 2
    return len(text) + 2 + sum(text.count(char) * extra for char, extra in _ESCAPE_EXTRA)


def _key_text(key: Any) -> str:
    """A member name as json.dumps writes it (before quoting)."""
    if isinstance(key, str):
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, (int, float)):
        return _scalar_text(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _scalar_text(node: Any) -> str:
    """A value that is not a string, list or object, as json.dumps writes it."""
    if node is None:
        return "null"
    if node is True:
        return "true"
    if node is False:
        return "false"
    if isinstance(node, int):
        return int.__repr__(node)
    if isinstance(node, float):
        if node != node:
            return "NaN"
        if node in (float("inf"), float("-inf")):
            return "Infinity" if node > 0 else "-Infinity"
        return float.__repr__(node)
    return _json_string(str(node))  # json_text's default=str


def json_length(value: Any) -> int:
    """``len(json_text(value))`` for a value that is not a string, without writing
    it: each container and long string sized once per object (no recursion).
    ValueError for a cycle, TypeError for a member name JSON cannot write."""
    sizes: dict[int, int] = {}
    opened: set[int] = set()
    # A frame: [its members' values, characters so far, the container]; a
    # container's brackets, separators and member names are counted when it opens.
    frames: list[list[Any]] = [[iter((value,)), 0, None]]
    while True:
        frame = frames[-1]
        size = 0
        for node in frame[0]:
            cls = node.__class__
            if cls is str:
                if len(node) <= _SHARED_STRING_CHARS:
                    size += len(_json_string(node))
                    continue
                known = sizes.get(id(node))
                if known is None:
                    known = sizes[id(node)] = _string_length(node)
                size += known
            elif cls is dict or cls is list or isinstance(node, (dict, list, tuple)):
                known = sizes.get(id(node))
                if known is not None:
                    size += known
                    continue
                if id(node) in opened:
                    raise ValueError("Circular reference detected")
                opened.add(id(node))
                opening = 2 + 2 * (len(node) - 1) if node else 2  # brackets, ", " between
                if isinstance(node, dict):
                    opening += 2 * len(node)  # ": " after each name
                    try:
                        opening += sum(map(len, map(_json_string, node)))
                    except TypeError:  # a name that is not a string
                        opening += sum(len(_json_string(_key_text(key))) for key in node)
                    members = iter(node.values())
                else:
                    members = iter(node)
                frame[1] += size
                frames.append([members, opening, node])
                break
            elif isinstance(node, str):
                size += _string_length(node)
            else:
                size += len(_scalar_text(node))
        else:
            frame[1] += size
            frames.pop()
            if not frames:
                return frame[1]
            sizes[id(frame[2])] = frame[1]
            opened.discard(id(frame[2]))
            frames[-1][1] += frame[1]


_END = object()


def json_start(value: Any, limit: int) -> str:
    """The first ``limit`` characters of ``json_text(value)`` (no recursion), written
    from the start and stopped there: a long string is cut before it is escaped,
    a long list or object is read no further than what is written."""
    pieces: list[str] = []
    size = 0
    frames: list[list[Any]] = []  # [its items, is an object, members so far]
    node = value
    while True:
        if isinstance(node, dict):
            piece = "{"
            frames.append([iter(node.items()), True, 0])
        elif isinstance(node, (list, tuple)):
            piece = "["
            frames.append([iter(node), False, 0])
        elif isinstance(node, str):
            piece = _json_string(node[:limit - size + 1])
        else:
            piece = _scalar_text(node)
        pieces.append(piece)
        size += len(piece)
        node = _END
        while frames and size < limit:
            frame = frames[-1]
            item = next(frame[0], _END)
            if item is _END:
                piece = "}" if frame[1] else "]"
                frames.pop()
            else:
                piece = ", " if frame[2] else ""
                frame[2] += 1
                if frame[1]:
                    key, node = item
                    piece += _json_string(_key_text(key)[:limit - size + 1]) + ": "
                else:
                    node = item
            pieces.append(piece)
            size += len(piece)
            if node is not _END:
                break
        if node is _END or size >= limit:
            return "".join(pieces)[:limit]

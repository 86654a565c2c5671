"""Small facts about recorded JSON values and subflow paths, written once.

Every floor reads the same untrusted JSON: whether a value is a number (a
JSON ``true`` is not one), how JavaScript would print a number, a value as
text that never raises, a value's kind named for a message, file text cut
to fit a one-line message, and the two
spellings of a subflow path (the boundary log's, which starts at
``__root__``, and the typed stream's, which does not).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from typing import Any, Container, Iterable, Iterator

ROOT_SUBFLOW_ID = "__root__"
# The root scope as a path (the first segment of every rooted subflow path).
ROOT_PATH: tuple[str, ...] = (ROOT_SUBFLOW_ID,)
PATH_SEPARATOR = "/"

# A value turned into text is cut here when even JSON cannot write it whole.
_REPR_LIMIT = 10_000
# Every integer up to 2**53 is exactly a float64.
_EXACT_INT = 2 ** 53


def is_number(value: Any) -> bool:
    """A JSON number: an int or float, never a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def number_or_none(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def int_or_none(value: Any) -> int | None:
    """A whole JSON number as an int (``3.0`` → ``3``); anything else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value  # any size: float() of a huge one would overflow
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def js_number_text(value: Any) -> str:
    """A number as the recording spells it (``3``, not ``3.0``; an integer of
    any size in full); other values via ``str``. Never raises."""
    if isinstance(value, float):
        if value.is_integer():
            return str(int(value))
        return str(value)  # nan and inf print as they are; JSON never holds them
    try:
        return str(value)
    except ValueError:  # an int past Python's digit limit for str()
        return f"an integer of about {value.bit_length() * 30103 // 100000} digits"


def exact_float(value: Any) -> float | None:
    """A JSON number as the float that equals it exactly; None for anything
    else, an integer a float64 cannot hold exactly included (past 2**53, and
    past float range), so a chart or table never shows a rounded or broken value."""
    if value.__class__ is float:
        return value
    if value.__class__ is int or (isinstance(value, int) and not isinstance(value, bool)):
        if -_EXACT_INT <= value <= _EXACT_INT:
            return float(value)
        try:
            as_float = float(value)
        except OverflowError:
            return None
        return as_float if as_float == value else None
    return None


def finite_or_none(value: Any) -> float | None:
    """A JSON number as a finite float (rounded when it must be), or None when
    it is not a number or lies beyond float range: the input to arithmetic and
    charts, which a huge integer would otherwise break."""
    if not is_number(value):
        return None
    try:
        as_float = float(value)
    except OverflowError:
        return None
    return as_float if math.isfinite(as_float) else None


def number_column(values: Iterable[Any]) -> list[Any]:
    """A table column of recorded numbers (None where there is none).

    Numeric (floats) when every number is exactly a float64, so it sorts and
    charts as numbers; otherwise every number as the recording's text (an
    integer past 2**53 or 2**63 would be rounded by, or break, a table's
    numeric column)."""
    values = list(values)
    floats = [exact_float(v) for v in values]
    if all(f is not None or not is_number(v) for f, v in zip(floats, values)):
        return [f if f is not None else None for f in floats]
    return [js_number_text(v) if is_number(v) else None for v in values]


def json_text(value: Any, indent: int | None = None) -> str:
    """A recorded value as text: strings as they are, anything else as JSON.

    Never raises: what JSON cannot write (a cycle, a nesting too deep for the
    encoder) is shown by ``repr``, cut to a readable length.
    """
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent, default=str)
    except RecursionError:  # nested deeper than the encoder recurses: write it without recursion
        return "".join(json_chunks(value))
    except (TypeError, ValueError):
        return repr(value)[:_REPR_LIMIT]


def json_chunks(value: Any, limit: int | None = None) -> Iterator[str]:
    """Compact JSON of a parsed value, in pieces, without recursion (any depth).

    With ``limit``, strings are cut to ``limit`` characters and the pieces
    stop once about ``limit`` characters were given, so the cost follows the
    limit, never the value's size."""
    given = 0
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if node.__class__ is _Token:
            piece = node.text
        elif isinstance(node, str):
            piece = json.dumps(node if limit is None else node[:limit], ensure_ascii=False)
        elif isinstance(node, dict):
            items = list(node.items()) if limit is None else _first_items(node.items(), limit)
            stack.append(_CLOSE_OBJECT)
            for i in range(len(items) - 1, -1, -1):
                key, item = items[i]
                stack.append(item)
                stack.append(_Token(("," if i else "") + json.dumps(
                    str(key) if limit is None else str(key)[:limit], ensure_ascii=False) + ":"))
            piece = "{"
        elif isinstance(node, (list, tuple)):
            items = list(node) if limit is None else _first_items(node, limit)
            stack.append(_CLOSE_LIST)
            for i in range(len(items) - 1, 0, -1):
                stack.append(items[i])
                stack.append(_COMMA)
            if items:
                stack.append(items[0])
            piece = "["
        elif node is None or isinstance(node, bool):
            piece = json.dumps(node)
        elif isinstance(node, (int, float)):
            piece = js_number_text(node)
        else:
            piece = json.dumps(str(node), ensure_ascii=False)
        yield piece
        given += len(piece)
        if limit is not None and given >= limit:
            return


def _first_items(items: Iterable[Any], limit: int) -> list[Any]:
    # A container shows at most ``limit`` items: each takes at least one character.
    return list(itertools.islice(items, limit))


class _Token:
    """Literal JSON punctuation on :func:`json_chunks`'s stack."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


_COMMA, _CLOSE_LIST, _CLOSE_OBJECT = _Token(","), _Token("]"), _Token("}")


def describe(value: Any) -> str:
    """A JSON value's kind the way a person reads it (``a string``, ``an object``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


_SHOWN_CHARS = 40


def shown_text(text: str, quoted: bool = False, limit: int = _SHOWN_CHARS) -> str:
    """File content fit for a one-line message: control characters escaped, long text cut."""
    shown = text if text.isprintable() else repr(text[: limit * 2])[1:-1]
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return f"'{shown}'" if quoted else shown


def rooted(path: Iterable[str]) -> tuple[str, ...]:
    """A subflow path that starts at ``__root__`` (added when absent)."""
    path = tuple(path)
    return path if path[:1] == ROOT_PATH else (ROOT_SUBFLOW_ID, *path)


def unrooted(path: Iterable[str]) -> tuple[str, ...]:
    """A subflow path without its leading ``__root__`` (the typed stream's spelling)."""
    path = tuple(path)
    return path[1:] if path[:1] == ROOT_PATH else path


def nearest_known_prefix(path: tuple[str, ...], known: Container[tuple[str, ...]], *,
                         proper: bool = False, shortest: int = 1) -> tuple[str, ...] | None:
    """The longest prefix of ``path`` that is in ``known`` (``path`` itself
    included unless ``proper``), no shorter than ``shortest``; None if none is."""
    for end in range(len(path) - (1 if proper else 0), shortest - 1, -1):
        if path[:end] in known:
            return path[:end]
    return None


_ESCAPES = {"%": "%25", "/": "%2F"}
_UNESCAPES = {"%25": "%", "%2F": "/", "%2f": "/"}
_ESCAPED = re.compile(r"%(?:25|2[Ff])")


def encode_path(path: Iterable[str]) -> str:
    """``("__root__", "a", "b")`` → ``"__root__/a/b"`` (the form used in links).

    ``%`` and ``/`` inside a segment are escaped (``%25``, ``%2F``), so two
    different paths never share a text: ``("__root__", "a/b")`` is
    ``"__root__/a%2Fb"``. Paths without either character read as before.
    """
    return PATH_SEPARATOR.join(
        segment.replace("%", _ESCAPES["%"]).replace("/", _ESCAPES["/"]) for segment in path)


def decode_path(text: str) -> tuple[str, ...]:
    """The inverse of :func:`encode_path` (any other ``%`` is taken literally)."""
    return tuple(_ESCAPED.sub(lambda match: _UNESCAPES[match.group(0)], segment)
                 for segment in text.split(PATH_SEPARATOR))

"""Small facts about recorded JSON values and subflow paths, written once.

Every floor reads the same untrusted JSON: whether a value is a number (a
JSON ``true`` is not one), how JavaScript would print a number, a value as
text that never raises, a value's kind named for a message, and the two
spellings of a subflow path (the boundary log's, which starts at
``__root__``, and the typed stream's, which does not).
"""

from __future__ import annotations

import json
from typing import Any, Container, Iterable

ROOT_SUBFLOW_ID = "__root__"
# The root scope as a path (the first segment of every rooted subflow path).
ROOT_PATH: tuple[str, ...] = (ROOT_SUBFLOW_ID,)

# A value turned into text is cut here when even JSON cannot write it whole.
_REPR_LIMIT = 10_000


def is_number(value: Any) -> bool:
    """A JSON number: an int or float, never a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def number_or_none(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def int_or_none(value: Any) -> int | None:
    """A whole JSON number as an int (``3.0`` → ``3``); anything else None."""
    if (isinstance(value, (int, float)) and not isinstance(value, bool)
            and float(value).is_integer()):
        return int(value)
    return None


def str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def js_number_text(value: Any) -> str:
    """A number as JavaScript prints it (``3``, not ``3.0``); other values via ``str``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def json_text(value: Any, indent: int | None = None) -> str:
    """A recorded value as text: strings as they are, anything else as JSON.

    Never raises: what JSON cannot write (a cycle, a nesting too deep for the
    encoder) is shown by ``repr``, cut to a readable length.
    """
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(value)[:_REPR_LIMIT]


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

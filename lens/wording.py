"""Numbers and recorded words for people: a count with its plural, money, a quotation.

Shared by the causes' headlines (:mod:`lens.evidence.plain_headlines`): a
count is ``1 tool call`` / ``3 tool calls`` (never ``call(s)``), money is
``$0.27`` (never ``0.27449999999999997``), a recorded text is quoted on one
line and clipped (“…”), and a recorded value of any shape is said in words
(:func:`value_words`), never as JSON.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from lens.text import grouped, one_line
from recorders.counting import noun_for, times  # noqa: F401 (times: said here too)

QUOTE_CHARS = 100


def plural(count: int | float, noun: str) -> str:
    """``1 tool call``, ``3 tool calls``, ``2 entries``."""
    return f"{grouped(count)} {noun_for(count, noun)}"


def money(value: float) -> str:
    """US dollars: ``$0.27``; below a cent, to its first figures (``$0.0042``)."""
    if 0 < abs(value) < 0.01:
        return f"${value:.4f}".rstrip("0")
    return f"${value:,.2f}"


def number(value: object) -> str:
    """A recorded number rounded for reading: whole numbers grouped, others to
    at most two decimals (``0.8533333333`` -> ``0.85``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return one_line(str(value), QUOTE_CHARS)
    if isinstance(value, float) and value.is_integer():
        return grouped(int(value))
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return grouped(value)


def quoted(text: object, limit: int = QUOTE_CHARS) -> str:
    """Recorded words on one line, clipped, in quotation marks."""
    return f"“{one_line(text if isinstance(text, str) else str(text), limit)}”"


def and_words(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# A recorded object said in words: the field that names it, its place ("3 of
# 6") and the field that describes it lead; the rest follow as "field value".
_NAME_FIELDS = ("name", "tool", "toolName", "id", "label", "title")
_NOTE_FIELDS = ("note", "description", "reason", "summary")
VALUE_ITEMS = 4  # items or fields said of one recorded object or list; more are counted
VALUE_DEPTH = 3  # nesting said in words; deeper values are counted


def value_words(value: Any, depth: int = VALUE_DEPTH) -> str:
    """A recorded value in words, never as JSON: text as recorded, numbers
    rounded, yes/no, a list as ``a, b and c``, an object by its name, place
    and note first (``verify_identity, 3 of 6 (verify the caller owns the
    card)``), its other fields as ``field value``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, (int, float)):
        return number(value)
    if isinstance(value, Mapping):
        return _object_words(value, depth)
    if isinstance(value, (list, tuple)):
        if not value:
            return "none"
        if depth <= 0:
            return plural(len(value), "item")
        said = [value_words(item, depth - 1) for item in value[:VALUE_ITEMS]]
        if len(value) > 1 and any(isinstance(item, Mapping) for item in value):
            # Objects of a list are set apart: their own fields are joined by commas.
            said = [f"({words})" if not words.startswith("(") else words for words in said]
        if len(value) > VALUE_ITEMS:
            said.append(f"{len(value) - VALUE_ITEMS} more")
        return and_words(said)
    return one_line(str(value), QUOTE_CHARS)


def _object_words(value: Mapping, depth: int) -> str:
    if not value:
        return "nothing"
    if depth <= 0:
        return plural(len(value), "field")
    fields = {key: item for key, item in value.items() if isinstance(key, str) and item is not None}
    head: list[str] = []
    name = next((k for k in _NAME_FIELDS if isinstance(fields.get(k), str) and fields[k]), None)
    if name is not None:
        head.append(fields.pop(name))
    index, total = fields.get("index"), fields.get("total")
    if _is_count(index) and _is_count(total):
        head.append(f"{number(index)} of {number(total)}")
        del fields["index"], fields["total"]
    note = next((k for k in _NOTE_FIELDS if isinstance(fields.get(k), str) and fields[k]), None)
    note_text = f"({fields.pop(note)})" if note is not None else None
    rest = [f"{key} {_apart(value_words(item, depth - 1))}" for key, item in fields.items()]
    if len(rest) > VALUE_ITEMS:
        rest = rest[:VALUE_ITEMS] + [f"{len(rest) - VALUE_ITEMS} more"]
    said = ", ".join(head + rest)
    if note_text:
        said = f"{said} {note_text}" if said else note_text
    return said


def _apart(words: str) -> str:
    """A nested value's words in parentheses when they hold commas of their own."""
    return f"({words})" if ", " in words and not words.startswith("(") else words


def _is_count(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)

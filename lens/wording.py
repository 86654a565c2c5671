"""Numbers and recorded words for people: a count with its plural, money, a quotation.

Shared by the causes' headlines (:mod:`lens.evidence.plain_headlines`): a
count is ``1 tool call`` / ``3 tool calls`` (never ``call(s)``), money is
``$0.27`` (never ``0.27449999999999997``), a recorded text is quoted on one
line and clipped (“…”).
"""

from __future__ import annotations

from typing import Sequence

from lens.text import grouped, one_line
from recorders.counting import noun_for

QUOTE_CHARS = 100


def plural(count: int | float, noun: str) -> str:
    """``1 tool call``, ``3 tool calls``, ``2 entries``."""
    return f"{grouped(count)} {noun_for(count, noun)}"


def times(count: int) -> str:
    """``once``, ``twice``, ``3 times``."""
    return {1: "once", 2: "twice"}.get(count, f"{grouped(count)} times")


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

"""A count with its noun in the right number: ``1 tool call``, ``3 tool calls``.

Owns the plural of every noun Lens counts in a message, so no message says
``call(s)``. It lives under ``recorders/`` because the loader's and the
evidence fold's notices count things too; :mod:`lens.wording` builds on it
for headlines. It does not format money or decimals (:mod:`lens.wording`).
"""

from __future__ import annotations

# Nouns whose plural is not the noun plus "s".
IRREGULAR_PLURALS = {"piece of context": "pieces of context", "entry": "entries",
                     "policy": "policies", "retry": "retries", "branch": "branches",
                     "earlier entry": "earlier entries", "pass": "passes",
                     "other search": "other searches"}


def noun_for(count: int | float, noun: str) -> str:
    """``noun`` for exactly one, its plural for any other count (0 tool calls)."""
    if count == 1:
        return noun
    return IRREGULAR_PLURALS.get(noun) or noun + "s"


def counted(count: int, noun: str) -> str:
    """``1 tool call``, ``12,841 events``, ``0 entries``."""
    return f"{count:,} {noun_for(count, noun)}"


def times(count: int) -> str:
    """``once``, ``twice``, ``3 times``, ``1,500 times``."""
    return {1: "once", 2: "twice"}.get(count, f"{count:,} times")

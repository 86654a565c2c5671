"""Masking what a shared run must not carry (work in progress: the API first).

API for the exports and the app's Share dialog::

    redactor = Redactor(patterns=["order A-\\d+"], builtin=True)   # RedactionError: bad pattern
    preview = redactor.preview(document)       # nothing written
    preview.counts        # {"email": 2, "key": 1, ...} distinct values per kind
    preview.examples      # {"email": ["[email 1]", "[email 2]"], ...}
    redacted = redactor.redact(document)       # a new document; the input is not changed
"""

from __future__ import annotations


class RedactionError(Exception):
    """A pattern that cannot be used (invalid, matches nothing but the empty text, too slow)."""


def read_pattern_file(path: str) -> list[str]:
    raise RedactionError("pattern files are not read yet")


class Redactor:
    def __init__(self, patterns=(), builtin: bool = True) -> None:
        raise RedactionError("redaction is not implemented yet")

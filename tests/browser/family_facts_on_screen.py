"""What a family case's ``whatWentWrong`` items name that a person must find on screen.

Each item of ``facts.json``'s ``whatWentWrong`` is prose written from the
framework's own API. What of it a viewer can show is what the recording holds:
the identifiers the item names (tool names, rule ids, event types, entity ids,
hyphenated or dotted names) and its quoted texts, kept only where they occur in
the recording's typed events. Nothing here reads Lens's code: the expectation is
the facts file and the recording, the answer is the page's text.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

# tool_name, permission.halt, TRS-04, fc1/3, BEN-3301, schema-stuck-loop, …
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_./-][A-Za-z0-9]+)+")
_QUOTED = re.compile(r"\"([^\"]{4,200})\"")


def recording_text(path: Path) -> str:
    """The typed events of the recording as JSON text (names and values as written)."""
    raw = path.read_bytes()
    document = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    if "recording" in document:
        document = document["recording"]
    return json.dumps(document.get("events", []), ensure_ascii=False)


def checkable_terms(item: str, recorded: str) -> list[str]:
    """The terms of one item that the recording holds, longest first (a term
    inside a longer one is not asked for twice)."""
    found = {m for m in _QUOTED.findall(item)} | set(_IDENTIFIER.findall(item))
    found = {term.strip(" .,;:") for term in found}
    held = sorted((t for t in found if len(t) >= 4 and t in recorded), key=len, reverse=True)
    kept: list[str] = []
    for term in held:
        if not any(term in longer for longer in kept):
            kept.append(term)
    return kept

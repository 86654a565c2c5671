"""Base64 inside a text that decodes to text: where it is, what it says, and
how to write a changed version of it back in the same alphabet.

A run's texts carry base64 where a tool or an API put it: a ``data:`` URL, a
``Basic`` credential, an attachment's body, a header. Redaction looks into
what such a run decodes to (when that is UTF-8 text a person could read) and,
when it masks something there, writes the masked text back as base64 in the
run's place: decoding the export gives masked text, never the value.

What this owns: finding, decoding and encoding base64 runs. What it does
not: deciding what is secret (:mod:`lens.share.redaction`).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

# Shorter runs are words and ids as often as base64 (16 characters: 12 bytes).
MIN_CHARS = 16
# Longer runs are not decoded (an image or a file, not a person's text).
MAX_CHARS = 1 << 20
MAX_RUNS_PER_TEXT = 100
_RUN = re.compile(r"(?<![A-Za-z0-9+/_\-=])[A-Za-z0-9+/_\-]{%d,}+={0,2}(?![A-Za-z0-9+/_\-=])"
                  % MIN_CHARS)
_TEXT_CONTROLS = frozenset("\n\r\t")


@dataclass(frozen=True)
class Base64Run:
    """One run of base64 in a text, and the text it decodes to."""

    start: int
    end: int
    decoded: str
    url_safe: bool
    padded: bool

    def encoded(self, text: str) -> str:
        """``text`` written as this run was (alphabet and padding)."""
        data = text.encode("utf-8", "surrogatepass")
        out = (base64.urlsafe_b64encode(data) if self.url_safe
               else base64.b64encode(data)).decode("ascii")
        return out if self.padded else out.rstrip("=")


def base64_runs(text: str) -> list[Base64Run]:
    """The base64 runs of ``text`` that decode to readable UTF-8 text."""
    if len(text) < MIN_CHARS:
        return []
    found: list[Base64Run] = []
    for match in _RUN.finditer(text):
        run = match.group()
        if len(run) > MAX_CHARS:
            continue
        decoded = _decoded(run)
        if decoded is not None:
            found.append(Base64Run(match.start(), match.end(), decoded[0], decoded[1],
                                   run.endswith("=")))
            if len(found) == MAX_RUNS_PER_TEXT:
                break
    return found


def _decoded(run: str) -> tuple[str, bool] | None:
    url_safe = "-" in run or "_" in run
    if url_safe and ("+" in run or "/" in run):
        return None  # two alphabets at once: not base64
    body = run.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        data = (base64.urlsafe_b64decode(padded) if url_safe
                else base64.b64decode(padded, validate=True))
        decoded = data.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if not _readable(decoded):
        return None
    return decoded, url_safe


def _readable(text: str) -> bool:
    """Text a person wrote or a program printed: no control or unprintable
    characters beyond line breaks and tabs, and letters in it."""
    if len(text) < 4 or not any(c.isalpha() for c in text):
        return False
    return all(c.isprintable() or c in _TEXT_CONTROLS for c in text)

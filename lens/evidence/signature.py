"""What makes two runs' causes the same cause: a signature.

A signature is a likely cause's kind, its subject (the tool, provider, skill,
check target… it names, as recorded) and its text with the parts that change
from run to run replaced by a placeholder: ids, hex digests, times, numbers.
"PaymentGatewayTimeout: POST /v2/refunds timed out after 30000 ms (req id
rf_8842)" in one run and "… after 31500 ms (req id rf_9120)" in the next are
one group, "… returned 402" another. The text is the error's own first line
where the cause has one (a failed tool, a failed model call), else the
headline, which carries the verdict's own words.

What this owns: the normalisation and the choice of text. What it does not:
finding causes (:mod:`lens.evidence.causes`) or grouping many runs' rows (the
archive's query, :mod:`archive.causes`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from lens.evidence.causes import LikelyCause

# An error's first line is looked for this far in: a value written on one line
# (a large JSON value) is not written whole to find it.
FIRST_LINE_CHARS = 10_000

SIGNATURE_CHARS = 200  # a signature's text is cut here (after normalising)
PLACEHOLDER = "#"
# Kinds whose detail is the error text itself (the rest carry a payload's JSON).
ERROR_TEXT_KINDS = frozenset({"failed tool", "provider error"})

# Most specific first: each pattern's matches are replaced before the next runs.
_VOLATILE = tuple(re.compile(pattern) for pattern in (
    # UUIDs, then ISO dates and times (with or without zone), then clock times
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
    r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b",
    r"\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b",
    # ids: a word of letters, then an underscore or dash, then three digits or
    # more among letters (toolu_01Y4zA…, rf_8842, run-1795961510957-4), and
    # hex runs of 8+
    r"\b[A-Za-z]+[_-](?=(?:[A-Za-z_-]*\d){3})[A-Za-z0-9_-]{3,}\b",
    r"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}\b",
    r"\b0x[0-9a-fA-F]+\b",
    # numbers last (1, 30000, 12.5, -3, 1e-9), but not a word's digits
    # (gpt-4.1-mini, claude-sonnet-4-5, v2 are names, not counts)
    r"(?<![A-Za-z0-9_.-])[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?(?![A-Za-z0-9_-])",
))
_SPACE = re.compile(r"\s+")


class Signature(NamedTuple):
    kind: str
    subject: str | None
    text: str


def normalised(text: str) -> str:
    """``text`` with ids, digests, times and numbers replaced by ``#``, its
    white space collapsed, cut to SIGNATURE_CHARS."""
    for pattern in _VOLATILE:
        text = pattern.sub(PLACEHOLDER, text)
    return _SPACE.sub(" ", text).strip()[:SIGNATURE_CHARS]


def cause_text(cause: LikelyCause) -> str:
    """The words a cause is grouped by: the error's first line where it has
    one, else its headline."""
    if cause.kind in ERROR_TEXT_KINDS and cause.detail is not None:
        first = next((line for line in cause.detail.start(FIRST_LINE_CHARS).splitlines() if line.strip()), "")
        if first:
            return first
    return cause.headline


def signature(cause: LikelyCause) -> Signature:
    return Signature(cause.kind, cause.subject, normalised(cause_text(cause)))

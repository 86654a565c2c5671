"""Text that comes from a recording, made safe and small enough to show.

Everything in a recording is untrusted. Three destinations, three rules:

- plotly text and hover labels parse a subset of HTML, so they get
  :func:`plot_text` (``html.escape(s, quote=False)``);
- Streamlit widget labels and alert bodies parse Markdown (links, images,
  ``:color[...]`` directives, LaTeX), so a recording string that must sit in
  one gets :func:`markdown_literal`, which backslash-escapes every ASCII
  punctuation character; CommonMark then renders it verbatim;
- long values are clipped on screen (:func:`clip`) with the whole value one
  click away, and one-line labels are flattened (:func:`one_line`).
"""

from __future__ import annotations

import html
import json
import string
from dataclasses import dataclass
from typing import Any

# CommonMark allows a backslash before any ASCII punctuation character and
# then renders that character literally; escaping all of them defeats every
# inline construct (emphasis, links, images, code spans, autolinks, HTML,
# Streamlit's :directives[...] and $math$).
_MD_ESCAPES = {ord(c): "\\" + c for c in string.punctuation}

# Characters that would break a one-line label: line breaks become a visible
# return mark, other C0 controls their Unicode "control picture", and bidi
# overrides/isolates (which can reorder the text around them) a visible tag.
_LINE_BREAKS = {"\n", "\r", "\u2028", "\u2029", "\x85"}
_BIDI_CONTROLS = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}

DEFAULT_CLIP = 2_000


def plot_text(value: Any) -> str:
    """A string for plotly text, hover text or titles: HTML-escaped."""
    return html.escape(value if isinstance(value, str) else str(value), quote=False)


def markdown_literal(value: Any) -> str:
    """A string that Streamlit's Markdown renders exactly as written, on one line."""
    text = one_line(value if isinstance(value, str) else str(value))
    return text.translate(_MD_ESCAPES)


def one_line(text: str, limit: int | None = None) -> str:
    """Flatten to a single visible line; cut to ``limit`` characters with an ellipsis."""
    out: list[str] = []
    for ch in text:
        if ch in _LINE_BREAKS:
            out.append("⏎")
        elif ch == "\t":
            out.append(" ")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(chr(0x2400 + ord(ch)) if ord(ch) < 0x20 else "␡")
        elif ch in _BIDI_CONTROLS:
            out.append(f"⟨U+{ord(ch):04X}⟩")
        else:
            out.append(ch)
    flat = "".join(out)
    if limit is not None and len(flat) > limit:
        return flat[: max(limit - 1, 0)] + "…"
    return flat


@dataclass(frozen=True)
class Clip:
    """What is shown of a long value, and the whole value behind it."""

    shown: str
    full: str

    @property
    def truncated(self) -> bool:
        return len(self.shown) < len(self.full)

    @property
    def hidden_chars(self) -> int:
        return len(self.full) - len(self.shown)


def clip(text: str, limit: int = DEFAULT_CLIP) -> Clip:
    """Keep the first ``limit`` characters of ``text`` for the screen."""
    if limit < 0:
        raise ValueError("limit must be >= 0")
    return Clip(text[:limit], text)


def value_text(value: Any) -> str:
    """A recorded value as text: strings as they are, anything else as indented JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        return repr(value)


def compact_json(value: Any) -> str:
    """One-line JSON, for table cells and search."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


def format_ms(ms: float | None) -> str:
    """A duration for people: ``850 ms``, ``1.48 s``, ``2 min 05 s``."""
    if ms is None:
        return "—"
    if ms < 1_000:
        return f"{ms:.0f} ms"
    seconds = ms / 1_000
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes} min {rest:02d} s"

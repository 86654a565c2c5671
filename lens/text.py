"""Text that comes from a recording, made safe and small enough to show.

Everything in a recording is untrusted, and every panel shows it by the same
rules, so one value looks the same wherever it appears (a tool result in the
step detail and in the served context):

- one JSON-to-text: strings as they are, anything else as indented JSON
  (:func:`value_text`);
- one invisible-character policy: controls, bidi overrides and isolates,
  zero-width and other invisible characters are made visible, C0 controls as
  their Unicode "control picture" (␇) and the rest as ``⟨U+202E⟩``; a block
  (:func:`visible`) keeps its line breaks and tabs, a one-line label
  (:func:`one_line`) shows line breaks as ⏎;
- one clip limit: a long value shows its first :data:`CLIP_LIMIT` characters
  with the whole value one click away (:func:`display_text`).

Destinations add their own escaping on top: plotly text and hover labels
parse a subset of HTML, so they get :func:`plot_text`; Streamlit labels and
alerts parse Markdown, so recording text in one gets :func:`markdown_literal`.
"""

from __future__ import annotations

import html
import json
import re
import string
from dataclasses import dataclass, field
from typing import Any

from recorders.json_measure import json_length, json_start
from recorders.values import exact_float, finite_or_none, is_number, js_number_text, json_chunks, json_text

CLIP_LIMIT = 2_000
# Deeper than this a value is written as compact JSON, not indented.
INDENT_DEPTH = 32
# A list or object whose JSON is longer is shown from its start on one line and
# written whole only when asked (a download).
LARGE_VALUE_CHARS = 1_000_000
# An interactive JSON view (st.json) shows this many levels and items; the
# browser's viewer crashes the tab on a value nested about a thousand deep.
SHOWN_DEPTH = 16
SHOWN_ITEMS = 1_000
_SUMMARY_CHARS = 120

# CommonMark allows a backslash before any ASCII punctuation character and
# then renders that character literally; escaping all of them defeats every
# inline construct (emphasis, links, images, code spans, autolinks, HTML,
# Streamlit's :directives[...] and $math$).
_MD_ESCAPES = {ord(c): "\\" + c for c in string.punctuation}

# Characters that would hide or reorder text on screen: C0 controls but tab
# and newline, DEL, C1 controls, the Arabic letter mark, zero-width space,
# LRM/RLM, line and paragraph separators, bidi embeddings, overrides and
# isolates, and the byte-order mark.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028\u2029"
    "\u202a-\u202e\u2066-\u2069\ufeff]")
# Line breaks in a one-line label.
_LINE_BREAKS = re.compile("\r\n|[\n\r\u2028\u2029\x85]")


def _shown(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the control picture: ␀ … ␟
    if code == 0x7F:
        return "␡"
    return f"⟨U+{code:04X}⟩"


def visible(text: str) -> str:
    """``text`` with every invisible character shown; line breaks and tabs kept."""
    return _INVISIBLE.sub(_shown, text)


def one_line(text: str, limit: int | None = None) -> str:
    """Flatten to a single visible line (line breaks as ⏎, tabs as spaces);
    cut to ``limit`` characters with an ellipsis."""
    if limit is not None and len(text) > 2 * limit + 2:
        # Clip before walking: each shown character comes from at most two
        # ("\r\n"), so this prefix still overflows the limit and is cut below.
        text = text[: 2 * limit + 2]
    flat = visible(_LINE_BREAKS.sub("⏎", text.replace("\t", " ")))
    if limit is not None and len(flat) > limit:
        return flat[: max(limit - 1, 0)] + "…"
    return flat


def cut_at_word(text: str, limit: int) -> str:
    """``text`` on one line (:func:`one_line`), whole when it fits ``limit``;
    else cut at the last word boundary before it, with an ellipsis, and a
    quotation left open by the cut closed again (“…”), so what is shown never
    ends inside a word and never reads as an unfinished quotation. A first
    word longer than the limit is cut inside it (nothing else fits)."""
    flat = one_line(text)
    if len(flat) <= limit:
        return flat
    room = flat[: max(limit - 2, 1)]
    space = max(room.rfind(" "), room.rfind("⏎"))  # a shown line break ends a word too
    if space > 0:
        room = room[:space]
    room = room.rstrip(" ,;:(“—-⏎")
    if room.count("“") > room.count("”"):
        return room + "…”"
    return room + "…"


def plot_text(value: Any) -> str:
    """A string for plotly text, hover text or titles: HTML-escaped."""
    return html.escape(value if isinstance(value, str) else str(value), quote=False)


def markdown_literal(value: Any) -> str:
    """A string that Markdown renders exactly as written, on one line."""
    text = one_line(value if isinstance(value, str) else str(value))
    return text.translate(_MD_ESCAPES)


def markdown_code_span(text: str) -> str:
    """``text`` on one line as a Markdown code span no content can break out of:
    its fence is longer than any backtick run inside, and nothing in a code span
    is markup (no escapes, entities, links or autolinks)."""
    flat = one_line(text)
    if not flat:
        return "(empty)"
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each side of a span, unless it is all spaces.
    if not flat.strip(" "):
        return f"{fence}{flat}{fence}"
    return f"{fence} {flat} {fence}"


def value_text(value: Any) -> str:
    """A recorded value as text: strings as they are, anything else as indented
    JSON, or compact JSON when it nests deeper than :data:`INDENT_DEPTH`
    (indenting a deep value grows with the square of its depth)."""
    if isinstance(value, (dict, list)) and nests_deeper(value, INDENT_DEPTH):
        return compact_json(value)
    return json_text(value, indent=2)


def compact_json(value: Any) -> str:
    """One-line JSON, for table cells and search."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except RecursionError:
        return "".join(json_chunks(value))
    except (TypeError, ValueError):
        return json_text(value)


def clipped_json(value: Any, limit: int) -> str:
    """One-line JSON cut to ``limit`` characters, at a cost that follows the
    limit: long strings and big or deep containers are never written whole."""
    text = "".join(json_chunks(value, limit=limit + 1))
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def nests_deeper(value: Any, depth: int) -> bool:
    """Does ``value`` hold objects or lists more than ``depth`` levels down?
    Stops at the first such path; no recursion."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if level >= depth:
            return True
        stack.extend((child, level + 1) for child in children
                     if isinstance(child, (dict, list)))
    return False


def collapsed(value: Any, depth: int = SHOWN_DEPTH, items: int = SHOWN_ITEMS,
              chars: int = CLIP_LIMIT) -> tuple[Any, bool]:
    """A copy of ``value`` small and shallow enough for an interactive JSON view.

    Objects and lists below ``depth`` levels become a one-line summary string
    (``"⟨list nested 9,990 levels: [[[[…⟩"``), containers keep their first
    ``items`` entries, strings their first ``chars`` characters. Returns the
    copy and whether anything was left out, so the caller can offer the
    whole value for download. A number a double cannot hold exactly becomes
    its digits as text."""
    cut = False

    def walk(node: Any, level: int) -> Any:
        nonlocal cut
        if isinstance(node, str):
            if len(node) > chars:
                cut = True
                return node[:chars] + f"… ⟨{len(node) - chars:,} more characters⟩"
            return node
        if not isinstance(node, (dict, list)):
            if is_number(node) and exact_float(node) is None:
                # The viewer parses numbers as JavaScript doubles: past 2**53 it
                # would show a rounded number, past float range Infinity.
                return js_number_text(node)
            return node
        if level >= depth:
            cut = True
            kind = "object" if isinstance(node, dict) else "list"
            return f"⟨{kind} nested deeper, shown as text: {clipped_json(node, _SUMMARY_CHARS)}⟩"
        if isinstance(node, dict):
            shown = {}
            for n, (key, child) in enumerate(node.items()):
                if n == items:
                    cut = True
                    shown["⟨more⟩"] = f"{len(node) - items:,} more keys"
                    break
                shown[str(key)[:chars]] = walk(child, level + 1)
            return shown
        shown_list = [walk(child, level + 1) for child in node[:items]]
        if len(node) > items:
            cut = True
            shown_list.append(f"⟨{len(node) - items:,} more items⟩")
        return shown_list

    return walk(value, 0), cut


@dataclass(frozen=True)
class DisplayText:
    """A recorded value prepared for the screen, and the whole value behind it.

    ``text`` is the first ``shown_chars`` characters of the value's text with
    invisible characters made visible; ``length`` is how long the whole text
    is. :attr:`full` is the value untouched, for a download or an expand; a
    value past :data:`LARGE_VALUE_CHARS` is written whole only when asked
    (:attr:`full`), and its start (:meth:`start`) without writing the rest.
    """

    text: str
    shown_chars: int
    length: int
    _whole: str | None = field(default=None, repr=False)
    _value: Any = field(default=None, repr=False, compare=False)

    @property
    def full(self) -> str:
        """The whole text; for a large value, written now (it may be hundreds of
        MB: ask for it when a person does)."""
        return self._whole if self._whole is not None else json_start(self._value, self.length)

    def start(self, chars: int) -> str:
        """The first ``chars`` characters of :attr:`full`, at a cost that follows ``chars``."""
        return self._whole[:chars] if self._whole is not None else json_start(self._value, chars)

    @property
    def truncated(self) -> bool:
        return self.shown_chars < self.length

    @property
    def hidden_chars(self) -> int:
        return self.length - self.shown_chars


def display_text(value: Any, limit: int = CLIP_LIMIT) -> DisplayText:
    """``value`` as text (:func:`value_text`), clipped to ``limit`` characters for
    the screen. A list or object whose one-line JSON is longer than
    :data:`LARGE_VALUE_CHARS` is measured over its distinct objects and shown
    from its start on one line (its text is that one line), never written
    whole here: a packed value shared a million times costs what its objects do."""
    if limit < 0:
        raise ValueError("limit must be >= 0")
    if isinstance(value, (dict, list)):
        try:
            length = json_length(value)
        except (TypeError, ValueError):  # a cycle or a name JSON cannot write: value_text says it
            length = 0
        if length > LARGE_VALUE_CHARS:
            shown = json_start(value, limit)
            return DisplayText(visible(shown), len(shown), length, None, value)
    full = value_text(value)
    shown = full[:limit]
    return DisplayText(visible(shown), len(shown), len(full), full)


def grouped(value: Any, decimals: int | None = None) -> str:
    """A recorded number with thousands separators (``12,841``); never raises.
    An integer is shown exactly, however large; a value past float range, or
    not finite, as the recording (or the arithmetic) has it."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    number = finite_or_none(value)
    if number is None:
        return js_number_text(value)
    if decimals is not None:
        return f"{number:,.{decimals}f}"
    return f"{int(number):,}" if number.is_integer() else f"{number:,}"


def format_ms(ms: float | None) -> str:
    """A duration for people: ``850 ms``, ``1.48 s``, ``2 min 05 s``; a
    negative one with a minus sign, one past float range in ms as recorded."""
    if ms is None:
        return "—"
    if finite_or_none(ms) is None:
        return f"{js_number_text(ms)} ms"
    if ms < 0:
        return "−" + format_ms(-ms)
    if ms < 1_000:
        return f"{ms:.0f} ms"
    seconds = ms / 1_000
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes:,} min {rest:02d} s"

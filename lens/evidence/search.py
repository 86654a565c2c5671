"""Find text anywhere in a run: prompts, outputs, tool arguments and results,
injected context, route reasons and errors.

Each stored text of the index is matched once; a hit carries a snippet
around the match (invisible characters made visible) cut into plain and
matching parts, the whole value, the calls that were served it, whether it is
an error, and a link to its step. :func:`highlighted_markdown` turns the
parts into Markdown whose only markup is the bold around each match.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from recorders.evidence import EvidenceIndex, SearchEntry, StepMap
from lens.evidence.nav import Nav, nav_for_call, nav_for_tool
from lens.text import DisplayText, display_text, markdown_literal, visible

SNIPPET_RADIUS = 80        # characters either side of a search match


@dataclass(frozen=True)
class SearchHit:
    kind: str                 # our words: "tool result", "model output", ...
    label: str                # recording text (role, source, tool name): show as text
    snippet: str              # the match with SNIPPET_RADIUS around it, made visible
    preview: DisplayText      # the whole value, truncated for screen
    match_start: int
    value_length: int
    call_id: int | None
    tool_id: int | None
    served_in: tuple[int, ...]
    nav: Nav | None
    parts: tuple[tuple[str, bool], ...] = ()  # the snippet as (text, is a match) pieces
    error: bool = False       # an error message, a failed tool's text or a failed call's
    _full: str = field(repr=False, default="")

    @property
    def full_value(self) -> str:
        return self._full


@dataclass(frozen=True)
class SearchResults:
    query: str
    hits: tuple[SearchHit, ...]
    total: int
    truncated: bool


def search(index: EvidenceIndex, query: str, step_map: StepMap | None = None, *,
           limit: int = 200, case_sensitive: bool = False,
           errors_only: bool = False) -> SearchResults:
    """Find text anywhere in the run. Each stored text is matched once; with
    ``errors_only``, only texts that are or belong to an error."""
    if not isinstance(query, str) or not query.strip():
        return SearchResults(query or "", (), 0, False)
    pattern = re.compile(re.escape(query), 0 if case_sensitive else re.IGNORECASE)
    hits: list[SearchHit] = []
    total = 0
    for entry in index.search_entries:
        match = pattern.search(entry.text)
        if match is None:
            continue
        error = is_error_entry(index, entry)
        if errors_only and not error:
            continue
        total += 1
        if len(hits) >= limit:
            continue
        hits.append(_hit(index, entry, match.start(), match.end(), step_map, pattern, error))
    return SearchResults(query, tuple(hits), total, total > len(hits))


def is_error_entry(index: EvidenceIndex, entry: SearchEntry) -> bool:
    """An error event's text, or any text of a failed tool call or model call."""
    if entry.kind == "error":
        return True
    if entry.tool is not None:
        return index.tool_calls[entry.tool].failed
    if entry.call is not None and entry.kind == "model output":
        return index.calls[entry.call].failure is not None
    return False


def _hit(index: EvidenceIndex, entry: SearchEntry, start: int, end: int,
         step_map: StepMap | None, pattern: re.Pattern, error: bool) -> SearchHit:
    text = entry.text
    lo, hi = max(0, start - SNIPPET_RADIUS), min(len(text), end + SNIPPET_RADIUS)
    snippet = ("…" if lo > 0 else "") + visible(text[lo:hi]) + ("…" if hi < len(text) else "")
    parts = _parts(text, lo, hi, pattern)
    if entry.tool is not None:
        nav = nav_for_tool(index, step_map, entry.tool)
    elif entry.call is not None:
        nav = nav_for_call(index, step_map, entry.call, end=entry.kind == "model output")
    elif step_map is not None:
        step = step_map.step_at_time(entry.ts)
        nav = Nav(step, False, why_no_step="nearest step at the time of this event"
                  if step is not None else "no step at or before this event")
    else:
        nav = None
    return SearchHit(kind=entry.kind, label=entry.label, snippet=snippet,
                     preview=display_text(text), match_start=start, value_length=len(text),
                     call_id=entry.call, tool_id=entry.tool,
                     served_in=tuple(entry.served_in), nav=nav, parts=parts, error=error,
                     _full=text)


def _parts(text: str, lo: int, hi: int, pattern: re.Pattern) -> tuple[tuple[str, bool], ...]:
    """``text[lo:hi]`` cut at every match of ``pattern`` inside it, with the
    ellipses that say the value goes on."""
    parts: list[tuple[str, bool]] = [("…", False)] if lo > 0 else []
    at = lo
    for match in pattern.finditer(text, lo, hi):
        if match.start() > at:
            parts.append((text[at:match.start()], False))
        parts.append((match.group(), True))
        at = match.end()
    if at < hi:
        parts.append((text[at:hi], False))
    if hi < len(text):
        parts.append(("…", False))
    return tuple(parts)


# CommonMark opens ``**`` before punctuation only after a space or punctuation,
# and closes it after punctuation only before one: a hair space (a Unicode
# space, hardly visible) is put there when a match meets a letter.
_HAIR_SPACE = "\u200a"


def highlighted_markdown(parts: tuple[tuple[str, bool], ...]) -> str:
    """One line of Markdown: every part escaped, each match in bold, nothing else."""
    out: list[str] = []
    for text, is_match in parts:
        escaped = markdown_literal(text)
        if not is_match or not escaped.strip():
            out.append(escaped)
            continue
        lead = escaped[:len(escaped) - len(escaped.lstrip())]
        trail = escaped[len(escaped.rstrip()):]
        core = escaped.strip()
        if out and _is_punctuation(core[0]) and out[-1] and not _is_space_or_punct(out[-1][-1]):
            lead += _HAIR_SPACE
        out.append(f"{lead}**{core}**")
        out.append(trail)
        if _is_punctuation(core[-1]):
            out.append(_HAIR_SPACE)
    return "".join(out)


def _is_punctuation(char: str) -> bool:
    return unicodedata.category(char)[0] in "PS"


def _is_space_or_punct(char: str) -> bool:
    return char.isspace() or _is_punctuation(char)


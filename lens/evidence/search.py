"""Find text anywhere in a run: prompts, outputs, tool arguments and results,
injected context, route reasons and errors.

Each stored text of the index is matched once; a hit carries a snippet
around the match (invisible characters made visible) cut into plain and
matching parts, the whole value, the calls that were served it, whether it is
an error, and a link to its step. :func:`highlighted_markdown` turns the
parts into Markdown code spans with each match's in bold.
"""

from __future__ import annotations

import re
import weakref
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field

from recorders.catalogue import (CONTEXT, CONTEXT_FAMILY, LLM_TOKEN, THINKING_DELTA,
                                 VERDICT, event_type)
from recorders.evidence import SOURCE_BOUNDARY, EvidenceIndex, SearchEntry, StepMap
# The same clipping as every other search text (a value's leaves, one line
# each, up to the index's line cap).
from recorders.evidence.build import search_text as clipped_search_text
from lens.evidence.nav import Nav, before_the_steps, nav_for_call, nav_for_tool
from lens.evidence.event_nav import nav_for_event
from lens.text import DisplayText, display_text, markdown_code_span, visible

SNIPPET_RADIUS = 80        # characters either side of a search match
ELLIPSIS = "…"             # where a snippet cuts its value
FRAMEWORK_VERDICT = "framework verdict"   # a finding's words, as a search text's kind
FRAMEWORK_WARNING = "framework warning"
FRAMEWORK_EVENT = "framework event"       # any other catalogued event's words
# Not searched one by one: a token or a reasoning delta is a piece of a text
# the call's end carries whole (its answer, its reasoning in thinking_end);
# the context family's events are the served context's own pieces and slots.
UNSEARCHED_TYPES = frozenset({LLM_TOKEN, THINKING_DELTA})
UNSEARCHED_FAMILIES = frozenset({CONTEXT_FAMILY})


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
    event_index: int | None = None  # the typed event the text came from, when it names one
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
           errors_only: bool = False, families: Collection[str] = ()) -> SearchResults:
    """Find text anywhere in the run. Each stored text is matched once; with
    ``errors_only``, only texts that are or belong to an error; with
    ``families``, only texts of events of those catalogue families."""
    if not isinstance(query, str) or not query.strip():
        return SearchResults(query or "", (), 0, False)
    pattern = re.compile(re.escape(query), 0 if case_sensitive else re.IGNORECASE)
    hits: list[SearchHit] = []
    total = 0
    for entry in searchable_entries(index):
        match = pattern.search(entry.text)
        if match is None:
            continue
        error = is_error_entry(index, entry)
        if errors_only and not error:
            continue
        if families and entry_family(index, entry) not in families:
            continue
        total += 1
        if len(hits) >= limit:
            continue
        hits.append(_hit(index, entry, match.start(), match.end(), step_map, pattern, error))
    return SearchResults(query, tuple(hits), total, total > len(hits))


def entry_family(index: EvidenceIndex, entry: SearchEntry) -> str | None:
    """The catalogue family of the typed event a text came from (``stream``,
    ``context``, ``skills``…); None when it came from the boundary log (which
    has no families) or names no event."""
    events = index.stages.typed_events
    if index.source == SOURCE_BOUNDARY or entry.event_index is None \
            or not 0 <= entry.event_index < len(events):
        return None
    event = events[entry.event_index]
    entry_type = event_type(event.get("type")) if isinstance(event, dict) else None
    return entry_type.family if entry_type is not None else None


def search_families(index: EvidenceIndex) -> list[tuple[str, int]]:
    """The families the run's searchable texts come from, each with its count
    of texts, in name order (what a family filter offers)."""
    counts = Counter(entry_family(index, entry) for entry in searchable_entries(index))
    return sorted((family, count) for family, count in counts.items() if family)


# Per index, every text Search matches (its own and its findings'): made at the
# first search, once. Keyed by id (an index is not hashable), dropped with it.
_SEARCHABLE: dict[int, tuple[SearchEntry, ...]] = {}


def searchable_entries(index: EvidenceIndex) -> tuple[SearchEntry, ...]:
    """Every text Search matches: the index's own, then the words of each
    framework verdict and warning (:func:`finding_entries`), then those of the
    framework's other events (:func:`event_entries`). Made once per index."""
    key = id(index)
    entries = _SEARCHABLE.get(key)
    if entries is None:
        own = tuple(index.search_entries) + finding_entries(index)
        entries = _SEARCHABLE[key] = own + event_entries(index, own)
        weakref.finalize(index, _SEARCHABLE.pop, key, None)
    return entries


def finding_entries(index: EvidenceIndex) -> tuple[SearchEntry, ...]:
    """One search text per finding: its type and the catalogue's explaining
    fields as ``field: value`` lines, tied to its call or tool call and its
    typed event (so it has the event's family). A finding whose event already
    has a text in the index (an ``error.fatal``, a failed tool's result) is
    not found twice."""
    searchable = {entry.event_index for entry in index.search_entries}
    return tuple(_finding_entry(finding) for finding in index.findings
                 if finding.event_index not in searchable)


def event_entries(index: EvidenceIndex, told: tuple[SearchEntry, ...]) -> tuple[SearchEntry, ...]:
    """One search text per catalogued context event that no text in ``told``
    comes from (a handoff, a cost tick, an evaluation's score, a credential
    fetched, an artifact minted, a Loop's pass, an agent's route choice…):
    its type and the catalogue's explaining fields, so Search finds it under
    its family and links to the step at its time. Read from the index's own
    table of typed events, once per index, like every search text."""
    if index.source == SOURCE_BOUNDARY:
        return ()
    searchable = {entry.event_index for entry in told}
    made: list[SearchEntry] = []
    for position, event in enumerate(index.stages.typed_events):
        if position in searchable or not isinstance(event, dict):
            continue
        entry = event_type(event.get("type"))
        if entry is None or entry.kind != CONTEXT or entry.name in UNSEARCHED_TYPES \
                or entry.family in UNSEARCHED_FAMILIES:
            continue
        payload = event.get("payload")
        payload = payload if isinstance(payload, dict) else {}
        lines = [entry.short] + [f"{name}: {clipped_search_text(payload[name])}"
                                 for name in entry.explaining if payload.get(name) is not None]
        meta = event.get("meta")
        ts = meta.get("wallClockMs") if isinstance(meta, dict) else None
        made.append(SearchEntry(FRAMEWORK_EVENT, "\n".join(lines), event_index=position,
                                ts=ts if isinstance(ts, (int, float)) and not isinstance(ts, bool)
                                else None, label=entry.short))
    return tuple(made)


def _finding_entry(finding) -> SearchEntry:
    lines = [finding.short] + [f"{name}: {clipped_search_text(value)}"
                               for name, value in finding.explained]
    kind = FRAMEWORK_VERDICT if finding.kind == VERDICT else FRAMEWORK_WARNING
    return SearchEntry(kind, "\n".join(lines), call=finding.call, tool=finding.tool,
                       event_index=finding.event_index, ts=finding.ts, label=finding.short)


def is_error_entry(index: EvidenceIndex, entry: SearchEntry) -> bool:
    """An error event's text, a framework verdict's words, or any text of a
    failed tool call or model call."""
    if entry.kind in ("error", FRAMEWORK_VERDICT):
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
    if entry.event_index is not None:
        # The one placement of an event (lens.event_places): the raw events
        # page, the causes and the export give this hit's event the same step.
        nav = nav_for_event(index, step_map, entry.event_index)
    elif entry.tool is not None:
        nav = nav_for_tool(index, step_map, entry.tool)
    elif entry.call is not None:
        nav = nav_for_call(index, step_map, entry.call, end=entry.kind == "model output")
    elif step_map is not None:
        step = step_map.step_at_time(entry.ts)
        nav = Nav(step, False, why_no_step="nearest step at the time of this event"
                  if step is not None else before_the_steps(index, step_map))
    else:
        nav = None
    return SearchHit(kind=entry.kind, label=entry.label, snippet=snippet,
                     preview=display_text(text), match_start=start, value_length=len(text),
                     call_id=entry.call, tool_id=entry.tool,
                     served_in=tuple(entry.served_in), nav=nav, parts=parts, error=error,
                     event_index=entry.event_index, _full=text)


def _parts(text: str, lo: int, hi: int, pattern: re.Pattern) -> tuple[tuple[str, bool], ...]:
    """``text[lo:hi]`` cut at every match of ``pattern`` inside it, with the
    ellipses that say the value goes on."""
    parts: list[tuple[str, bool]] = [(ELLIPSIS, False)] if lo > 0 else []
    at = lo
    for match in pattern.finditer(text, lo, hi):
        if match.start() > at:
            parts.append((text[at:match.start()], False))
        if parts and parts[-1][1] and match.start() == at:  # back-to-back matches: one part
            parts[-1] = (parts[-1][0] + match.group(), True)
        else:
            parts.append((match.group(), True))
        at = match.end()
    if at < hi:
        parts.append((text[at:hi], False))
    if hi < len(text):
        parts.append((ELLIPSIS, False))
    return tuple(parts)


def highlighted_markdown(parts: tuple[tuple[str, bool], ...]) -> str:
    """One line of Markdown: every part of the snippet a code span, each match's
    in bold, the ellipses as they are, nothing else.

    Code spans, not backslash escapes: Streamlit's Markdown turns any
    ``https://…`` or ``www.…`` of a text node into a link however it is
    escaped, and never a code span's. ``**`` between code spans always
    opens and closes (a backtick is punctuation on either side).
    """
    out: list[str] = []
    for text, is_match in parts:
        if not text:
            continue
        if not is_match and text == ELLIPSIS:
            out.append(ELLIPSIS)
        elif is_match:
            out.append(f"**{markdown_code_span(text)}**")
        else:
            out.append(markdown_code_span(text))
    return "".join(out)

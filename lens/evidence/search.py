"""Find text anywhere in a run: prompts, outputs, tool arguments and results,
injected context, route reasons and errors.

Each stored text of the index is matched once; a hit carries a snippet
around the match (invisible characters made visible), the whole value, the
calls that were served it, and a link to its step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from recorders.evidence import EvidenceIndex, SearchEntry, StepMap
from lens.evidence.nav import Nav, nav_for_call, nav_for_tool
from lens.text import DisplayText, display_text, visible

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
           limit: int = 200, case_sensitive: bool = False) -> SearchResults:
    """Find text anywhere in the run. Each stored text is matched once."""
    if not isinstance(query, str) or not query.strip():
        return SearchResults(query or "", (), 0, False)
    pattern = re.compile(re.escape(query), 0 if case_sensitive else re.IGNORECASE)
    hits: list[SearchHit] = []
    total = 0
    for entry in index.search_entries:
        match = pattern.search(entry.text)
        if match is None:
            continue
        total += 1
        if len(hits) >= limit:
            continue
        hits.append(_hit(index, entry, match.start(), match.end(), step_map))
    return SearchResults(query, tuple(hits), total, total > len(hits))


def _hit(index: EvidenceIndex, entry: SearchEntry, start: int, end: int,
         step_map: StepMap | None) -> SearchHit:
    text = entry.text
    lo, hi = max(0, start - SNIPPET_RADIUS), min(len(text), end + SNIPPET_RADIUS)
    snippet = ("…" if lo > 0 else "") + visible(text[lo:hi]) + ("…" if hi < len(text) else "")
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
                     served_in=tuple(entry.served_in), nav=nav, _full=text)


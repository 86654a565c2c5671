"""The raw event tables: every event of the file, one row each, filterable.

Rows keep the event's position in its stream (``#``), so a row always leads
back to the exact event, shown whole on demand. Typed events' subflow paths
are stored without the ``__root__`` segment; the ``subflowPath`` column adds
it so both tables filter by the same paths.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import pandas as pd

from recorders.catalogue import event_type
from recorders.values import number_column, rooted
from lens.text import clipped_json, compact_json, one_line

SUMMARY_CHARS = 240
# ``family``: the catalogue's family of a typed event's type (guard, recovery,
# memory…); empty for a type 9.62 does not declare and for every boundary event
# (the flow engine's log has no families).
COLUMNS = ["#", "type", "family", "runtimeStageId", "subflowPath", "ts", "fields"]

_BOUNDARY_SKIP = {"type", "runtimeStageId", "subflowPath", "ts"}
_TYPED_META_SHOWN = {"runtimeStageId", "subflowPath", "wallClockMs"}


@dataclass
class EventTable:
    """One stream as rows, plus the raw events to show a row whole."""

    stream: str  # "typed" | "boundary"
    events: list[dict]
    frame: pd.DataFrame
    _search_text: list[str] | None = field(default=None, repr=False)

    def types(self) -> list[str]:
        return sorted(self.frame["type"].unique().tolist())

    def families(self) -> list[tuple[str, int]]:
        """The families present, each with its event count, in name order."""
        counts = self.frame["family"].value_counts()
        return sorted((str(f), int(n)) for f, n in counts.items() if f)

    def paths(self) -> list[str]:
        return sorted(self.frame["subflowPath"].unique().tolist())

    def search_text(self) -> list[str]:
        """Each event as lower-case JSON, built on the first search only."""
        if self._search_text is None:
            self._search_text = [compact_json(e).lower() for e in self.events]
        return self._search_text

    def select(self, types: Iterable[str] = (), path_prefix: str = "",
               text: str = "", families: Iterable[str] = ()) -> pd.DataFrame:
        """Rows of the chosen types and families, under a subflow path, containing a text."""
        mask = pd.Series(True, index=self.frame.index)
        chosen = list(types)
        if chosen:
            mask &= self.frame["type"].isin(chosen)
        chosen_families = list(families)
        if chosen_families:
            mask &= self.frame["family"].isin(chosen_families)
        if path_prefix:
            paths = self.frame["subflowPath"]
            mask &= (paths == path_prefix) | paths.str.startswith(path_prefix + "/")
        needle = text.strip().lower()
        if needle:
            haystack = self.search_text()
            mask &= pd.Series([needle in h for h in haystack], index=self.frame.index)
        return self.frame[mask]


def boundary_table(events: list[dict]) -> EventTable:
    rows = []
    for index, event in enumerate(events):
        rest = {k: v for k, v in event.items() if k not in _BOUNDARY_SKIP}
        rows.append((index, _text(event.get("type")), "", _text(event.get("runtimeStageId")),
                     _path_text(event.get("subflowPath"), has_root=True), event.get("ts"),
                     _summary(rest)))
    return EventTable("boundary", events, _frame(rows))


def typed_table(events: list[dict]) -> EventTable:
    rows = []
    for index, event in enumerate(events):
        meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
        rest: dict[str, Any] = {"payload": event.get("payload")}
        extra_meta = {k: v for k, v in meta.items() if k not in _TYPED_META_SHOWN}
        if extra_meta:
            rest["meta"] = extra_meta
        entry = event_type(event.get("type"))
        rows.append((index, _text(event.get("type")), entry.family if entry else "",
                     _text(meta.get("runtimeStageId")),
                     _path_text(meta.get("subflowPath"), has_root=False),
                     meta.get("wallClockMs"), _summary(rest)))
    return EventTable("typed", events, _frame(rows))


def _frame(rows: list[tuple]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=COLUMNS)
    # Times as the recording has them: numbers while every one is exactly a
    # float, the recording's text otherwise (an integer past 2**63 breaks an
    # Arrow column, one past 2**53 would be shown rounded).
    times = number_column(frame["ts"])
    numeric = all(t is None or isinstance(t, float) for t in times)
    frame["ts"] = pd.Series(times, index=frame.index, dtype="float64" if numeric else "object")
    return frame


def _summary(rest: dict) -> str:
    # Clipped while written: a 400 MB string or a deep value costs the clip, not its size.
    return one_line(clipped_json(rest, SUMMARY_CHARS), SUMMARY_CHARS)


def _path_text(path: Any, has_root: bool) -> str:
    if not isinstance(path, list):
        return ""  # the event does not say where it fired
    segments = tuple(str(s) for s in path)
    return "/".join(segments if has_root else rooted(segments))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


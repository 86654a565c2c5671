"""The whole run on one time axis: every model call and tool call of every scope.

Built once per open run from the evidence index, in one pass over its calls
and tool calls. Each call or tool call is one :class:`Span` on the lane of the
scope it ran in (the root's agent, each agent inside a Sequence, Parallel,
Conditional or Loop), placed by the times the recording gives, relative to the
run's first recorded time. A span whose start time the recording does not
carry cannot be placed; it is counted in :attr:`Timeline.unplaced`, never
dropped silently. A span that started and never ended is drawn to the run's
last recorded time and marked open.

Beside the spans, :class:`Mark` s: the moments the framework retried, fell
back, recovered, paused or asked a person (the typed events of the catalogue's
recovery, pause and check-in families), read in the same build, one pass over
the typed stream. A mark without a time of its own (the resilience pair comes
after the run with no ``meta``) is placed at the run's last recorded time and
says so.

What this owns: lanes, spans, marks and their order. What it does not: which
step of a projection shows a span (the app asks the evidence step map), or
drawing (:mod:`lens.timeline_figure`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Protocol, Sequence

from recorders.catalogue import CHECKIN, PAUSE, RECOVERY, EventType, event_type
from recorders.values import ROOT_SUBFLOW_ID
from recorders.values import finite_or_none, is_number, js_number_text
from lens.text import clipped_json, one_line

MODEL, TOOL = "model", "tool"
MARK = "mark"  # a click on a mark reports [MARK, its epoch ms]
RETRY, FALLBACK, RECOVERED, PAUSED, CHECK_IN = "retry", "fallback", "recovery", "pause", "check-in"
MARK_KINDS = (RETRY, FALLBACK, RECOVERED, PAUSED, CHECK_IN)
MARK_DETAIL_CHARS = 240
_WRAPPER_PREFIX = "sf-"


class _Evidence(Protocol):
    calls: Sequence
    tool_calls: Sequence


@dataclass(frozen=True)
class Lane:
    """One scope's row: its subflow path and a short title (recording text)."""

    path: tuple[str, ...]
    title: str


@dataclass(frozen=True)
class Span:
    """One model call or tool call on the time axis (ms from the run's start)."""

    kind: str            # MODEL | TOOL
    record_id: int       # the model call's or the tool call's id in the evidence index
    lane: int
    start_ms: float
    end_ms: float
    label: str           # the model, or the tool's name (recording text)
    failed: bool         # a tool that returned error: true, a model call that failed
    open: bool           # started, never ended in the recording
    asked_by: int | None = None  # for a tool: the model call that asked for it

    @property
    def duration_ms(self) -> float:
        return self.end_ms - self.start_ms


@dataclass(frozen=True)
class Mark:
    """A retry, fallback, recovery, pause or check-in at one moment of one lane."""

    kind: str            # one of MARK_KINDS
    lane: int
    at_ms: float         # ms from the run's start
    event_index: int     # position in the typed stream
    type_name: str       # ``error.retried``: the catalogue's short name
    detail: str          # the event's explaining fields, ``name: value; …`` (recording text)
    timed: bool = True   # False: the event carries no time; placed at the run's end


@dataclass(frozen=True)
class Timeline:
    lanes: tuple[Lane, ...]
    spans: tuple[Span, ...]          # model calls first, then tools, each in start order
    origin_ms: float | None          # the run's first recorded time (epoch ms)
    unplaced: int                    # calls and tool calls the recording gives no start time
    marks: tuple[Mark, ...] = ()     # in the typed stream's order

    def span_of(self, kind: str, record_id: int) -> Span | None:
        for span in self.spans:  # only for tests and one-off look-ups; the app uses ids
            if span.kind == kind and span.record_id == record_id:
                return span
        return None

    @property
    def failures(self) -> int:
        return sum(1 for span in self.spans if span.failed)


def build_timeline(evidence: _Evidence) -> Timeline:
    """Lanes and spans of every model call and tool call in ``evidence``."""
    calls = list(evidence.calls)
    tools = list(evidence.tool_calls)
    starts = [c.ts_start for c in calls + tools if _is_time(c.ts_start)]
    ends = [c.ts_end for c in calls + tools if _is_time(c.ts_end)]
    if not starts:
        return Timeline((), (), None, len(calls) + len(tools))
    origin = min(starts)
    horizon = max(starts + ends) - origin
    lanes: dict[tuple[str, ...], int] = {}
    spans: list[Span] = []
    unplaced = 0
    for kind, records in ((MODEL, calls), (TOOL, tools)):
        for record in sorted((r for r in records if _is_time(r.ts_start)),
                             key=lambda r: (r.ts_start, r.id)):
            lane = lanes.setdefault(tuple(record.scope), len(lanes))
            start = record.ts_start - origin
            ended = _is_time(record.ts_end) and record.ts_end >= record.ts_start
            spans.append(Span(
                kind=kind, record_id=record.id, lane=lane, start_ms=start,
                end_ms=(record.ts_end - origin) if ended else max(start, horizon),
                label=_label(kind, record), failed=_failed(kind, record),
                open=not ended, asked_by=getattr(record, "requested_by", None)
                if kind == TOOL else None))
        unplaced += sum(1 for r in records if not _is_time(r.ts_start))
    stages = getattr(evidence, "stages", None)
    marks = _marks(getattr(stages, "typed_events", None) or (), origin, horizon, lanes)
    ordered = sorted(lanes, key=lanes.get)
    return Timeline(tuple(Lane(path, lane_title(path)) for path in ordered), tuple(spans),
                    origin, unplaced, marks)


def mark_summary(timeline: Timeline) -> str:
    """``2 retries, 3 fallbacks, 1 pause``: the marks counted by kind; "" for none."""
    nouns = {RETRY: ("retry", "retries"), FALLBACK: ("fallback", "fallbacks"),
             RECOVERED: ("recovery or circuit change", "recoveries or circuit changes"),
             PAUSED: ("pause event", "pause events"), CHECK_IN: ("check-in", "check-ins")}
    parts = []
    for kind in MARK_KINDS:
        count = sum(1 for mark in timeline.marks if mark.kind == kind)
        if count:
            parts.append(f"{count} {nouns[kind][0] if count == 1 else nouns[kind][1]}")
    return ", ".join(parts)


def mark_kind(entry: EventType | None) -> str | None:
    """Which mark an event type makes, from its catalogue family and name; None
    for a type that is not a retry, fallback, recovery, pause or check-in."""
    if entry is None:
        return None
    if entry.family == PAUSE:
        return PAUSED
    if entry.family == CHECKIN:
        return CHECK_IN
    if entry.family != RECOVERY:
        return None
    if entry.domain in ("fallback", "resilience"):
        return FALLBACK
    return RETRY if "retr" in entry.short else RECOVERED


def _marks(events: Sequence, origin: float, horizon: float,
           lanes: dict[tuple[str, ...], int]) -> tuple[Mark, ...]:
    marks = []
    for position, event in enumerate(events):
        if not isinstance(event, dict):
            continue
        entry = event_type(event.get("type"))
        kind = mark_kind(entry)
        if kind is None:
            continue
        meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
        when = meta.get("wallClockMs")
        if not _is_time(when):
            when = event.get("timestamp")  # the resilience pair: no meta, a top-level time
        timed = _is_time(when)
        path = meta.get("subflowPath")
        scope = tuple(str(p) for p in path) if isinstance(path, list) else ()
        lane = lanes.setdefault(scope, len(lanes))
        marks.append(Mark(kind, lane, (when - origin) if timed else horizon, position,
                          entry.short, _detail(entry, event.get("payload")), timed))
    return tuple(marks)


def _detail(entry: EventType, payload: object) -> str:
    """The fields that explain the event, as ``name: value; …``, clipped."""
    if not isinstance(payload, dict):
        return ""
    parts = []
    for name in entry.explaining:
        if name in payload:
            value = payload[name]
            text = (value if isinstance(value, str) else js_number_text(value)
                    if is_number(value) else clipped_json(value, MARK_DETAIL_CHARS))
            parts.append(f"{name}: {text}")
    return one_line("; ".join(parts), MARK_DETAIL_CHARS)


def lane_title(path: Iterable[str]) -> str:
    """``("__root__", "triage", "billing")`` → ``"triage › billing"``; the root is ``"root"``.

    The framework's own wrapper subflows (``sf-llm-call`` and the like) are left
    out of the title: they name no actor a person chose."""
    parts = [p for p in path if p != ROOT_SUBFLOW_ID and not p.startswith(_WRAPPER_PREFIX)]
    return " › ".join(parts) if parts else "root"


def _label(kind: str, record) -> str:
    if kind == MODEL:
        return record.model or "model call"
    return record.name or "tool"


def _failed(kind: str, record) -> bool:
    if kind == TOOL:
        return record.error is True
    return bool(record.failure)


def _is_time(value: object) -> bool:
    # A chart axis is a float64: a time past float range cannot be placed.
    return finite_or_none(value) is not None


class _StepMap(Protocol):
    def nearest_step(self, call_id: int) -> int | None: ...

    def step_for_tool(self, tool_id: int) -> tuple[int | None, bool]: ...

    def call_at(self, position: int, nearest: bool = True) -> tuple[int | None, bool]: ...


def span_position(step_map: _StepMap, kind: str, record_id: int) -> int | None:
    """The position, in the step map's list, of the step that shows this span:
    a model call's own step (or the last step before it, where the projection
    shows no model calls), a tool call's asking call's step."""
    if kind == MODEL:
        return step_map.nearest_step(record_id)
    return step_map.step_for_tool(record_id)[0]


def spans_at(step_map: _StepMap, evidence: _Evidence, position: int) -> list[tuple[str, int]]:
    """(kind, id) of the spans the step at ``position`` shows: its model call and
    the tool calls that call asked for; nothing for a step that shows no call."""
    call_id, _ = step_map.call_at(position, nearest=False)
    if call_id is None:
        return []
    return [(MODEL, call_id)] + [(TOOL, tool) for tool in evidence.calls[call_id].tool_calls]

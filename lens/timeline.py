"""The whole run on one time axis: every model call and tool call of every scope.

Built once per open run from the evidence index, in one pass over its calls
and tool calls. Each call or tool call is one :class:`Span` on the lane of the
scope it ran in (the root's agent, each agent inside a Sequence, Parallel,
Conditional or Loop), placed by the times the recording gives, relative to the
run's first recorded time. A span whose start time the recording does not
carry cannot be placed; it is counted in :attr:`Timeline.unplaced`, never
dropped silently. A span that started and never ended is drawn to the run's
last recorded time and marked open.

What this owns: lanes, spans and their order. What it does not: which step of
a projection shows a span (the app asks the evidence step map), or drawing
(:mod:`lens.timeline_figure`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Protocol, Sequence

from recorders.run_step import ROOT_SUBFLOW_ID
from recorders.values import finite_or_none

MODEL, TOOL = "model", "tool"
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
class Timeline:
    lanes: tuple[Lane, ...]
    spans: tuple[Span, ...]          # model calls first, then tools, each in start order
    origin_ms: float | None          # the run's first recorded time (epoch ms)
    unplaced: int                    # calls and tool calls the recording gives no start time

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
    ordered = sorted(lanes, key=lanes.get)
    return Timeline(tuple(Lane(path, lane_title(path)) for path in ordered), tuple(spans),
                    origin, unplaced)


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

"""Boundary balance: which entries of a boundary log never closed, and which closes never opened.

A crashed or cut-off run leaves its boundary log unbalanced: ``run.entry``
with no ``run.exit``, ``subflow.entry`` with no matching ``subflow.exit``,
``llm.start`` with no ``llm.end``, ``tool.start`` with no ``tool.end``; a
file stitched together or cut at the front can hold closes whose opening
is missing. :func:`analyse_balance` finds all of these in one forward pass
(O(1) work per event; :class:`BalanceTracker` is that pass for a reader that
walks the log anyway) and :meth:`BalanceReport.gaps` says them plainly for
the health line.

Pairing rules (by identity, never by the top of one global stack, because
parallel branches interleave):

- ``run.entry`` / ``run.exit``: counted; an exit with no open run is unmatched.
- ``subflow.entry`` / ``subflow.exit``: by ``subflowId``; an exit closes the
  most recent open entry with the same id (a Loop re-enters the same id).
- ``llm.start`` / ``llm.end``: by ``runtimeStageId``.
- ``tool.start`` / ``tool.end``: by ``toolCallId`` when the event has one,
  otherwise by ``runtimeStageId``.

Owns: only the report. Does not own loading or validation (it tolerates any
input and skips what it cannot read, counting it), nor any step projection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, NamedTuple

from recorders import boundary_names
from recorders.gaps import Gap

GAP_CODE = "unbalanced"
# The event types that open or close something.
_PAIRED_TYPES = frozenset({boundary_names.RUN_ENTRY, boundary_names.RUN_EXIT,
                           boundary_names.SUBFLOW_ENTRY, boundary_names.SUBFLOW_EXIT,
                           boundary_names.LLM_START, boundary_names.LLM_END,
                           boundary_names.TOOL_START, boundary_names.TOOL_END})
# How many ids a gap message lists before it says "and N more".
_LISTED = 5
_SHOWN_ID_CHARS = 80


class OpenEnd(NamedTuple):
    """One unpaired boundary event: what it names and where it is in the log.

    A named tuple: one is built for every opening event of the log."""

    key: str  # subflowId, runtimeStageId or toolCallId; "" when the event had none
    index: int  # position in the boundary log
    label: str | None = None  # e.g. the tool name of a tool.start


@dataclass(frozen=True)
class BalanceReport:
    """The unbalanced boundaries of one boundary log. Empty tuples mean balanced."""

    run_entries: int
    run_exits: int
    open_runs: tuple[OpenEnd, ...]  # run.entry with no run.exit
    unmatched_run_exits: tuple[OpenEnd, ...]  # run.exit with no open run
    open_subflows: tuple[OpenEnd, ...]  # subflow.entry that never exited
    unmatched_subflow_exits: tuple[OpenEnd, ...]  # subflow.exit that never entered
    open_llm_calls: tuple[OpenEnd, ...]  # llm.start without llm.end
    unmatched_llm_ends: tuple[OpenEnd, ...]  # llm.end without llm.start
    open_tool_calls: tuple[OpenEnd, ...]  # tool.start without tool.end
    unmatched_tool_ends: tuple[OpenEnd, ...]  # tool.end without tool.start
    unreadable: int = 0  # entries that are not objects with a string type

    @property
    def missing_run_exit(self) -> bool:
        return bool(self.open_runs)

    @property
    def balanced(self) -> bool:
        return not (self.open_runs or self.unmatched_run_exits or self.open_subflows
                    or self.unmatched_subflow_exits or self.open_llm_calls
                    or self.unmatched_llm_ends or self.open_tool_calls
                    or self.unmatched_tool_ends)

    def gaps(self, paused_parts: int = 0) -> list[Gap]:
        """One :class:`Gap` (code ``unbalanced``) per kind of imbalance, worded
        for people. ``paused_parts`` runs are known to have paused for a person
        and been resumed: the ``run.entry`` of each part before a pause has no
        ``run.exit`` of its own, which is no imbalance (the typed stream's own
        gap says the run paused)."""
        gaps: list[Gap] = []
        open_runs = self.open_runs[paused_parts:] if self.run_exits else self.open_runs
        if open_runs:
            if self.run_exits == 0:
                text = ("the run has no run.exit: it crashed, is still running, or the "
                        "recording was cut off; the steps end at the last event recorded")
            else:
                text = (f"{_n(len(open_runs), 'run.entry event')} without a run.exit "
                        f"({_where(open_runs)})")
            gaps.append(Gap(GAP_CODE, text))
        if self.unmatched_run_exits:
            gaps.append(Gap(GAP_CODE, (
                f"{_n(len(self.unmatched_run_exits), 'run.exit event')} without a run.entry "
                f"({_where(self.unmatched_run_exits)}): the start of the run is missing")))
        for ends, noun, what in (
            (self.open_subflows, "subflow", "entered but never exited"),
            (self.unmatched_subflow_exits, "subflow exit", "that never entered"),
            (self.open_llm_calls, "model call",
             "started but never ended (llm.start without llm.end)"),
            (self.unmatched_llm_ends, "model call",
             "ended without a start (llm.end without llm.start)"),
            (self.open_tool_calls, "tool call",
             "started but never ended (tool.start without tool.end)"),
            (self.unmatched_tool_ends, "tool call",
             "ended without a start (tool.end without tool.start)"),
        ):
            if ends:
                gaps.append(Gap(GAP_CODE, f"{_n(len(ends), noun)} {what}: {_ids(ends)}"))
        return gaps


class _OpenSet:
    """Open events by key; closing takes the most recent open one with that key."""

    def __init__(self) -> None:
        self._open: dict[str, list[OpenEnd]] = {}
        self.unmatched: list[OpenEnd] = []

    def open(self, end: OpenEnd) -> None:
        stack = self._open.get(end.key)
        if stack is None:
            self._open[end.key] = [end]
        else:
            stack.append(end)

    def close(self, key: str, index: int, label: str | None = None) -> None:
        stack = self._open.get(key)
        if stack:
            stack.pop()
            if not stack:
                del self._open[key]
        else:
            self.unmatched.append(OpenEnd(key, index, label))

    def still_open(self) -> tuple[OpenEnd, ...]:
        return tuple(sorted((e for stack in self._open.values() for e in stack),
                            key=lambda e: e.index))


class BalanceTracker:
    """Pairs a boundary log's openings and closings as its events arrive, O(1)
    each, for a reader that already walks the log (the loader, while it
    checks each event); :meth:`report` says what stayed unbalanced. Never
    raises on malformed entries: it counts them as unreadable and skips them.
    """

    def __init__(self) -> None:
        self._runs: list[OpenEnd] = []
        self._unmatched_runs: list[OpenEnd] = []
        self._run_entries = self._run_exits = self._unreadable = 0
        self._subflows, self._llm_calls, self._tool_calls = _OpenSet(), _OpenSet(), _OpenSet()

    def add(self, index: int, event: Any) -> None:
        """Pair the event at ``index`` of the log."""
        kind = event.get("type") if isinstance(event, dict) else None
        if not isinstance(kind, str):
            self._unreadable += 1
            return
        if kind not in _PAIRED_TYPES:
            return
        # Most frequent first: subflows, then model and tool calls, then the run.
        if kind == boundary_names.SUBFLOW_ENTRY:
            self._subflows.open(OpenEnd(_text(event.get("subflowId")), index))
        elif kind == boundary_names.SUBFLOW_EXIT:
            self._subflows.close(_text(event.get("subflowId")), index)
        elif kind == boundary_names.LLM_START:
            self._llm_calls.open(OpenEnd(_text(event.get("runtimeStageId")), index))
        elif kind == boundary_names.LLM_END:
            self._llm_calls.close(_text(event.get("runtimeStageId")), index)
        elif kind == boundary_names.TOOL_START or kind == boundary_names.TOOL_END:
            call_id = event.get("toolCallId")
            has_id = isinstance(call_id, str) and call_id
            key = call_id if has_id else _text(event.get("runtimeStageId"))
            name = event.get("toolName")
            label = name if isinstance(name, str) else None
            if kind == boundary_names.TOOL_START:
                self._tool_calls.open(OpenEnd(key, index, label))
            else:
                self._tool_calls.close(key, index, label)
        elif kind == boundary_names.RUN_ENTRY:
            self._run_entries += 1
            self._runs.append(OpenEnd(_text(event.get("runtimeStageId")), index))
        else:  # run.exit
            self._run_exits += 1
            if self._runs:
                self._runs.pop()
            else:
                self._unmatched_runs.append(OpenEnd(_text(event.get("runtimeStageId")), index))

    def report(self) -> BalanceReport:
        return BalanceReport(
            run_entries=self._run_entries,
            run_exits=self._run_exits,
            open_runs=tuple(self._runs),
            unmatched_run_exits=tuple(self._unmatched_runs),
            open_subflows=self._subflows.still_open(),
            unmatched_subflow_exits=tuple(self._subflows.unmatched),
            open_llm_calls=self._llm_calls.still_open(),
            unmatched_llm_ends=tuple(self._llm_calls.unmatched),
            open_tool_calls=self._tool_calls.still_open(),
            unmatched_tool_ends=tuple(self._tool_calls.unmatched),
            unreadable=self._unreadable,
        )


def analyse_balance(boundary_events: Iterable[Any]) -> BalanceReport:
    """One pass over a boundary log; never raises on malformed entries (it skips them)."""
    tracker = BalanceTracker()
    for index, event in enumerate(boundary_events):
        tracker.add(index, event)
    return tracker.report()


# ─── Wording helpers ───────────────────────────────────────────────────


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _n(count: int, noun: str) -> str:
    return f"1 {noun}" if count == 1 else f"{count} {noun}s"


def _clean(text: str) -> str:
    """An id fit for a one-line message: whitespace runs folded, other controls escaped, cut."""
    text = " ".join(text[: _SHOWN_ID_CHARS * 2].split())
    if not text.isprintable():
        text = repr(text)[1:-1]
    return text if len(text) <= _SHOWN_ID_CHARS else text[: _SHOWN_ID_CHARS - 1] + "…"


def _show(end: OpenEnd) -> str:
    key = _clean(end.key)
    shown = f"'{key}'" if key else "(no id)"
    if end.label:
        shown = f"{_clean(end.label)} {shown}"
    return f"{shown} at boundary event {end.index}"


def _ids(ends: tuple[OpenEnd, ...]) -> str:
    listed = ", ".join(_show(e) for e in ends[:_LISTED])
    more = len(ends) - _LISTED
    return listed + (f" and {more} more" if more > 0 else "")


def _where(ends: tuple[OpenEnd, ...]) -> str:
    indexes = ", ".join(str(e.index) for e in ends[:_LISTED])
    more = len(ends) - _LISTED
    return "boundary event " + indexes + (f" and {more} more" if more > 0 else "")

"""Which step of a run's projection holds an event, and all steps in run order.

Shared by the comparison (aligning two runs' steps) and the raw events page
(a row links to the step that holds its event).

The projection is built from the boundary log and the comparison walks the
typed stream, so an event is placed by where it happened:

- its scope is the deepest scope of the projection, holding steps, whose
  path encloses the event's subflow path (``("__root__", *subflowPath)``);
- within that scope it is held by the last step at or before it, ordered by
  execution index (the ``#N`` of ``runtimeStageId``, counted up by the
  engine as stages run; wall-clock milliseconds are too coarse to order the
  events of one stage), then phase: an event that opens its stage (``*_start``,
  ``*.enter``; in the boundary log ``*.start``, ``*.entry``) sits with the
  first step anchored at that stage, any other with the later ones (a model call's start and end steps share an anchor);
  an event before every step of its scope is held by the first step;
- a context event served to a model call is held by that call's step (the
  served context is read there), so it is placed as that call's start;
- a crash reported at the run's root after the run unwound (the typed
  ``error.fatal``, at stage ``__root__#0``; the boundary ``run.exit`` carrying
  an error) names no stage of where it happened: it is placed as the event
  before it, what was running when the run crashed (the open model call);
- in a file holding several runs the steps describe the last run only: an
  event of an earlier run is held by no step.

:attr:`StepLocator.rows` lists every step of every scope once, in run order by
the same key, for the side-by-side alignment.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from recorders import boundary_names
from recorders.catalogue import ERROR_FATAL
from recorders.lens_projection import crash_error
from recorders.run_step import RunStep
from lens.scopes import ROOT, ScopeIndex

_EXEC_INDEX = re.compile(r"#(\d+)$")
_OPENING_SUFFIXES = ("_start", ".enter", ".start", ".entry")  # typed; boundary log

Key = tuple[int, int]


@dataclass(frozen=True, slots=True)
class StepRow:
    """One step, where it lives (scope path, index) and its order key."""

    path: tuple[str, ...]
    index: int
    kind: str
    label: str
    key: Key

    @property
    def signature(self) -> tuple:
        """What two runs' steps must share to be aligned as the same step."""
        return (self.path, self.kind, self.label)


def execution_index(runtime_stage_id: Any) -> int | None:
    """The ``#N`` of a ``runtimeStageId``: the engine's count of stages run, None without one."""
    if not isinstance(runtime_stage_id, str):
        return None
    match = _EXEC_INDEX.search(runtime_stage_id)
    return int(match.group(1)) if match else None


def _opens_stage(event_type: Any) -> bool:
    return isinstance(event_type, str) and event_type.endswith(_OPENING_SUFFIXES)


def _meta_of(event: Any) -> Mapping[str, Any] | None:
    meta = event.get("meta") if isinstance(event, dict) else None
    return meta if isinstance(meta, dict) else None


def _reports_crash_at_root(event: Any) -> bool:
    """An ``error.fatal`` or an erring ``run.exit`` at the run's root path."""
    meta = _meta_of(event)
    if meta is None or meta.get("subflowPath") not in (None, []):
        return False  # a crash reported inside a subflow names its own place
    kind = event.get("type")
    return kind == ERROR_FATAL or (kind == boundary_names.RUN_EXIT
                                   and crash_error(event) is not None)


class StepLocator:
    """Places typed events of one run on the steps of one projection (built once)."""

    def __init__(self, scopes: ScopeIndex, events: Sequence[Any],
                 served_to: Mapping[int, int], last_run_id: Any = None) -> None:
        self._events = events
        self._served_to = served_to
        self._last_run_id = last_run_id
        self._keys_by_scope: dict[tuple[str, ...], list[Key]] = {}
        rows: list[StepRow] = []
        seen: set[tuple] = set()
        for path in scopes.paths():
            scope = scopes.get(path)
            if scope is None or not scope.steps:
                continue
            keys = _step_keys(scope.steps)
            self._keys_by_scope[tuple(path)] = keys
            for index, (step, key) in enumerate(zip(scope.steps, keys)):
                identity = (step.kind, step.transitions, step.anchor, step.label, step.ts_ms)
                if identity in seen:  # a step shown by an enclosing scope too
                    continue
                seen.add(identity)
                rows.append(StepRow(tuple(path), index, step.kind, step.label, key))
        rows.sort(key=lambda row: (row.key, len(row.path)))
        self.rows: tuple[StepRow, ...] = tuple(rows)
        self._row_at = {(row.path, row.index): position for position, row in enumerate(rows)}

    def row_position(self, path: tuple[str, ...], index: int) -> int | None:
        """Where step (path, index) sits in :attr:`rows` (None when it is listed elsewhere)."""
        return self._row_at.get((tuple(path), index))

    def step_of(self, event_index: int) -> tuple[tuple[str, ...], int] | None:
        """(scope path, index) of the step holding typed event ``event_index``."""
        if not 0 <= event_index < len(self._events):
            return None
        anchor_index = self._crash_site(event_index)
        anchor_index = self._served_to.get(anchor_index, anchor_index)
        event = self._events[anchor_index]
        if not isinstance(event, dict):
            return None
        meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
        if self._last_run_id is not None and meta.get("runId") != self._last_run_id:
            return None
        path = self._scope_of(meta.get("subflowPath"))
        if path is None:
            return None
        keys = self._keys_by_scope[path]
        key = self._event_key(anchor_index, event, meta)
        return path, max(bisect_right(keys, key) - 1, 0)

    def _crash_site(self, index: int) -> int:
        """The event before a crash reported at the root (``index`` for any other event)."""
        if not _reports_crash_at_root(self._events[index]):
            return index
        position = index
        while position > 0:
            position -= 1
            previous = self._events[position]
            meta = _meta_of(previous)
            if meta is not None and isinstance(meta.get("runtimeStageId"), str) \
                    and not _reports_crash_at_root(previous):
                return position
        return index

    def _scope_of(self, subflow_path: Any) -> tuple[str, ...] | None:
        segments = subflow_path if isinstance(subflow_path, list) else []
        path = ROOT + tuple(s for s in segments if isinstance(s, str))
        while path:
            if path in self._keys_by_scope:
                return path
            path = path[:-1]
        return next(iter(self._keys_by_scope), None)

    def _event_key(self, index: int, event: dict, meta: Mapping[str, Any]) -> Key:
        execution = execution_index(meta.get("runtimeStageId"))
        position = index
        while execution is None and position > 0:  # carry the last known index forward
            position -= 1
            previous = self._events[position]
            previous_meta = previous.get("meta") if isinstance(previous, dict) else None
            if isinstance(previous_meta, dict):
                execution = execution_index(previous_meta.get("runtimeStageId"))
        return (execution if execution is not None else -1,
                0 if _opens_stage(event.get("type")) else 1)


def _step_keys(steps: Sequence[RunStep]) -> list[Key]:
    """Order keys of one scope's steps, kept non-decreasing so they can be bisected."""
    keys: list[Key] = []
    seen_anchor: set[str] = set()
    last: Key = (-1, 0)
    for step in steps:
        rid = step.anchor.runtime_stage_id
        execution = execution_index(rid)
        phase = 1 if rid in seen_anchor else 0
        seen_anchor.add(rid)
        key = (execution if execution is not None else last[0], phase)
        last = max(last, key)
        keys.append(last)
    return keys

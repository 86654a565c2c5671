"""The loader's per-event checks, and the gaps every kind of run shares.

Each event is checked once, for the fields the projections read, in the same
pass that counts it; nothing here walks the log twice. The readers of each
file kind (``recorders/read/``) call these once they have found their
events; the checks sit below the readers (and so below the loader,
``recorders/loading.py``, that dispatches to them) so that every reader, and
``lens/follow.py`` through the event-stream reader, uses the same ones.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, NamedTuple

from recorders import boundary_names
from recorders.balance import BalanceReport, BalanceTracker
from recorders.catalogue import LLM_END, LLM_START, TOOL_START
from recorders.counting import counted, times
from recorders.errors import RecordingError
from recorders.event_types import KNOWN_BOUNDARY_TYPES, KNOWN_TYPED_TYPES
from recorders.gaps import Gap
from recorders.values import describe, is_number, shown_text

if TYPE_CHECKING:
    from recorders.read.model import Recording


# ─── Gaps every kind shares ────────────────────────────────────────────


def recording_gaps(recording: Recording, balance: BalanceReport | None) -> list[Gap]:
    """The gaps of any run once its events are checked: the boundary log's
    ``balance`` (when it has one), lean mode, several runs, unknown types,
    typed events without meta."""
    gaps: list[Gap] = []
    runs = _runs_gap(recording) if len(recording.typed_run_ids) > 1 else None
    if balance is not None:
        # Each part of a resumed run before its pause left its run.entry open.
        paused = runs.parts - 1 if isinstance(runs, _ResumedRun) else 0
        gaps.extend(balance.gaps(paused_parts=paused))
    if recording.is_lean:
        gaps.append(Gap("lean", "lean mode: boundary events carry no payloads, arguments, "
                        "results or content"))
    if runs is not None:
        gaps.append(runs.gap)
    unknown = {**recording.unknown_typed_types, **recording.unknown_boundary_types}
    if unknown:
        gaps.append(Gap("unknown-types", f"{counted(sum(unknown.values()), 'event')} of types "
                        f"this version does not know, kept as they are: {_counted_types(unknown)}"))
    without_meta = recording.typed_without_meta
    if without_meta:
        gaps.append(Gap("no-meta", f"{sum(without_meta.values())} typed events carry no meta "
                        "(no run, stage or time), kept but not placed at a step: "
                        f"{_counted_types(without_meta)}"))
    return gaps


def _counted_types(counts: dict[str, int], shown: int = 6) -> str:
    """``type ×n, …`` for the first ``shown`` types by name, then how many more."""
    listed = ", ".join(f"{shown_text(name, limit=80)} ×{count}"
                       for name, count in sorted(counts.items())[:shown])
    return listed if len(counts) <= shown else f"{listed} and {len(counts) - shown} more"


# ─── Per-event validation ──────────────────────────────────────────────

_STR = "a string"
_NUM = "a number"
_BOOL = "a boolean"
_PATH = "a list of strings"

# Fields the projections read, by boundary event type: (name, expected, required).
_BOUNDARY_FIELDS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    boundary_names.RUN_ENTRY: (),
    boundary_names.RUN_EXIT: (),
    boundary_names.SUBFLOW_ENTRY: (("subflowId", _STR, True), ("description", _STR, False),
                                   ("subflowName", _STR, False), ("primitiveKind", _STR, False)),
    boundary_names.SUBFLOW_EXIT: (("subflowId", _STR, True), ("subflowName", _STR, False)),
    boundary_names.FORK_BRANCH: (("parentSubflowId", _STR, True), ("childName", _STR, True)),
    boundary_names.DECISION_BRANCH: (("chosen", _STR, True), ("rationale", _STR, False),
                                     ("decider", _STR, False)),
    boundary_names.LOOP_ITERATION: (("target", _STR, True), ("iteration", _NUM, True)),
    boundary_names.LLM_START: (("model", _STR, False), ("provider", _STR, False)),
    boundary_names.LLM_END: (("toolCallCount", _NUM, True), ("stopReason", _STR, False)),
    boundary_names.TOOL_START: (("toolName", _STR, True), ("toolCallId", _STR, False)),
    boundary_names.TOOL_END: (("toolCallId", _STR, False), ("error", _BOOL, False),
                              ("durationMs", _NUM, False)),
    boundary_names.CONTEXT_INJECTED: (("slot", _STR, False), ("source", _STR, False)),
    boundary_names.COMPOSITION_START: (("kind", _STR, False), ("name", _STR, False)),
    boundary_names.COMPOSITION_END: (("kind", _STR, False), ("name", _STR, False)),
}
_BOUNDARY_COMMON = (("runtimeStageId", _STR, True), ("subflowPath", _PATH, True),
                    ("ts", _NUM, True))
# What each boundary event is checked for: the common fields first.
_BOUNDARY_CHECKS = {kind: _BOUNDARY_COMMON + fields for kind, fields in _BOUNDARY_FIELDS.items()}
# Payload fields the projections read, by typed event type.
_TYPED_PAYLOAD_FIELDS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    LLM_END: (("toolCallCount", _NUM, True),),
    TOOL_START: (("toolName", _STR, False),),
}
_TYPED_META_FOR_STEPS = frozenset({LLM_START, LLM_END})
# Meta fields the projections read: required for the events that become steps.
_TYPED_META_FIELDS_FOR_STEPS = (("runtimeStageId", _STR, True), ("subflowPath", _PATH, False),
                                ("wallClockMs", _NUM, True))
_TYPED_META_FIELDS = (("runtimeStageId", _STR, False), ("subflowPath", _PATH, False),
                      ("wallClockMs", _NUM, False))


def validate_boundary(recording: Recording, where: str) -> BalanceReport:
    """Check and count the boundary events; returns the log's balance, paired
    in the same pass (a pass of its own would read every event again)."""
    counts: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    # A run repeats a few paths thousands of times: equal paths share one
    # list, a fifth of a large log's memory. A path equal to one kept here
    # is a list of strings already checked.
    paths: dict[tuple, list] = {}
    balance = BalanceTracker()
    for index, event in enumerate(recording.boundary_events):
        if not isinstance(event, dict):
            raise RecordingError(f"{where}[{index}]: expected an object, found {describe(event)}")
        kind = event.get("type")
        if not isinstance(kind, str):
            _field_problem(f"{where}[{index}]", "type", _STR, kind, "type" in event, None)
        balance.add(index, event)
        counts[kind] += 1
        if kind not in KNOWN_BOUNDARY_TYPES:
            unknown[kind] += 1  # kept, counted, ignored by the projections
            continue
        # The fields every event has, checked inline when all is well (the
        # usual case); otherwise _first_problem finds what is wrong, in order.
        path = event.get("subflowPath")
        kept = _known_path(paths, path) if path.__class__ is list else None
        ts = event.get("ts")
        if kept is not None and event.get("runtimeStageId").__class__ is str and (
                ts.__class__ is int or ts.__class__ is float):
            fields = _BOUNDARY_FIELDS[kind]
            problem = _first_problem(event, fields) if fields else None
        else:
            problem = _first_problem(event, _BOUNDARY_CHECKS[kind])
            kept = paths.setdefault(tuple(path), path) if problem is None else None
        if problem is not None:
            _field_problem(f"{where}[{index}]", *problem, kind)
        if kept is not path:
            event["subflowPath"] = kept
    recording.boundary_counts = dict(counts)
    recording.unknown_boundary_types = dict(unknown)
    return balance.report()


def validate_typed(recording: Recording, where: str) -> None:
    counts: Counter[str] = Counter()
    without_meta: Counter[str] = Counter()
    run_ids: dict[str, None] = {}
    paths: dict[tuple, list] = {}  # paths found to be lists of strings
    for index, event in enumerate(recording.typed_events):
        if not isinstance(event, dict):
            raise RecordingError(f"{where}[{index}]: expected an object, found {describe(event)}")
        kind = event.get("type")
        if not isinstance(kind, str):
            _field_problem(f"{where}[{index}]", "type", _STR, kind, "type" in event, None)
        counts[kind] += 1
        meta = event.get("meta")
        if not isinstance(meta, dict):
            # agentfootprint delivers some events after the run with no meta at all
            # (resilience.output_*): kept. A model call's start or end becomes a
            # step and needs its stage and time; a meta of another type is malformed;
            # and a type agentfootprint never declared, with no meta either, is not
            # a typed event (a Trace's boundary log read as one opened as 58
            # unknown events and no steps).
            if ("meta" in event or kind in _TYPED_META_FOR_STEPS
                    or kind not in KNOWN_TYPED_TYPES):
                _field_problem(f"{where}[{index}]", "meta", "an object", meta, "meta" in event,
                               kind)
            without_meta[kind] += 1
            meta = {}
        run_id = meta.get("runId")
        if run_id is not None:
            if not isinstance(run_id, str):
                _field_problem(f"{where}[{index}].meta", "runId", _STR, run_id, True, kind)
            run_ids.setdefault(run_id)
        # As for boundary events: the usual case inline, the rest found in
        # order; and, as there, equal paths end up sharing one list.
        path = meta.get("subflowPath")
        kept = _known_path(paths, path) if path.__class__ is list else None
        ts = meta.get("wallClockMs")
        if not (meta.get("runtimeStageId").__class__ is str
                and (ts.__class__ is int or ts.__class__ is float)
                and (path is None or kept is not None)):
            problem = _first_problem(meta, _TYPED_META_FIELDS_FOR_STEPS
                                     if kind in _TYPED_META_FOR_STEPS else _TYPED_META_FIELDS)
            if problem is not None:
                _field_problem(f"{where}[{index}].meta", *problem, kind)
        if kept is not None and kept is not path:
            meta["subflowPath"] = kept
        payload_fields = _TYPED_PAYLOAD_FIELDS.get(kind)
        if payload_fields:
            payload = event.get("payload")
            if not isinstance(payload, dict):
                _field_problem(f"{where}[{index}]", "payload", "an object", payload,
                               "payload" in event, kind)
            problem = _first_problem(payload, payload_fields)
            if problem is not None:
                _field_problem(f"{where}[{index}].payload", *problem, kind)
    recording.typed_counts = dict(counts)
    recording.typed_run_ids = list(run_ids)
    recording.typed_without_meta = dict(without_meta)
    recording.unknown_typed_types = {k: v for k, v in counts.items()
                                     if k not in KNOWN_TYPED_TYPES}


class _ResumedRun(NamedTuple):
    gap: Gap
    parts: int


class _SeveralRuns(NamedTuple):
    gap: Gap


def _runs_gap(recording: Recording) -> _ResumedRun | _SeveralRuns | None:
    """What the typed stream's several run ids are: one run paused for a
    person and resumed (each part has its own id; the boundary log, and so the
    steps, hold every part, the snapshot the last only), several runs, or one run (the application's own
    ``consumer-scope`` and a composition's inner runners are no run of their
    own: :func:`recorders.evidence.run_groups`), which is no gap."""
    # Imported here: the evidence package imports the loader, which imports this module.
    from recorders.evidence.run_groups import run_grouping

    groups, resumed = run_grouping(recording.typed_events)
    if len(groups) <= 1 and not resumed:
        return None
    if resumed and len(groups) == 1:
        return _ResumedRun(Gap(
            "paused-and-resumed",
            f"the run paused for a person and was resumed {times(len(resumed))}: the typed "
            "stream holds each part under its own run id; the steps show every part, and the "
            "snapshot (the file's state) only the part after the last resume"), len(resumed) + 1)
    return _SeveralRuns(Gap("several-runs", f"the typed stream holds {len(groups)} runs; the "
                            "boundary log and snapshot hold only the last one"))


def _known_path(paths: dict[tuple, list], path: list) -> list | None:
    """The list kept for a path equal to ``path`` (``path`` itself when it is the
    first of its kind and a list of strings); None when it is not one."""
    try:
        kept = paths.get(tuple(path))
    except TypeError:  # an unhashable segment: not a string
        return None
    if kept is not None:
        return kept
    for segment in path:
        if not isinstance(segment, str):
            return None
    paths[tuple(path)] = path
    return path


def _first_problem(obj: dict, fields: tuple[tuple[str, str, bool], ...]
                   ) -> tuple[str, str, Any, bool] | None:
    """The first field of ``fields`` that is missing or of the wrong type, as
    (name, expected, value, present); None when all are fine. Runs for every
    event, so the place names of a message are only formatted once it fails."""
    for name, expected, required in fields:
        value = obj.get(name)
        # The common cases first: a plain string, number or list of strings.
        value_type = value.__class__
        if value_type is str:
            if expected is _STR:
                continue
        elif value_type is int or value_type is float:
            if expected is _NUM:
                continue
        elif value_type is list and expected is _PATH:
            for segment in value:
                if not isinstance(segment, str):
                    return name, expected, value, True
            continue
        if value is None:
            if required:
                return name, expected, value, name in obj
            continue
        if expected is _STR:
            ok = isinstance(value, str)
        elif expected is _NUM:
            ok = is_number(value)
        elif expected is _BOOL:
            ok = isinstance(value, bool)
        else:  # _PATH
            ok = isinstance(value, list) and all(isinstance(s, str) for s in value)
        if not ok:
            return name, expected, value, True
    return None


def _field_problem(at: str, name: str, expected: str, value: Any, present: bool,
                   kind: str | None) -> None:
    what = f" ({shown_text(kind)})" if isinstance(kind, str) else ""
    if not present:
        raise RecordingError(f"{at}{what}: missing field '{name}' (expected {expected})")
    raise RecordingError(f"{at}.{name}{what}: expected {expected}, found {describe(value)}")

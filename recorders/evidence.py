"""Evidence index: what each model call was served, what it said, what it asked for.

Built once per recording, in one forward pass over the typed events (plus one
pass over the boundary log for cross-references), O(1) work per event apart
from hashing the strings it carries. Nothing here re-walks the log later: the
views (``lens/evidence_view.py``) only index into what this module built.

What the index owns
-------------------
- :class:`ModelCall`: one model call (``stream.llm_start`` .. ``stream.llm_end``)
  with the context it was served, slot by slot (:class:`SlotComposition` of
  :class:`Piece`), the per-slot budget and drops (``context.slot_composed``),
  the skill evaluation before it (``context.evaluated``), evictions and budget
  pressure, its output, usage, stop reason, duration, the route taken after it
  and the tool calls it asked for.
- :class:`ToolCall`: name, arguments, result, error flag, duration, and the model
  call that asked for it.
- Provenance resolved while reading, never guessed later: a tool-result message
  names its tool call (``sourceId`` = ``toolCallId``); an assistant message is
  tied to the earlier model call in the same scope whose output is the same
  text (the recording carries no id for this, so the link says it was matched
  by content); a user message is tied to the turn's prompt, or, when a
  composition handed one step's output to the next, to that earlier output.
- Search entries: every searchable text (prompts, outputs, tool arguments and
  results, injections and their reasons, route reasons, errors), each stored
  once with the calls it was served in.
- :class:`StepMap`: ties model calls and tool calls to the steps of a given
  step list by ``runtimeStageId`` (and time, when several runs reuse an id).

What it does not own: the steps themselves (``recorders.projections``), and
anything about display (truncation, escaping): that is the views' job.

Where the recording lacks a fact, the field is None and its name is listed in
the object's ``missing``; the views say so instead of showing an empty box.
Malformed events (non-dict payloads, wrong field types) never raise: the
fields they lack are reported missing and the event is counted in
``EvidenceIndex.anomalies``.

A *scope* is where a model call runs: ``(runId, subflowPath)`` of its
``stream.llm_start`` (``subflowPath`` without ``__root__``). Context events fire
one subflow deeper (``sf-system-prompt``, ``sf-messages``, ``sf-tools``,
``sf-injection-engine``) and an Agent's final stage in ``final``; those
segments are stripped to find their scope. "The previous call in the same
scope" is the previous model call with the same scope key.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

SYSTEM_PROMPT = "system-prompt"
MESSAGES = "messages"
TOOLS = "tools"
SLOTS: tuple[str, ...] = (SYSTEM_PROMPT, MESSAGES, TOOLS)

SOURCE_TYPED = "typed"
SOURCE_BOUNDARY = "boundary"
SOURCE_NONE = "none"

_PREFIX = "agentfootprint."
# Subflows a context event fires in, one level below the model call's scope.
_CONTEXT_SEGMENTS = frozenset({"sf-system-prompt", "sf-messages", "sf-tools",
                               "sf-injection-engine"})
# An Agent's final stage: turn_end / iteration_end fire here.
_FINAL_SEGMENT = "final"

# Boundary event type -> typed short name, for the boundary-only fallback.
_BOUNDARY_AS_TYPED = {
    "llm.start": "stream.llm_start",
    "llm.end": "stream.llm_end",
    "tool.start": "stream.tool_start",
    "tool.end": "stream.tool_end",
    "context.injected": "context.injected",
}

# What a served piece is searchable as, by slot ("message" otherwise).
_SEARCH_KIND_OF_SLOT = {SYSTEM_PROMPT: "system prompt", TOOLS: "tool offered"}

ScopeKey = tuple[Any, tuple[str, ...]]  # (runId or None, subflow path)


# ─── Records ───────────────────────────────────────────────────────────


@dataclass(slots=True)
class Piece:
    """One injected piece of a slot, as the model was served it, with provenance.

    ``content`` is the full text (``rawContent``) when recorded; when only the
    recorder's summary exists it holds that and ``content_is_summary`` is True.
    Links (``tool_call``, ``written_by``, ``matches_output_of``) are ids into
    the index, resolved when the piece was read.
    """

    slot: str
    source: str | None
    source_id: str | None
    role: str | None
    reason: str | None
    content: str | None
    content_is_summary: bool
    content_hash: str | None
    position: int | None
    recency: str | None
    event_index: int
    ts: float | None
    missing: tuple[str, ...] = ()
    tool_call: int | None = None          # tool-result: the ToolCall it carries
    written_by: int | None = None         # assistant: the ModelCall that wrote it
    matches_output_of: int | None = None  # user: an earlier output with the same text
    from_user_prompt: bool = False        # user: the turn's prompt, verbatim

    @property
    def is_tool_result(self) -> bool:
        return self.source == "tool-result" or self.role == "tool"

    @property
    def key(self) -> tuple:
        """Identity across calls (for deltas and de-duplication)."""
        if self.slot == TOOLS:  # "name: description"; a skill's tool has the skill as sourceId
            name = _tool_name_of(self.content)
            return ("tool", name if name is not None else self.source_id)
        if self.is_tool_result and self.source_id is not None:
            return ("tool-result", self.source_id)
        if self.slot == SYSTEM_PROMPT:
            return ("system", self.source, self.source_id)
        return (self.role or self.source,
                self.content if self.content is not None else self.content_hash)


@dataclass(slots=True)
class SlotComposition:
    """One slot as served to one call: pieces, budget, drops.

    ``origin`` is ``"fresh"`` when the slot was composed for this call,
    ``"carried"`` when it was not recomposed and the previous call's
    composition (``carried_from``) still stood.
    """

    slot: str
    pieces: list[Piece] = field(default_factory=list)
    budget: Mapping[str, Any] | None = None
    source_breakdown: Mapping[str, Any] | None = None
    dropped_count: int | None = None
    dropped_summaries: list[Any] | None = None
    ordering: str | None = None
    iteration: int | None = None
    composed_event_index: int | None = None
    origin: str = "fresh"
    carried_from: int | None = None
    missing: tuple[str, ...] = ()
    closed: bool = False  # a slot_composed event ended it


@dataclass(slots=True)
class Eviction:
    slot: str | None
    content_hash: str | None
    reason: str | None
    survival_ms: float | None
    event_index: int
    pieces: tuple[Piece, ...] = ()  # the earlier pieces with this content hash


@dataclass(slots=True)
class ContextNote:
    """Any other event in the scope worth showing (skill.*, tools.*, budget pressure)."""

    type: str
    payload: Any
    event_index: int
    ts: float | None


@dataclass(slots=True)
class ToolCall:
    id: int
    tool_call_id: str | None
    name: str | None
    args: Any
    result: Any
    error: bool | None      # None: not recorded (or the call never ended)
    duration_ms: float | None
    requested_by: int | None
    run_id: Any
    scope: tuple[str, ...]
    runtime_stage_id: str | None
    start_event_index: int | None
    end_event_index: int | None
    ts_start: float | None
    ts_end: float | None = None
    ended: bool = False
    missing: list[str] = field(default_factory=list)
    notes: list[ContextNote] = field(default_factory=list)


@dataclass(slots=True)
class ModelCall:
    id: int
    run_id: Any
    scope: tuple[str, ...]
    runtime_stage_id: str | None
    composition_path: tuple[str, ...] | None
    ordinal_in_scope: int
    previous_in_scope: int | None
    start_event_index: int
    ts_start: float | None
    iteration: int | None = None
    model: str | None = None
    provider: str | None = None
    system_prompt_chars: float | None = None
    messages_count: float | None = None
    tools_count: float | None = None
    tools_offered: list[Any] | None = None  # llm_start ``tools`` (name, description)
    slots: dict[str, SlotComposition] = field(default_factory=dict)
    evaluated: Mapping[str, Any] | None = None
    evaluated_event_index: int | None = None
    evictions: list[Eviction] = field(default_factory=list)
    notes: list[ContextNote] = field(default_factory=list)
    user_prompt: str | None = None
    turn_index: int | None = None
    ended: bool = False
    end_event_index: int | None = None
    ts_end: float | None = None
    output: str | None = None
    usage: Mapping[str, Any] | None = None
    stop_reason: str | None = None
    duration_ms: float | None = None
    tool_call_count: float | None = None
    tool_calls: list[int] = field(default_factory=list)
    route: Mapping[str, Any] | None = None
    failure: str | None = None
    in_boundary_log: bool | None = None
    missing: list[str] = field(default_factory=list)

    @property
    def is_final_answer(self) -> bool:
        """Ended without asking for tools (an answer, not a tool request)."""
        if not self.ended:
            return False
        if self.tool_call_count is not None:
            return self.tool_call_count == 0 and not self.tool_calls
        return not self.tool_calls and self.stop_reason != "tool_use"


@dataclass(slots=True)
class Turn:
    run_id: Any
    scope: tuple[str, ...]
    turn_index: int | None
    user_prompt: str | None
    final_content: str | None = None
    final_call: int | None = None
    event_index: int = -1


@dataclass(slots=True)
class SearchEntry:
    """One searchable text, stored once. ``served_in`` lists the calls that were
    served it (for context pieces); ``call``/``tool`` name its owner."""

    kind: str        # "user prompt", "system prompt", "message", "tool offered",
                     # "model output", "tool arguments", "tool result",
                     # "injection reason", "route reason", "error"
    text: str
    call: int | None = None
    tool: int | None = None
    event_index: int | None = None
    ts: float | None = None
    served_in: list[int] = field(default_factory=list)
    label: str = ""  # a short trusted-ish label (source/role/tool name), untrusted text


@dataclass
class EvidenceIndex:
    source: str
    calls: list[ModelCall]
    tool_calls: list[ToolCall]
    turns: list[Turn]
    search_entries: list[SearchEntry]
    notices: list[str]
    anomalies: list[str]
    run_ids: list[Any]
    lean: bool
    boundary_only_run: Any = None  # the run the boundary log covers (last run)
    _calls_by_rid: dict[str, list[int]] = field(default_factory=dict, repr=False)
    _step_maps: dict[int, "StepMap"] = field(default_factory=dict, repr=False)

    # ── look-ups ──
    def call(self, call_id: int) -> ModelCall:
        return self.calls[call_id]

    def tool(self, tool_id: int) -> ToolCall:
        return self.tool_calls[tool_id]

    def calls_for_runtime_stage(self, runtime_stage_id: str) -> list[int]:
        return list(self._calls_by_rid.get(runtime_stage_id, ()))

    def previous_call(self, call_id: int) -> ModelCall | None:
        prev = self.calls[call_id].previous_in_scope
        return None if prev is None else self.calls[prev]

    def step_map(self, steps: Sequence[Any]) -> "StepMap":
        """The :class:`StepMap` for this step list, built once per list object."""
        cached = self._step_maps.get(id(steps))
        if cached is None or cached.steps is not steps:
            if len(self._step_maps) >= 16:
                self._step_maps.clear()
            cached = self._step_maps[id(steps)] = StepMap(self, steps)
        return cached

    def final_call(self) -> ModelCall | None:
        """The final answer: the last call of the last run that answered
        without asking for tools; failing that, the last call."""
        if not self.calls:
            return None
        last_run = self.calls[-1].run_id
        for call in reversed(self.calls):
            if call.run_id == last_run and call.is_final_answer:
                return call
        return self.calls[-1]


# ─── Step mapping ──────────────────────────────────────────────────────


class StepMap:
    """Ties model calls and tool calls to positions in one step list.

    Build it once per step list (one pass over the steps); look-ups are O(1)
    or a bisect. A call's *exact* steps are the steps anchored at its
    ``runtimeStageId`` whose time lies within the call (several runs can
    reuse one id; the time tells them apart). When the step list hides model
    calls (e.g. the reference projection at an Agent root),
    :meth:`nearest_step` gives the last step at or before the call.
    """

    def __init__(self, index: EvidenceIndex, steps: Sequence[Any]):
        self.index = index
        self.steps = steps
        self._by_rid: dict[str, list[int]] = {}
        times: list[tuple[float, int]] = []
        for position, step in enumerate(steps):
            rid = _step_rid(step)
            if rid is not None:
                self._by_rid.setdefault(rid, []).append(position)
            ts = _step_ts(step)
            if ts is not None:
                times.append((ts, position))
        times.sort()
        self._times = [t for t, _ in times]
        self._time_pos = [p for _, p in times]
        self._exact: dict[int, tuple[int, ...]] = {}
        # Calls by start time, of the run the steps describe (the last one).
        last_run = index.boundary_only_run
        starts = sorted((c.ts_start, c.id) for c in index.calls
                        if c.ts_start is not None and (last_run is None or c.run_id == last_run))
        self._call_starts = [t for t, _ in starts]
        self._call_ids = [i for _, i in starts]

    def steps_for_call(self, call_id: int) -> tuple[int, ...]:
        """Positions of the steps that show this call (start and end), may be empty."""
        cached = self._exact.get(call_id)
        if cached is not None:
            return cached
        call = self.index.calls[call_id]
        found: tuple[int, ...] = ()
        candidates = self._by_rid.get(call.runtime_stage_id or "", [])
        if candidates:
            lo = call.ts_start
            hi = call.ts_end if call.ts_end is not None else lo
            if lo is not None and hi is not None:
                in_window = tuple(p for p in candidates
                                  if (ts := _step_ts(self.steps[p])) is not None
                                  and lo <= ts <= hi)
            else:
                in_window = ()
            if in_window:
                found = in_window
            elif len(self.index.calls_for_runtime_stage(call.runtime_stage_id or "")) == 1:
                found = tuple(candidates)  # one call has this id: the anchor decides
        self._exact[call_id] = found
        return found

    def start_step(self, call_id: int) -> int | None:
        found = self.steps_for_call(call_id)
        return found[0] if found else None

    def end_step(self, call_id: int) -> int | None:
        found = self.steps_for_call(call_id)
        return found[-1] if found else None

    def nearest_step(self, call_id: int) -> int | None:
        """The call's first exact step, else the last step at or before its start."""
        exact = self.start_step(call_id)
        if exact is not None:
            return exact
        return self.step_at_time(self.index.calls[call_id].ts_start)

    def step_for_tool(self, tool_id: int) -> tuple[int | None, bool]:
        """(step position, exact?) for a tool call: the asking call's end step when
        the list shows it, else the last step at or before the tool started."""
        tool = self.index.tool_calls[tool_id]
        if tool.requested_by is not None:
            end = self.end_step(tool.requested_by)
            if end is not None:
                return end, True
        return self.step_at_time(tool.ts_start), False

    def call_at(self, position: int, nearest: bool = True) -> tuple[int | None, bool]:
        """(call id, exact?) for a step: the call the step shows; with ``nearest``,
        for a step that shows no call, the last call in the run that started at
        or before the step."""
        if not 0 <= position < len(self.steps):
            return None, False
        step = self.steps[position]
        ts = _step_ts(step)
        for call_id in self.index.calls_for_runtime_stage(_step_rid(step) or ""):
            if position in self.steps_for_call(call_id):
                return call_id, True
        if not nearest or ts is None:
            return None, False
        at = bisect.bisect_right(self._call_starts, ts)
        return (self._call_ids[at - 1], False) if at else (None, False)

    def step_at_time(self, ts: float | None) -> int | None:
        """The last step at or before ``ts`` (wall-clock ms), if any."""
        if ts is None or not self._times:
            return None
        at = bisect.bisect_right(self._times, ts)
        return self._time_pos[at - 1] if at else None


def map_steps(index: EvidenceIndex, steps: Sequence[Any]) -> StepMap:
    return StepMap(index, steps)


def steps_for_call(index: EvidenceIndex, call_id: int, steps: Sequence[Any]) -> tuple[int, ...]:
    """Positions in ``steps`` of the step(s) that show model call ``call_id``."""
    return StepMap(index, steps).steps_for_call(call_id)


def _step_rid(step: Any) -> str | None:
    anchor = getattr(step, "anchor", None)
    if anchor is not None:
        return getattr(anchor, "runtime_stage_id", None)
    if isinstance(step, Mapping):
        anchor = step.get("anchor")
        if isinstance(anchor, Mapping):
            return anchor.get("runtimeStageId")
        return step.get("runtimeStageId")
    return None


def _step_ts(step: Any) -> float | None:
    ts = getattr(step, "ts_ms", None)
    if ts is None and isinstance(step, Mapping):
        ts = step.get("tsMs")
    return ts if _is_num(ts) else None


# ─── Building ──────────────────────────────────────────────────────────


def build_evidence_index(recording: Any) -> EvidenceIndex:
    """Build the index for a loaded :class:`recorders.loading.Recording`."""
    typed = list(getattr(recording, "typed_events", None) or [])
    boundary = list(getattr(recording, "boundary_events", None) or [])
    return build_from_events(
        typed, boundary,
        lean=bool(getattr(recording, "is_lean", False)),
        has_typed_stream=bool(getattr(recording, "has_typed_stream", bool(typed))),
        complete=getattr(recording, "complete", None),
    )


def build_from_events(typed_events: Iterable[Any], boundary_events: Iterable[Any] = (),
                      *, lean: bool = False, has_typed_stream: bool = True,
                      complete: bool | None = None) -> EvidenceIndex:
    """Build the index from raw event lists (what tests hand-build)."""
    typed = typed_events if isinstance(typed_events, list) else list(typed_events)
    boundary = boundary_events if isinstance(boundary_events, list) else list(boundary_events)
    builder = _Builder()
    boundary_llm = builder.scan_boundary(boundary)
    use_typed = has_typed_stream and any(
        isinstance(e, dict) and e.get("type") == _PREFIX + "stream.llm_start" for e in typed)
    if use_typed:
        source = SOURCE_TYPED
        for position, event in enumerate(typed):
            builder.feed_typed(position, event)
    elif boundary_llm:
        source = SOURCE_BOUNDARY
        for position, event in enumerate(boundary):
            builder.feed_boundary_as_typed(position, event)
    else:
        source = SOURCE_NONE
        for position, event in enumerate(typed):  # prompts/errors may still be there
            builder.feed_typed(position, event)
    return builder.finish(source, boundary_llm, lean=lean, has_typed_stream=has_typed_stream,
                          complete=complete, has_boundary=bool(boundary))


class _ScopeState:
    """Per scope: what is being composed for the next call, and the last calls."""

    __slots__ = ("pending", "evaluated", "evaluated_at", "evictions", "notes",
                 "last_started", "last_ended", "open_call", "count", "turn",
                 "outputs", "open_tools")

    def __init__(self) -> None:
        self.pending: dict[str, SlotComposition] = {}
        self.evaluated: Mapping[str, Any] | None = None
        self.evaluated_at: int | None = None
        self.evictions: list[Eviction] = []
        self.notes: list[ContextNote] = []
        self.last_started: ModelCall | None = None
        self.last_ended: ModelCall | None = None
        self.open_call: ModelCall | None = None
        self.count = 0
        self.turn: Turn | None = None
        self.outputs: dict[str, int] = {}       # output text -> latest call id
        self.open_tools: dict[Any, ToolCall] = {}  # toolCallId -> open tool call


class _Builder:
    """The one forward pass. Each handler does O(1) work per event."""

    def __init__(self) -> None:
        self.calls: list[ModelCall] = []
        self.tools: list[ToolCall] = []
        self.turns: list[Turn] = []
        self.entries: list[SearchEntry] = []
        self.anomalies: list[str] = []
        self.scopes: dict[ScopeKey, _ScopeState] = {}
        self.run_ids: dict[Any, None] = {}
        self.calls_by_rid: dict[str, list[int]] = {}
        self.tools_by_run_id: dict[tuple[Any, Any], ToolCall] = {}
        self.tools_by_scope_id: dict[tuple[ScopeKey, Any], ToolCall] = {}
        self.outputs_by_run: dict[Any, dict[str, int]] = {}
        self.prompts_by_scope: dict[ScopeKey, str] = {}
        self.pieces_by_hash: dict[tuple[ScopeKey, str], Piece] = {}
        self.served: dict[tuple, SearchEntry] = {}  # de-duplicated context entries
        self.fatal: list[tuple[Any, str, int]] = []
        self.summary_only = 0
        self.no_text = 0
        self.current_run: Any = None

    # ── boundary pass (cross-references only) ──
    def scan_boundary(self, boundary: list) -> set[tuple[str, float]]:
        seen: set[tuple[str, float]] = set()
        for position, event in enumerate(boundary):
            if not isinstance(event, dict):
                continue
            kind = event.get("type")
            if kind == "llm.start":
                rid, ts = event.get("runtimeStageId"), event.get("ts")
                if isinstance(rid, str) and _is_num(ts):
                    seen.add((rid, ts))
            elif kind == "decision.branch":
                rationale = event.get("rationale")
                if isinstance(rationale, str) and rationale:
                    self.entries.append(SearchEntry(
                        "route reason", rationale, event_index=None,
                        ts=event.get("ts") if _is_num(event.get("ts")) else None,
                        label=f"decision {_s(event.get('decider')) or ''} → "
                              f"{_s(event.get('chosen')) or ''}".strip()))
        return seen

    # ── typed events ──
    def feed_typed(self, position: int, event: Any) -> None:
        if not isinstance(event, dict):
            self.anomalies.append(f"events[{position}]: not an object; skipped")
            return
        kind = event.get("type")
        if not isinstance(kind, str):
            self.anomalies.append(f"events[{position}]: no type; skipped")
            return
        meta = event.get("meta")
        if not isinstance(meta, dict):
            meta = {}
        self._dispatch(position, kind, event.get("payload"), meta)

    def feed_boundary_as_typed(self, position: int, event: Any) -> None:
        if not isinstance(event, dict):
            return
        short = _BOUNDARY_AS_TYPED.get(event.get("type"))
        if short is None:
            return
        path = event.get("subflowPath")
        if isinstance(path, list) and path and path[0] == "__root__":
            path = path[1:]
        meta = {"runtimeStageId": event.get("runtimeStageId"), "subflowPath": path,
                "wallClockMs": event.get("ts")}
        self._dispatch(position, short, event, meta)

    def _dispatch(self, position: int, kind: str, payload: Any, meta: dict) -> None:
        """Hand an event to its handler; ``kind`` is its type with or without
        the ``agentfootprint.`` prefix (the handler table knows both)."""
        handler = _HANDLERS.get(kind)
        run_id = meta.get("runId")
        if run_id is not None and (not isinstance(run_id, (str, int, float))
                                   or isinstance(run_id, bool)):
            run_id = _to_text(run_id)
        if run_id not in self.run_ids:
            self.run_ids[run_id] = None
        self.current_run = run_id
        if handler is None:
            short = _short_type(kind)
            if short.startswith(("skill.", "tools.", "permission.", "validation.",
                                 "reliability.", "resilience.", "memory.")):
                self._note(position, short, payload, meta)
            return
        if not isinstance(payload, dict):
            self.anomalies.append(f"events[{position}] ({_short_type(kind)}): payload is "
                                  f"{_describe(payload)}, not an object")
            payload = {}
        handler(self, position, payload, meta)

    # helpers
    def _path(self, meta: dict) -> tuple[str, ...]:
        path = meta.get("subflowPath")
        if isinstance(path, list):
            return tuple(map(str, path))
        return ()

    def _scope_key(self, meta: dict, strip: frozenset[str] | None = None) -> ScopeKey:
        path = self._path(meta)
        if strip and path and path[-1] in strip:
            path = path[:-1]
        return (self.current_run, path)

    def _state(self, key: ScopeKey) -> _ScopeState:
        state = self.scopes.get(key)
        if state is None:
            state = self.scopes[key] = _ScopeState()
        return state

    def _note(self, position: int, short: str, payload: Any, meta: dict) -> None:
        note = ContextNote(short, payload, position, _num(meta, "wallClockMs"))
        key = self._scope_key(meta, _CONTEXT_SEGMENTS)
        state = self._state(key)
        tool = None
        if isinstance(payload, dict) and isinstance(payload.get("toolCallId"), str):
            tool = state.open_tools.get(payload["toolCallId"]) or \
                self.tools_by_run_id.get((key[0], payload["toolCallId"]))
        if tool is None and state.open_tools:
            tool = next(reversed(state.open_tools.values()))
        if tool is not None:
            tool.notes.append(note)
        else:
            state.notes.append(note)
        if short == "skill.rejected" and isinstance(payload, dict):
            text = (f"skill {_s(payload.get('requestedId'))!s} rejected from "
                    f"{_s(payload.get('currentSkillId'))!s}; allowed: "
                    f"{_join(payload.get('allowed'))}")
            self.entries.append(SearchEntry("route reason", text, event_index=position,
                                            ts=note.ts, tool=tool.id if tool else None,
                                            call=tool.requested_by if tool else None,
                                            label="skill.rejected"))

    # ── context ──
    def on_injected(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta, _CONTEXT_SEGMENTS)
        state = self._state(key)
        missing: list[str] = []
        slot = _s(p.get("slot"))
        if slot is None:
            missing.append("slot")
            slot = _slot_from_path(self._path(meta)) or "unknown"
        content = p.get("rawContent")
        summary_only = False
        if not isinstance(content, str):
            if content is not None:
                content = _to_text(content)
            else:
                missing.append("rawContent")
                summary = p.get("contentSummary")
                if isinstance(summary, str):
                    content, summary_only = summary, True
                    self.summary_only += 1
                else:
                    missing.append("contentSummary")
                    content = None
                    self.no_text += 1
        source = _s(p.get("source"))
        if source is None:
            missing.append("source")
        reason = _s(p.get("reason"))
        if reason is None:
            missing.append("reason")
        piece = Piece(slot=slot, source=source, source_id=_s(p.get("sourceId")),
                      role=_s(p.get("asRole")), reason=reason, content=content,
                      content_is_summary=summary_only, content_hash=_s(p.get("contentHash")),
                      position=_int(p.get("position")), recency=_s(p.get("asRecency")),
                      event_index=position, ts=_num(meta, "wallClockMs"),
                      missing=tuple(missing))
        self._link_piece(piece, key, state)
        composition = state.pending.get(slot)
        if composition is None or composition.closed:
            composition = state.pending[slot] = SlotComposition(slot=slot)
        composition.pieces.append(piece)
        if piece.content_hash is not None:
            self.pieces_by_hash[(key, piece.content_hash)] = piece

    def _link_piece(self, piece: Piece, key: ScopeKey, state: _ScopeState) -> None:
        if piece.slot != MESSAGES:
            return
        if piece.is_tool_result and piece.source_id is not None:
            tool = self.tools_by_scope_id.get((key, piece.source_id))
            if tool is None:
                tool = self.tools_by_run_id.get((key[0], piece.source_id))
            if tool is not None:
                piece.tool_call = tool.id
            return
        if piece.content is None or piece.content_is_summary:
            return
        if piece.role == "assistant" or piece.source == "assistant":
            piece.written_by = state.outputs.get(piece.content)
        elif piece.role == "user" or piece.source == "user":
            prompt = self.prompts_by_scope.get(key)
            if prompt is not None and prompt == piece.content:
                piece.from_user_prompt = True
            else:
                piece.matches_output_of = self.outputs_by_run.get(key[0], {}).get(piece.content)

    def on_slot_composed(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta, _CONTEXT_SEGMENTS)
        state = self._state(key)
        slot = _s(p.get("slot")) or _slot_from_path(self._path(meta)) or "unknown"
        composition = state.pending.get(slot)
        if composition is None or composition.closed:
            composition = state.pending[slot] = SlotComposition(slot=slot)
        missing = []
        budget = p.get("budget")
        composition.budget = budget if isinstance(budget, dict) else None
        if composition.budget is None:
            missing.append("budget")
        breakdown = p.get("sourceBreakdown")
        composition.source_breakdown = breakdown if isinstance(breakdown, dict) else None
        composition.dropped_count = _int(p.get("droppedCount"))
        if composition.dropped_count is None:
            missing.append("droppedCount")
        dropped = p.get("droppedSummaries")
        composition.dropped_summaries = dropped if isinstance(dropped, list) else None
        if composition.dropped_summaries is None:
            missing.append("droppedSummaries")
        composition.ordering = _s(p.get("orderingStrategy"))
        composition.iteration = _int(p.get("iteration"))
        composition.composed_event_index = position
        composition.missing = tuple(missing)
        composition.closed = True

    def on_evaluated(self, position: int, p: dict, meta: dict) -> None:
        state = self._state(self._scope_key(meta, _CONTEXT_SEGMENTS))
        state.evaluated, state.evaluated_at = p, position
        ts = _num(meta, "wallClockMs")
        move = p.get("cursorMove")
        if isinstance(move, dict):
            text = (f"skill cursor → {_s(move.get('to'))!s} by {_s(move.get('by'))!s}; "
                    f"reachable: {_join(move.get('reachable'))}")
            self.entries.append(SearchEntry("route reason", text, event_index=position, ts=ts,
                                            label="context.evaluated cursorMove"))
        routing = p.get("routing")
        if isinstance(routing, list):
            for row in routing:
                if isinstance(row, dict) and isinstance(row.get("label"), str):
                    self.entries.append(SearchEntry(
                        "route reason", row["label"], event_index=position, ts=ts,
                        label=f"routing {_s(row.get('from')) or ''} → "
                              f"{_s(row.get('injectionId')) or ''}".strip()))

    def on_evicted(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta, _CONTEXT_SEGMENTS)
        state = self._state(key)
        content_hash = _s(p.get("contentHash"))
        earlier = self.pieces_by_hash.get((key, content_hash)) if content_hash else None
        state.evictions.append(Eviction(
            slot=_s(p.get("slot")), content_hash=content_hash, reason=_s(p.get("reason")),
            survival_ms=_num(p, "survivalMs"), event_index=position,
            pieces=(earlier,) if earlier is not None else ()))

    def on_budget_pressure(self, position: int, p: dict, meta: dict) -> None:
        state = self._state(self._scope_key(meta, _CONTEXT_SEGMENTS))
        state.notes.append(ContextNote("context.budget_pressure", p, position,
                                       _num(meta, "wallClockMs")))

    # ── model calls ──
    def on_llm_start(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta)
        state = self._state(key)
        rid = _s(meta.get("runtimeStageId"))
        previous = state.last_started
        comp_path = meta.get("compositionPath")
        call = ModelCall(
            id=len(self.calls), run_id=key[0], scope=key[1], runtime_stage_id=rid,
            composition_path=tuple(map(str, comp_path)) if isinstance(comp_path, list) else None,
            ordinal_in_scope=state.count + 1,
            previous_in_scope=previous.id if previous is not None else None,
            start_event_index=position, ts_start=_num(meta, "wallClockMs"),
            iteration=_int(p.get("iteration")), model=_s(p.get("model")),
            provider=_s(p.get("provider")),
            system_prompt_chars=_num(p, "systemPromptChars"),
            messages_count=_num(p, "messagesCount"), tools_count=_num(p, "toolsCount"),
            tools_offered=p.get("tools") if isinstance(p.get("tools"), list) else None,
        )
        for name, value in (("runtimeStageId", rid), ("model", call.model),
                            ("provider", call.provider), ("wallClockMs", call.ts_start)):
            if value is None:
                call.missing.append(name)
        if state.open_call is not None:
            self.anomalies.append(f"events[{position}]: a model call started in a scope whose "
                                  f"previous call (events[{state.open_call.start_event_index}]) "
                                  "had not ended")
        # The served context: what was composed since the previous call; slots
        # not recomposed carry over from it.
        for slot, composition in state.pending.items():
            composition.closed = True
            call.slots[slot] = composition
        if previous is not None:
            for slot, composition in previous.slots.items():
                if slot not in call.slots:
                    call.slots[slot] = SlotComposition(
                        slot=slot, pieces=composition.pieces, budget=composition.budget,
                        source_breakdown=composition.source_breakdown,
                        dropped_count=composition.dropped_count,
                        dropped_summaries=composition.dropped_summaries,
                        ordering=composition.ordering, iteration=composition.iteration,
                        composed_event_index=composition.composed_event_index,
                        origin="carried",
                        carried_from=(composition.carried_from
                                      if composition.origin == "carried" else previous.id),
                        missing=composition.missing, closed=True)
        call.evaluated, call.evaluated_event_index = state.evaluated, state.evaluated_at
        call.evictions, call.notes = state.evictions, state.notes
        state.pending, state.evaluated, state.evaluated_at = {}, None, None
        state.evictions, state.notes = [], []
        if state.turn is not None:
            call.user_prompt, call.turn_index = state.turn.user_prompt, state.turn.turn_index
        state.last_started = state.open_call = call
        state.count += 1
        self.calls.append(call)
        if rid is not None:
            self.calls_by_rid.setdefault(rid, []).append(call.id)
        for slot, composition in call.slots.items():
            if composition.origin != "fresh":
                continue
            for piece in composition.pieces:
                self._served_entry(piece, key, call.id)

    def _served_entry(self, piece: Piece, key: ScopeKey, call_id: int) -> None:
        if piece.content is None:
            return
        kind = _SEARCH_KIND_OF_SLOT.get(piece.slot, "message")
        piece_key = piece.key
        dedupe = (key, piece.slot, piece_key, piece.content)
        entry = self.served.get(dedupe)
        if entry is None:
            label = piece.role or piece.source or ""
            if piece.source_id:
                label = f"{label} {piece.source_id}".strip()
            entry = SearchEntry(kind, piece.content, call=call_id, event_index=piece.event_index,
                                ts=piece.ts, label=label, tool=piece.tool_call)
            self.served[dedupe] = entry
            self.entries.append(entry)
        entry.served_in.append(call_id)
        if piece.reason and piece.slot != MESSAGES:
            rkey = (key, piece.slot, piece_key, "reason", piece.reason)
            if rkey not in self.served:
                reason_entry = SearchEntry("injection reason", piece.reason, call=call_id,
                                           event_index=piece.event_index, ts=piece.ts,
                                           label=piece.source or "")
                self.served[rkey] = reason_entry
                self.entries.append(reason_entry)

    def on_llm_end(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta)
        state = self._state(key)
        call = state.open_call
        rid = _s(meta.get("runtimeStageId"))
        if call is None or (rid is not None and call.runtime_stage_id not in (None, rid)):
            self.anomalies.append(f"events[{position}]: a model call ended that never started "
                                  "in this scope; ignored")
            return
        call.ended, call.end_event_index = True, position
        call.ts_end = _num(meta, "wallClockMs")
        content = p.get("content")
        if isinstance(content, str):
            call.output = content
        elif content is not None:
            call.output = _to_text(content)
        else:
            call.missing.append("content")
        usage = p.get("usage")
        call.usage = usage if isinstance(usage, dict) else None
        if call.usage is None:
            call.missing.append("usage")
        call.stop_reason = _s(p.get("stopReason"))
        if call.stop_reason is None:
            call.missing.append("stopReason")
        call.duration_ms = _num(p, "durationMs")
        if call.duration_ms is None:
            call.missing.append("durationMs")
        call.tool_call_count = _num(p, "toolCallCount")
        if call.tool_call_count is None:
            call.missing.append("toolCallCount")
        state.open_call, state.last_ended = None, call
        if call.output is not None:
            state.outputs[call.output] = call.id
            self.outputs_by_run.setdefault(key[0], {})[call.output] = call.id
            self.entries.append(SearchEntry("model output", call.output, call=call.id,
                                            event_index=position, ts=call.ts_end,
                                            label=call.model or ""))

    def on_tool_start(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta)
        state = self._state(key)
        asker = state.last_ended
        tcid = p.get("toolCallId")
        tcid = tcid if isinstance(tcid, (str, int)) and not isinstance(tcid, bool) else None
        tool = ToolCall(
            id=len(self.tools), tool_call_id=tcid if tcid is None else str(tcid),
            name=_s(p.get("toolName")), args=p.get("args"), result=None, error=None,
            duration_ms=None, requested_by=asker.id if asker is not None else None,
            run_id=key[0], scope=key[1], runtime_stage_id=_s(meta.get("runtimeStageId")),
            start_event_index=position, end_event_index=None, ts_start=_num(meta, "wallClockMs"))
        for name, value in (("toolCallId", tool.tool_call_id), ("toolName", tool.name)):
            if value is None:
                tool.missing.append(name)
        if "args" not in p:
            tool.missing.append("args")
        self.tools.append(tool)
        if asker is not None:
            asker.tool_calls.append(tool.id)
        if tool.tool_call_id is not None:
            state.open_tools[tool.tool_call_id] = tool
            self.tools_by_scope_id[(key, tool.tool_call_id)] = tool
            self.tools_by_run_id[(key[0], tool.tool_call_id)] = tool
        if "args" in p:
            self.entries.append(SearchEntry("tool arguments", _search_text(p.get("args")),
                                            call=tool.requested_by, tool=tool.id,
                                            event_index=position, ts=tool.ts_start,
                                            label=tool.name or ""))

    def on_tool_end(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta)
        state = self._state(key)
        tcid = p.get("toolCallId")
        tcid = str(tcid) if isinstance(tcid, (str, int)) and not isinstance(tcid, bool) else None
        tool = state.open_tools.pop(tcid, None) if tcid is not None else None
        if tool is None and tcid is not None:
            tool = self.tools_by_scope_id.get((key, tcid)) or \
                self.tools_by_run_id.get((key[0], tcid))
            if tool is not None and tool.ended:
                tool = None  # a second end for the same id: kept apart below
        if tool is None and tcid is None and state.open_tools:
            # No id recorded: the most recent open tool call in this scope ended.
            tool = state.open_tools.pop(next(reversed(state.open_tools)))
        if tool is None:
            self.anomalies.append(f"events[{position}]: a tool call ended that never started; "
                                  "kept without its start")
            asker = state.last_ended
            tool = ToolCall(id=len(self.tools), tool_call_id=tcid, name=None, args=None,
                            result=None, error=None, duration_ms=None,
                            requested_by=asker.id if asker else None, run_id=key[0],
                            scope=key[1], runtime_stage_id=_s(meta.get("runtimeStageId")),
                            start_event_index=None, end_event_index=None, ts_start=None,
                            missing=["tool_start", "toolName", "args"])
            self.tools.append(tool)
            if asker is not None:
                asker.tool_calls.append(tool.id)
        tool.ended, tool.end_event_index = True, position
        tool.ts_end = _num(meta, "wallClockMs")
        if "result" in p:
            tool.result = p.get("result")
        else:
            tool.missing.append("result")
        error = p.get("error")
        tool.error = error if isinstance(error, bool) else False
        tool.duration_ms = _num(p, "durationMs")
        if tool.duration_ms is None:
            tool.missing.append("durationMs")
        if "result" in p:
            self.entries.append(SearchEntry("tool result", _search_text(tool.result),
                                            call=tool.requested_by, tool=tool.id,
                                            event_index=position, ts=tool.ts_end,
                                            label=tool.name or ""))

    # ── agent / composition ──
    def on_turn_start(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta)
        prompt = p.get("userPrompt")
        prompt = prompt if isinstance(prompt, str) else (None if prompt is None
                                                         else _to_text(prompt))
        turn = Turn(run_id=key[0], scope=key[1], turn_index=_int(p.get("turnIndex")),
                    user_prompt=prompt, event_index=position)
        self._state(key).turn = turn
        self.turns.append(turn)
        if prompt is not None:
            self.prompts_by_scope[key] = prompt
            self.entries.append(SearchEntry("user prompt", prompt, event_index=position,
                                            ts=_num(meta, "wallClockMs"), label="user"))

    def on_turn_end(self, position: int, p: dict, meta: dict) -> None:
        state = self._state(self._scope_key(meta, frozenset({_FINAL_SEGMENT})))
        turn = state.turn
        if turn is None:
            return
        final = p.get("finalContent")
        turn.final_content = final if isinstance(final, str) else None
        last = state.last_ended
        if last is not None and (turn.final_content is None or last.output == turn.final_content):
            turn.final_call = last.id

    def on_route_decided(self, position: int, p: dict, meta: dict) -> None:
        state = self._state(self._scope_key(meta))
        if state.last_ended is not None:
            state.last_ended.route = p
        rationale = p.get("rationale")
        if isinstance(rationale, str):
            self.entries.append(SearchEntry(
                "route reason", rationale, event_index=position,
                call=state.last_ended.id if state.last_ended else None,
                ts=_num(meta, "wallClockMs"), label=f"route → {_s(p.get('chosen')) or '?'}"))

    def on_composition_route(self, position: int, p: dict, meta: dict) -> None:
        rationale = p.get("rationale")
        if isinstance(rationale, str):
            self.entries.append(SearchEntry(
                "route reason", rationale, event_index=position, ts=_num(meta, "wallClockMs"),
                label=f"{_s(p.get('conditionalId')) or 'conditional'} → "
                      f"{_s(p.get('chosen')) or '?'}"))

    def on_fatal(self, position: int, p: dict, meta: dict) -> None:
        error = p.get("error")
        text = error if isinstance(error, str) else _to_text(error)
        self.fatal.append((self.current_run, text, position))
        self.entries.append(SearchEntry("error", text, event_index=position,
                                        ts=_num(meta, "wallClockMs"), label="error.fatal"))

    # ── finish ──
    def finish(self, source: str, boundary_llm: set[tuple[str, float]], *, lean: bool,
               has_typed_stream: bool, complete: bool | None,
               has_boundary: bool) -> EvidenceIndex:
        run_ids = [r for r in self.run_ids if r is not None] or list(self.run_ids)
        for run_id, text, position in self.fatal:
            for state in self.scopes.values():
                call = state.open_call
                if call is not None and call.run_id == run_id:
                    call.failure = text
        for call in self.calls:
            if not call.ended and "output" not in call.missing:
                call.missing.append("llm_end")
            if has_boundary and call.runtime_stage_id is not None and call.ts_start is not None:
                call.in_boundary_log = (call.runtime_stage_id, call.ts_start) in boundary_llm
        last_run = self.calls[-1].run_id if self.calls else None
        notices = _notices(source, lean=lean, has_typed_stream=has_typed_stream,
                           complete=complete, run_ids=run_ids,
                           typed_gaps=_typed_gaps(self.calls, self.tools, self.summary_only
                                                  + self.no_text),
                           has_boundary=has_boundary, fatal=self.fatal, calls=self.calls)
        return EvidenceIndex(
            source=source, calls=self.calls, tool_calls=self.tools, turns=self.turns,
            search_entries=self.entries, notices=notices, anomalies=self.anomalies,
            run_ids=run_ids, lean=lean,
            boundary_only_run=last_run if len(run_ids) > 1 else None,
            _calls_by_rid=self.calls_by_rid)


_HANDLERS = {
    "context.injected": _Builder.on_injected,
    "context.slot_composed": _Builder.on_slot_composed,
    "context.evaluated": _Builder.on_evaluated,
    "context.evicted": _Builder.on_evicted,
    "context.budget_pressure": _Builder.on_budget_pressure,
    "stream.llm_start": _Builder.on_llm_start,
    "stream.llm_end": _Builder.on_llm_end,
    "stream.tool_start": _Builder.on_tool_start,
    "stream.tool_end": _Builder.on_tool_end,
    "agent.turn_start": _Builder.on_turn_start,
    "agent.turn_end": _Builder.on_turn_end,
    "agent.route_decided": _Builder.on_route_decided,
    "composition.route_decided": _Builder.on_composition_route,
    "error.fatal": _Builder.on_fatal,
}
# Typed events name their type in full; looking that up directly spares
# cutting the prefix off every event's type.
_HANDLERS.update({_PREFIX + short: handler for short, handler in list(_HANDLERS.items())})


def _typed_gaps(calls: list[ModelCall], tools: list[ToolCall], pieces_without_text: int
                ) -> list[str]:
    """What the typed stream itself lacks, counted (for the lean notice)."""
    gaps = []
    if pieces_without_text:
        gaps.append(f"{pieces_without_text} injected piece(s) without their full text")
    outputs = sum(1 for c in calls if c.ended and c.output is None)
    if outputs:
        gaps.append(f"{outputs} model output(s) not recorded")
    args = sum(1 for t in tools if "args" in t.missing)
    results = sum(1 for t in tools if t.ended and "result" in t.missing)
    if args:
        gaps.append(f"{args} tool call(s) without arguments")
    if results:
        gaps.append(f"{results} tool result(s) not recorded")
    return gaps


def _notices(source: str, *, lean: bool, has_typed_stream: bool, complete: bool | None,
             run_ids: list, typed_gaps: list[str], has_boundary: bool,
             fatal: list,
             calls: list[ModelCall]) -> list[str]:
    """What the recording does not carry, in plain words, for every panel."""
    notices: list[str] = []
    if source == SOURCE_NONE:
        if not has_typed_stream:
            notices.append("This recording has no typed event stream and its boundary log has "
                           "no model calls: there is no served context to show.")
        else:
            notices.append("No model call was recorded (no stream.llm_start events): there is "
                           "no served context to show.")
    elif source == SOURCE_BOUNDARY:
        text = ("No typed event stream: model calls are read from the boundary log. Per-slot "
                "budgets and drops (context.slot_composed), skill evaluation "
                "(context.evaluated), evictions and the offered tools' descriptions are not "
                "recorded there; each context piece carries only the recorder's short summary, "
                "not its full text, so messages cannot be traced to the call that wrote them.")
        if lean:
            text += (" This boundary log is lean: it carries no summaries, outputs, tool "
                     "arguments or results either.")
        notices.append(text)
    elif lean:
        text = ("Lean recording: the boundary log carries no payloads (no subflow payloads, "
                "model outputs, tool arguments or results, or injection summaries). "
                "Everything shown here comes from the typed event stream")
        if typed_gaps:
            text += ", which lacks some of it too: " + "; ".join(typed_gaps) + "."
        else:
            text += ", which this file carries in full."
        notices.append(text)
    if source == SOURCE_TYPED and typed_gaps and not lean:
        notices.append("The typed event stream lacks some content: " + "; ".join(typed_gaps)
                       + ".")
    if len(run_ids) > 1:
        notices.append(f"The typed stream holds {len(run_ids)} runs; the boundary log, and so "
                       "the steps, cover only the last. Calls of earlier runs have no step.")
    if complete is False:
        notices.append("The run did not complete (complete: false): the last call may have no "
                       "output.")
    if fatal:
        notices.append(f"The run failed: {len(fatal)} fatal error(s) recorded (error.fatal).")
    if source != SOURCE_NONE and not has_boundary:
        notices.append("No boundary log: model calls cannot be tied to steps.")
    return notices


# ─── Small helpers ─────────────────────────────────────────────────────


def _is_num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# _num and _int run for most fields of most events: they test the type in
# place rather than through _is_num.
def _num(obj: Any, key: str) -> float | None:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    if (isinstance(value, (int, float)) and not isinstance(value, bool)
            and float(value).is_integer()):
        return int(value)
    return None


def _s(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _join(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return "not recorded" if value is None else str(value)


def _describe(value: Any) -> str:
    if value is None:
        return "missing"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string",
            list: "a list"}.get(type(value), type(value).__name__)


def _to_text(value: Any) -> str:
    """A JSON value as text (strings as they are), never raising."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError):
        return repr(value)[:10_000]


def _search_text(value: Any) -> str:
    """Text to search in a JSON value: strings as they are; objects and lists as
    one ``path: value`` line per leaf, so quotes in values stay unescaped."""
    if isinstance(value, str):
        return value
    if not isinstance(value, (dict, list)):
        return _to_text(value)
    lines: list[str] = []
    stack: list[tuple[str, Any]] = [("", value)]
    while stack and len(lines) < 10_000:
        path, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v)
                         for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(node))))
        else:
            lines.append(f"{path}: {node if isinstance(node, str) else _to_text(node)}")
    return "\n".join(lines)


def _short_type(kind: str) -> str:
    """``agentfootprint.context.injected`` → ``context.injected``."""
    return kind[len(_PREFIX):] if kind.startswith(_PREFIX) else kind


def _slot_from_path(path: tuple[str, ...]) -> str | None:
    if path and path[-1].startswith("sf-"):
        name = path[-1][3:]
        return name if name in SLOTS else None
    return None


def _tool_name_of(content: str | None) -> str | None:
    if content is None:
        return None
    name, sep, _ = content.partition(":")
    return name if sep else content


def recording_id(recording: Any) -> str:
    """A stable name for a recording: the envelope's run id, else the typed run
    id(s), else the engine's snapshot run id."""
    run_info = getattr(recording, "run_info", None)
    if isinstance(run_info, dict) and isinstance(run_info.get("runId"), str):
        return run_info["runId"]
    run_ids = [r for r in getattr(recording, "typed_run_ids", None) or [] if isinstance(r, str)]
    if run_ids:
        return " + ".join(run_ids)
    snap = getattr(recording, "snapshot_run_id", None)
    return snap if isinstance(snap, str) else "unknown recording"

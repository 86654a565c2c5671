"""The one forward pass that builds an :class:`EvidenceIndex` from a recording.

One pass over the typed events (plus one over the boundary log for
cross-references and stage positions), O(1) work per event apart from
hashing the strings it carries. Nothing re-walks the log later: the views
only index into what this built.

Provenance is resolved while reading, never guessed later: a tool-result
message names its tool call (``sourceId`` = ``toolCallId``); an assistant
message is tied to the earlier model call in the same scope whose output is
the same text (the recording carries no id for this, so the link says it was
matched by content); a user message is tied to the turn's prompt, or, when a
composition handed one step's output to the next, to that earlier output.
Every searchable text (prompts, outputs, tool arguments and results,
injections and their reasons, route reasons, errors) is stored once with the
calls it was served in.

Context events fire one subflow below the model call's scope
(``sf-system-prompt``, ``sf-messages``, ``sf-tools``, ``sf-injection-engine``)
and an Agent's final stage in ``final``; those segments are stripped to find
their scope. With no typed stream, model and tool calls are read from the
boundary log's ``llm.*`` / ``tool.*`` events instead.

The framework's own verdicts and warnings (the catalogue decides, from each
event's type and payload) are kept as :class:`Finding` records in their own
words, tied to the tool call their payload names or to the call running (or
just ended) in their scope; an ``error.fatal`` to the call it failed; an event
delivered without ``meta`` (the output fallback pair) to the run's final
answer. Each ``integrity.disposition`` becomes an :class:`IntegrityLedger`
(:mod:`.integrity`), and each ``memory.attached`` a :class:`MemoryServed`
tied to the next model call of the scope its read ran under. Events of the
application's own ``consumer-scope`` are not counted as a run of the agent
when choosing the run the steps show.

Malformed events (non-object payloads, wrong field types) never raise: the
fields they lack are reported missing and the event is counted in
``EvidenceIndex.anomalies``.

The records are frozen to every reader; while this pass runs it is their only
owner, and it fills them in through :func:`_fill` as later events complete
them (an ``llm_end`` completes its ``llm_start``'s call).

:class:`EvidenceBuilder` runs the same pass over a typed stream being written
(``lens/follow.py``): events are fed as they arrive, and each snapshot is the
index the complete build gives for what was fed, taken on copies of the
records that changed since the last one, so the pass can go on.
"""

from __future__ import annotations

import math
from dataclasses import fields as dataclass_fields, replace
from typing import Any, Iterable, Mapping

from recorders import boundary_names
from recorders.counting import counted
from recorders.evidence.run_groups import parts_of_run, run_groups
from recorders.evidence.records import (
    BY_FINAL_ANSWER,
    BY_LAST_CALL,
    BY_NOTHING,
    BY_OPEN_CALL,
    BY_OPEN_TOOL,
    BY_TOOL_CALL_ID,
    CONSUMER_SCOPE,
    MESSAGES,
    SLOTS,
    SOURCE_BOUNDARY,
    SOURCE_NONE,
    SOURCE_TYPED,
    SYSTEM_PROMPT,
    TOOLS,
    ContextNote,
    EvidenceIndex,
    Eviction,
    Finding,
    IntegrityLedger,
    MemoryServed,
    ModelCall,
    Piece,
    ScopeKey,
    SearchEntry,
    SlotComposition,
    ToolCall,
    Turn,
)
from recorders.catalogue import (AGENT_ROUTE_DECIDED, AGENT_TURN_END, AGENT_TURN_START,
                                 CONTEXT, COMPOSITION_ROUTE_DECIDED, CONTEXT_BUDGET_PRESSURE,
                                 CONTEXT_EVALUATED, CONTEXT_EVICTED, CONTEXT_INJECTED,
                                 CONTEXT_SLOT_COMPOSED, ERROR_FATAL, EVENT_TYPES,
                                 INTEGRITY_CONTEXT_ERROR, INTEGRITY_DISPOSITION, LLM_END,
                                 LLM_START, MEMORY_ATTACHED,
                                 SKILL_REJECTED, TOOL_END, TOOL_START, short_name)
from recorders.evidence.integrity import DefectKey, defect_key, integrity_ledger
from recorders.evidence.stages import StageEvents, stage_events
from recorders.loading import Recording
from recorders.values import (
    describe,
    int_or_none,
    is_number,
    json_text,
    number_or_none,
    str_or_none,
    unrooted,
)

# Subflows a context event fires in, one level below the model call's scope.
_CONTEXT_SEGMENTS = frozenset({"sf-system-prompt", "sf-messages", "sf-tools",
                               "sf-injection-engine"})
# An Agent's final stage: turn_end / iteration_end fire here.
_FINAL_SEGMENT = "final"

# Boundary event type -> typed short name, for the boundary-only fallback.
_BOUNDARY_AS_TYPED = {
    boundary_names.LLM_START: short_name(LLM_START),
    boundary_names.LLM_END: short_name(LLM_END),
    boundary_names.TOOL_START: short_name(TOOL_START),
    boundary_names.TOOL_END: short_name(TOOL_END),
    boundary_names.CONTEXT_INJECTED: short_name(CONTEXT_INJECTED),
}
# Short names that label notes and search entries.
_SKILL_REJECTED_NOTE = short_name(SKILL_REJECTED)
_BUDGET_PRESSURE_NOTE = short_name(CONTEXT_BUDGET_PRESSURE)
_FATAL_LABEL = short_name(ERROR_FATAL)
_CURSOR_MOVE_LABEL = short_name(CONTEXT_EVALUATED) + " cursorMove"

# What a served piece is searchable as, by slot ("message" otherwise).
_SEARCH_KIND_OF_SLOT = {SYSTEM_PROMPT: "system prompt", TOOLS: "tool offered"}

# Typed event families kept as notes of the scope they fire in.
_NOTED_FAMILIES = ("skill.", "tools.", "permission.", "validation.", "reliability.",
                   "resilience.", "memory.")

# The types some payload makes a verdict or a warning, by full and short name:
# the catalogue decides, event by event (one dict miss for every other event).
_FLAGGABLE = {t.name: t for t in EVENT_TYPES
              if t.kind != CONTEXT or any(rule.kind != CONTEXT for rule in t.rules)}
_FLAGGABLE.update({t.short: t for t in list(_FLAGGABLE.values())})
# A memory read runs in a subflow of its own (``sf-memory-read-<name>``) in
# the scope of the model call it feeds.
_MEMORY_READ_PREFIX = "sf-memory"

# Stands in until the stage positions are read (build_from_events adds them).
_NO_STAGES = StageEvents([], [])

# Lines of a structured value written into its search text at the most.
_SEARCH_LINES = 10_000

# Before the first event no run is current (None is a run id: "not recorded").
_NO_RUN = object()
# Builds a Piece from its fields in order, skipping the keyword parsing of
# ``Piece(...)``: one per injected piece of a long run.
_new_piece = _new_finding = tuple.__new__
# Whole numbers a float64 holds exactly print the same in JSON as in Python.
_EXACT_INT = 2 ** 53


NOT_RECORDED = "not recorded"  # the run id said when the file records none


def run_id(recording: Recording) -> str:
    """The run's id as people should see it (:func:`recorded_run_id`), or
    ``not recorded``."""
    return recorded_run_id(recording) or NOT_RECORDED


def recorded_run_id(recording: Recording) -> str | None:
    """The id of the run the steps show: the envelope's, else the first id of
    the typed stream's last run (:mod:`.run_groups`: a resumed run and a
    composition's inner runners keep the run's id), else the engine
    snapshot's; None when none is recorded."""
    run = recording.run_info or {}
    if isinstance(run.get("runId"), str) and run["runId"]:
        return run["runId"]
    groups = run_groups(recording.typed_events)
    if groups:
        return groups[-1][0]
    return recording.snapshot_run_id or None


def build_evidence_index(recording: Recording) -> EvidenceIndex:
    """Build the index for a loaded :class:`recorders.loading.Recording`."""
    return build_from_events(recording.typed_events, recording.boundary_events,
                             lean=recording.is_lean,
                             has_typed_stream=recording.has_typed_stream,
                             complete=recording.complete)


def build_from_events(typed_events: Iterable[Any], boundary_events: Iterable[Any] = (),
                      *, lean: bool = False, has_typed_stream: bool = True,
                      complete: bool | None = None) -> EvidenceIndex:
    """Build the index from event lists as a file holds them (anything may be malformed)."""
    typed = typed_events if isinstance(typed_events, list) else list(typed_events)
    boundary = boundary_events if isinstance(boundary_events, list) else list(boundary_events)
    builder = _Builder()
    boundary_llm = builder.scan_boundary(boundary)
    use_typed = has_typed_stream and any(
        isinstance(e, dict) and e.get("type") == LLM_START for e in typed)
    if use_typed:
        source = SOURCE_TYPED
    elif boundary_llm:
        source = SOURCE_BOUNDARY
    else:
        source = SOURCE_NONE  # prompts and errors may still be in the typed stream
    if source == SOURCE_BOUNDARY:
        # Positions here are the boundary log's: a finding must cite a typed index.
        builder.keep_findings = False
        for position, event in enumerate(boundary):
            builder.feed_boundary_as_typed(position, event)
    else:
        for position, event in enumerate(typed):
            builder.feed_typed(position, event)
    index = builder.finish(source, boundary_llm, lean=lean, has_typed_stream=has_typed_stream,
                           complete=complete, has_boundary=bool(boundary))
    # The typed events the steps can cite are those of the run they show (each
    # part of it, when it paused and was resumed).
    shown_ids = parts_of_run(typed, index.shown_run) if index.shown_run is not None else ()
    return replace(index, shown_run_ids=shown_ids,
                   stages=stage_events(boundary, typed, index.shown_run,
                                       several_runs=index.shown_run is not None,
                                       shown_run_ids=shown_ids))


def _fill(record: Any, **fields: Any) -> None:
    """Complete fields of a record this pass is still building."""
    for name, value in fields.items():
        object.__setattr__(record, name, value)


class _PendingSlot:
    """A slot being composed for the next call in a scope (sealed at llm_start)."""

    __slots__ = ("slot", "pieces", "composed", "closed")

    def __init__(self, slot: str) -> None:
        self.slot = slot
        self.pieces: list[Piece] = []
        self.composed: dict[str, Any] = {}  # SlotComposition fields from slot_composed
        self.closed = False  # a slot_composed event (or the call) ended it

    def seal(self) -> SlotComposition:
        return SlotComposition(slot=self.slot, pieces=tuple(self.pieces), **self.composed)


class _ScopeState:
    """Per scope: what is being composed for the next call, and the last calls."""

    __slots__ = ("pending", "evaluated", "evaluated_at", "evictions", "notes",
                 "last_started", "last_ended", "open_call", "count", "turn",
                 "outputs", "open_tools")

    def __init__(self) -> None:
        self.pending: dict[str, _PendingSlot] = {}
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
        self.open_tools: dict[str, ToolCall] = {}  # toolCallId -> open tool call


def _run_id_of(meta: dict) -> Any:
    """``meta.runId`` as a hashable key: a string or number as recorded, else its text."""
    run_id = meta.get("runId")
    if run_id is not None and (not isinstance(run_id, (str, int, float))
                               or isinstance(run_id, bool)):
        return json_text(run_id)
    return run_id


def _tool_call_id(value: Any) -> str | None:
    """A ``toolCallId`` as text (a string or a whole number as recorded), else None."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


class _Builder:
    """The one forward pass. Each handler does O(1) work per event."""

    # Handlers complete records through this (a subclass that publishes
    # snapshots while folding notes what changed).
    _fill = staticmethod(_fill)

    def __init__(self) -> None:
        self.calls: list[ModelCall] = []
        self.tools: list[ToolCall] = []
        self.turns: list[Turn] = []
        self.entries: list[SearchEntry] = []
        self.anomalies: list[str] = []
        self.scopes: dict[ScopeKey, _ScopeState] = {}
        self.run_ids: dict[Any, None] = {}
        self.calls_by_stage: dict[str, list[int]] = {}
        self.asked: dict[int, list[int]] = {}  # model call id -> the tool calls it asked for
        self.tools_by_run_id: dict[tuple[Any, str], ToolCall] = {}
        self.tools_by_scope_id: dict[tuple[ScopeKey, str], ToolCall] = {}
        # The latest tool call started with each id, whatever its run: a run
        # paused inside a tool (a check-in) is resumed as another run, which
        # ends the call the paused run started.
        self.tools_by_call_id: dict[str, ToolCall] = {}
        self.outputs_by_run: dict[Any, dict[str, int]] = {}
        self.prompts_by_scope: dict[ScopeKey, str] = {}
        self.pieces_by_hash: dict[tuple[ScopeKey, str], Piece] = {}
        self.served: dict[tuple, int] = {}  # de-duplicated context entries -> entry position
        self.served_in: dict[int, list[int]] = {}  # entry position -> calls served it
        self.fatal: list[tuple[Any, str, int]] = []
        self.findings: list[Finding] = []
        # Positions in ``findings`` placed only once the pass is over (error.fatal, no meta).
        self.late_findings: list[int] = []
        self.ledgers: list[IntegrityLedger] = []
        # integrity.context_error events by run, then by the check that filed them.
        self.defects: dict[Any, dict[DefectKey, int]] = {}
        self.memory: list[MemoryServed] = []
        self.memory_pending: dict[ScopeKey, list[MemoryServed]] = {}
        self.keep_findings = True
        self.summary_only = 0
        self.no_text = 0
        self.current_run: Any = _NO_RUN

    # ── boundary pass (cross-references and stage positions) ──
    def scan_boundary(self, boundary: list) -> set[tuple[str, float]]:
        seen: set[tuple[str, float]] = set()
        for event in boundary:
            if not isinstance(event, dict):
                continue
            kind = event.get("type")
            if kind == boundary_names.LLM_START:
                rid, ts = event.get("runtimeStageId"), event.get("ts")
                if isinstance(rid, str) and is_number(ts):
                    seen.add((rid, ts))
            elif kind == boundary_names.DECISION_BRANCH:
                rationale = event.get("rationale")
                if isinstance(rationale, str) and rationale:
                    self.entries.append(SearchEntry(
                        "route reason", rationale, event_index=None,
                        ts=number_or_none(event.get("ts")),
                        label=f"decision {str_or_none(event.get('decider')) or ''} → "
                              f"{str_or_none(event.get('chosen')) or ''}".strip()))
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
        if isinstance(path, list):
            path = list(unrooted(path))
        meta = {"runtimeStageId": event.get("runtimeStageId"), "subflowPath": path,
                "wallClockMs": event.get("ts")}
        self._dispatch(position, short, event, meta)

    def _dispatch(self, position: int, kind: str, payload: Any, meta: dict) -> None:
        """Hand an event to its handler; ``kind`` is its type with or without
        the ``agentfootprint.`` prefix (the handler table knows both)."""
        handler = _HANDLERS.get(kind)
        run_id = meta.get("runId")
        if run_id is not None and run_id.__class__ is not str:
            run_id = _run_id_of(meta)
        # Runs change rarely: an equal id is already counted.
        if run_id != self.current_run and run_id not in self.run_ids:
            self.run_ids[run_id] = None
        self.current_run = run_id
        if handler is None:
            short = short_name(kind)
            if short.startswith(_NOTED_FAMILIES):
                self._note(position, short, payload, meta)
        else:
            if not isinstance(payload, dict):
                self.anomalies.append(f"events[{position}] ({short_name(kind)}): payload is "
                                      f"{'missing' if payload is None else describe(payload)}, "
                                      "not an object")
                payload = {}
            handler(self, position, payload, meta)
        flaggable = _FLAGGABLE.get(kind)
        if flaggable is not None and self.keep_findings:
            self._finding(position, flaggable, payload, meta)

    # helpers
    def _path(self, meta: dict) -> tuple[str, ...]:
        path = meta.get("subflowPath")
        if isinstance(path, list):
            return tuple(map(str, path))
        return ()

    def _scope_key(self, meta: dict, strip: frozenset[str] | None = None) -> ScopeKey:
        path = meta.get("subflowPath")
        if path.__class__ is list or isinstance(path, list):
            if path:
                path = tuple(map(str, path))
                if strip and path[-1] in strip:
                    path = path[:-1]
            else:
                path = ()
        else:
            path = ()
        return (self.current_run, path)

    def _state(self, key: ScopeKey) -> _ScopeState:
        state = self.scopes.get(key)
        if state is None:
            state = self.scopes[key] = _ScopeState()
        return state

    def _ask(self, asker: ModelCall | None, tool: ToolCall) -> None:
        """Record that ``asker`` asked for ``tool`` (the tool's ``requested_by``)."""
        if asker is not None:
            self.asked.setdefault(asker.id, []).append(tool.id)

    def _note(self, position: int, short: str, payload: Any, meta: dict) -> None:
        note = ContextNote(short, payload, position, number_or_none(meta.get("wallClockMs")))
        key = self._scope_key(meta, _CONTEXT_SEGMENTS)
        if key[1] and key[1][-1].startswith(_MEMORY_READ_PREFIX):
            # A memory read's own subflow holds no model call: its notes are
            # the call's it feeds, in the scope around it.
            key = (key[0], key[1][:-1])
        state = self._state(key)
        tool = None
        if isinstance(payload, dict) and isinstance(payload.get("toolCallId"), str):
            tool = state.open_tools.get(payload["toolCallId"]) or \
                self.tools_by_run_id.get((key[0], payload["toolCallId"]))
        if tool is None and state.open_tools:
            tool = next(reversed(state.open_tools.values()))
        if tool is not None:
            self._fill(tool, notes=tool.notes + (note,))
        else:
            state.notes.append(note)
        if short == _SKILL_REJECTED_NOTE and isinstance(payload, dict):
            text = (f"skill {str_or_none(payload.get('requestedId'))!s} rejected from "
                    f"{str_or_none(payload.get('currentSkillId'))!s}; allowed: "
                    f"{_join(payload.get('allowed'))}")
            self.entries.append(SearchEntry("route reason", text, event_index=position,
                                            ts=note.ts, tool=tool.id if tool else None,
                                            call=tool.requested_by if tool else None,
                                            label=_SKILL_REJECTED_NOTE))

    # ── the framework's verdicts and warnings ──
    def _finding(self, position: int, entry: Any, payload: Any, meta: dict) -> None:
        """Keep an event the catalogue calls a verdict or a warning, in its own
        words, tied to the call it belongs to (after its own handler ran, so a
        ``tool_end`` finds its finished tool call)."""
        kind = entry.kind_of(payload)
        if kind == CONTEXT:
            return
        fields = payload if isinstance(payload, dict) else {}
        key = self._scope_key(meta, _CONTEXT_SEGMENTS)
        if meta:
            call, tool, placed_by = self._place(fields, key)
        else:
            call, tool, placed_by = None, None, BY_FINAL_ANSWER
        if not meta or entry.name == ERROR_FATAL:
            self.late_findings.append(len(self.findings))
        self.findings.append(_new_finding(Finding, (
            entry.name, kind, payload, position, number_or_none(meta.get("wallClockMs")),
            key[0] if meta else None, key[1], bool(meta), call, tool, placed_by)))

    def _place(self, fields: dict, key: ScopeKey) -> tuple[int | None, int | None, str]:
        """(model call, tool call, how) an event at scope ``key`` belongs to:
        the tool call its payload names, else what was running or had just
        ended in its scope, the way tool calls find their asker."""
        state = self.scopes.get(key)
        tcid = _tool_call_id(fields.get("toolCallId"))
        if tcid is not None:
            tool = (state.open_tools.get(tcid) if state is not None else None) or \
                self.tools_by_scope_id.get((key, tcid)) or self.tools_by_run_id.get((key[0], tcid))
            if tool is not None:
                return tool.requested_by, tool.id, BY_TOOL_CALL_ID
        if state is None:
            return None, None, BY_NOTHING
        if state.open_tools:
            tool = next(reversed(state.open_tools.values()))
            return tool.requested_by, tool.id, BY_OPEN_TOOL
        if state.open_call is not None:
            return state.open_call.id, None, BY_OPEN_CALL
        if state.last_ended is not None:
            return state.last_ended.id, None, BY_LAST_CALL
        return None, None, BY_NOTHING

    def on_disposition(self, position: int, p: dict, meta: dict) -> None:
        self.ledgers.append(integrity_ledger(p, position, self.current_run,
                                             self.defects.get(self.current_run)))

    def on_context_error(self, position: int, p: dict, meta: dict) -> None:
        # Counted for the run's ledger, which comes at the run's end; the
        # event itself is kept as a finding like every verdict.
        key = defect_key(p)
        if key is not None:
            filed = self.defects.setdefault(self.current_run, {})
            filed[key] = filed.get(key, 0) + 1

    def on_memory_attached(self, position: int, p: dict, meta: dict) -> None:
        self._note(position, short_name(MEMORY_ATTACHED), p, meta)
        path = self._path(meta)
        if path and path[-1].startswith(_MEMORY_READ_PREFIX):
            path = path[:-1]
        key = (self.current_run, path)
        served = MemoryServed(
            memory_id=str_or_none(p.get("memoryId")), summary=str_or_none(p.get("contentSummary")),
            score=number_or_none(p.get("score")), rank=int_or_none(p.get("rank")),
            source=str_or_none(p.get("source")), event_index=position, run_id=key[0],
            scope=path)
        self.memory.append(served)
        self.memory_pending.setdefault(key, []).append(served)

    # ── context ──
    def on_injected(self, position: int, p: dict, meta: dict) -> None:
        # The most frequent event of a run: fields are checked inline and the
        # piece is built once, its provenance already resolved.
        key = self._scope_key(meta, _CONTEXT_SEGMENTS)
        state = self.scopes.get(key) or self._state(key)
        missing: list[str] = []
        slot = p.get("slot")
        if not isinstance(slot, str):
            missing.append("slot")
            slot = _slot_from_path(self._path(meta)) or "unknown"
        content = p.get("rawContent")
        summary_only = False
        if not isinstance(content, str):
            if content is not None:
                content = json_text(content)
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
        source = p.get("source")
        if not isinstance(source, str):
            source = None
            missing.append("source")
        reason = p.get("reason")
        if not isinstance(reason, str):
            reason = None
            missing.append("reason")
        source_id = p.get("sourceId")
        if not isinstance(source_id, str):
            source_id = None
        role = p.get("asRole")
        if not isinstance(role, str):
            role = None
        content_hash = p.get("contentHash")
        if not isinstance(content_hash, str):
            content_hash = None
        recency = p.get("asRecency")
        if not isinstance(recency, str):
            recency = None
        tool_call = written_by = matches_output_of = None
        from_user_prompt = False
        if slot == MESSAGES:
            tool_call, written_by, matches_output_of, from_user_prompt = self._provenance(
                key, state, source, source_id, role, content, summary_only)
        piece = _new_piece(Piece, (
            slot, source, source_id, role, reason, content, summary_only, content_hash,
            int_or_none(p.get("position")), recency, position,
            number_or_none(meta.get("wallClockMs")), tuple(missing), tool_call, written_by,
            matches_output_of, from_user_prompt))
        pending = state.pending.get(slot)
        if pending is None or pending.closed:
            pending = state.pending[slot] = _PendingSlot(slot)
        pending.pieces.append(piece)
        if content_hash is not None:
            self.pieces_by_hash[(key, content_hash)] = piece

    def _provenance(self, key: ScopeKey, state: _ScopeState, source: str | None,
                    source_id: str | None, role: str | None, content: str | None,
                    summary_only: bool) -> tuple[int | None, int | None, int | None, bool]:
        """A message piece's links (``tool_call``, ``written_by``,
        ``matches_output_of``, ``from_user_prompt``): the tool call whose result
        it is, the call that wrote it, or the prompt or earlier output it repeats."""
        if (source == "tool-result" or role == "tool") and source_id is not None:
            tool = self.tools_by_scope_id.get((key, source_id))
            if tool is None:
                tool = self.tools_by_run_id.get((key[0], source_id))
            return (None if tool is None else tool.id), None, None, False
        if content is None or summary_only:
            return None, None, None, False
        if role == "assistant" or source == "assistant":
            return None, state.outputs.get(content), None, False
        if role == "user" or source == "user":
            prompt = self.prompts_by_scope.get(key)
            if prompt is not None and prompt == content:
                return None, None, None, True
            return None, None, self.outputs_by_run.get(key[0], {}).get(content), False
        return None, None, None, False

    def on_slot_composed(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta, _CONTEXT_SEGMENTS)
        state = self._state(key)
        slot = str_or_none(p.get("slot")) or _slot_from_path(self._path(meta)) or "unknown"
        pending = state.pending.get(slot)
        if pending is None or pending.closed:
            pending = state.pending[slot] = _PendingSlot(slot)
        missing = []
        budget = p.get("budget")
        budget = budget if isinstance(budget, dict) else None
        if budget is None:
            missing.append("budget")
        breakdown = p.get("sourceBreakdown")
        dropped_count = int_or_none(p.get("droppedCount"))
        if dropped_count is None:
            missing.append("droppedCount")
        dropped = p.get("droppedSummaries")
        dropped = tuple(dropped) if isinstance(dropped, list) else None
        if dropped is None:
            missing.append("droppedSummaries")
        pending.composed = dict(
            budget=budget,
            source_breakdown=breakdown if isinstance(breakdown, dict) else None,
            dropped_count=dropped_count, dropped_summaries=dropped,
            ordering=str_or_none(p.get("orderingStrategy")),
            iteration=int_or_none(p.get("iteration")),
            composed_event_index=position, missing=tuple(missing))
        pending.closed = True

    def on_evaluated(self, position: int, p: dict, meta: dict) -> None:
        state = self._state(self._scope_key(meta, _CONTEXT_SEGMENTS))
        state.evaluated, state.evaluated_at = p, position
        ts = number_or_none(meta.get("wallClockMs"))
        move = p.get("cursorMove")
        if isinstance(move, dict):
            text = (f"skill cursor → {str_or_none(move.get('to'))!s} by "
                    f"{str_or_none(move.get('by'))!s}; reachable: {_join(move.get('reachable'))}")
            self.entries.append(SearchEntry("route reason", text, event_index=position, ts=ts,
                                            label=_CURSOR_MOVE_LABEL))
        routing = p.get("routing")
        if isinstance(routing, list):
            for row in routing:
                if isinstance(row, dict) and isinstance(row.get("label"), str):
                    self.entries.append(SearchEntry(
                        "route reason", row["label"], event_index=position, ts=ts,
                        label=f"routing {str_or_none(row.get('from')) or ''} → "
                              f"{str_or_none(row.get('injectionId')) or ''}".strip()))

    def on_evicted(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta, _CONTEXT_SEGMENTS)
        state = self._state(key)
        content_hash = str_or_none(p.get("contentHash"))
        earlier = self.pieces_by_hash.get((key, content_hash)) if content_hash else None
        state.evictions.append(Eviction(
            slot=str_or_none(p.get("slot")), content_hash=content_hash,
            reason=str_or_none(p.get("reason")),
            survival_ms=number_or_none(p.get("survivalMs")), event_index=position,
            pieces=(earlier,) if earlier is not None else ()))

    def on_budget_pressure(self, position: int, p: dict, meta: dict) -> None:
        state = self._state(self._scope_key(meta, _CONTEXT_SEGMENTS))
        state.notes.append(ContextNote(_BUDGET_PRESSURE_NOTE, p, position,
                                       number_or_none(meta.get("wallClockMs"))))

    # ── model calls ──
    def on_llm_start(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta)
        state = self._state(key)
        rid = str_or_none(meta.get("runtimeStageId"))
        previous = state.last_started
        comp_path = meta.get("compositionPath")
        tools_offered = p.get("tools")
        # The served context: what was composed since the previous call; slots
        # not recomposed carry over from it.
        slots = {slot: pending.seal() for slot, pending in state.pending.items()}
        if previous is not None:
            for slot, composition in previous.slots.items():
                if slot not in slots:
                    slots[slot] = _carried(composition, previous.id)
        call = ModelCall(
            id=len(self.calls), run_id=key[0], scope=key[1], runtime_stage_id=rid,
            composition_path=tuple(map(str, comp_path)) if isinstance(comp_path, list) else None,
            ordinal_in_scope=state.count + 1,
            previous_in_scope=previous.id if previous is not None else None,
            start_event_index=position, ts_start=number_or_none(meta.get("wallClockMs")),
            iteration=int_or_none(p.get("iteration")), model=str_or_none(p.get("model")),
            provider=str_or_none(p.get("provider")),
            system_prompt_chars=number_or_none(p.get("systemPromptChars")),
            messages_count=number_or_none(p.get("messagesCount")),
            tools_count=number_or_none(p.get("toolsCount")),
            tools_offered=tuple(tools_offered) if isinstance(tools_offered, list) else None,
            slots=slots, evaluated=state.evaluated, evaluated_event_index=state.evaluated_at,
            evictions=tuple(state.evictions), notes=tuple(state.notes),
            user_prompt=state.turn.user_prompt if state.turn is not None else None,
            turn_index=state.turn.turn_index if state.turn is not None else None,
        )
        if rid is None or call.model is None or call.provider is None or call.ts_start is None:
            self._fill(call, missing=tuple(name for name, value in (
                ("runtimeStageId", rid), ("model", call.model), ("provider", call.provider),
                ("wallClockMs", call.ts_start)) if value is None))
        if state.open_call is not None:
            self.anomalies.append(f"events[{position}]: a model call started in a scope whose "
                                  f"previous call (events[{state.open_call.start_event_index}]) "
                                  "had not ended")
        state.pending, state.evaluated, state.evaluated_at = {}, None, None
        state.evictions, state.notes = [], []
        state.last_started = state.open_call = call
        state.count += 1
        self.calls.append(call)
        if self.memory_pending:
            for served in self.memory_pending.pop(key, ()):
                self._fill(served, served_to=call.id)
        if rid is not None:
            self.calls_by_stage.setdefault(rid, []).append(call.id)
        for composition in slots.values():
            if composition.origin != "fresh":
                continue
            for piece in composition.pieces:
                if piece.content is not None:
                    self._served_entry(piece, key, call.id)

    def _served_entry(self, piece: Piece, key: ScopeKey, call_id: int) -> int:
        """Count ``piece`` (which has text) as served to ``call_id``: one search
        entry per distinct piece of a scope, listing every call it was served in.
        Returns that entry's position."""
        piece_key = piece.key
        dedupe = (key, piece.slot, piece_key, piece.content)
        at = self.served.get(dedupe)
        if at is None:
            label = piece.role or piece.source or ""
            if piece.source_id:
                label = f"{label} {piece.source_id}".strip()
            at = self.served[dedupe] = len(self.entries)
            self.served_in[at] = [call_id]
            self.entries.append(SearchEntry(
                _SEARCH_KIND_OF_SLOT.get(piece.slot, "message"), piece.content, call_id,
                piece.tool_call, piece.event_index, piece.ts, (), label))
        else:
            self.served_in[at].append(call_id)
        if piece.reason and piece.slot != MESSAGES:
            rkey = (key, piece.slot, piece_key, "reason", piece.reason)
            if rkey not in self.served:
                self.served[rkey] = len(self.entries)
                self.entries.append(SearchEntry("injection reason", piece.reason, call=call_id,
                                                event_index=piece.event_index, ts=piece.ts,
                                                label=piece.source or ""))
        return at

    def on_llm_end(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta)
        state = self._state(key)
        call = state.open_call
        rid = str_or_none(meta.get("runtimeStageId"))
        if call is None or (rid is not None and call.runtime_stage_id not in (None, rid)):
            self.anomalies.append(f"events[{position}]: a model call ended that never started "
                                  "in this scope; ignored")
            return
        missing = list(call.missing)
        content = p.get("content")
        output = content if isinstance(content, str) else (
            None if content is None else json_text(content))
        if content is None:
            missing.append("content")
        usage = p.get("usage")
        usage = usage if isinstance(usage, dict) else None
        stop_reason = str_or_none(p.get("stopReason"))
        duration_ms = number_or_none(p.get("durationMs"))
        tool_call_count = number_or_none(p.get("toolCallCount"))
        for name, value in (("usage", usage), ("stopReason", stop_reason),
                            ("durationMs", duration_ms), ("toolCallCount", tool_call_count)):
            if value is None:
                missing.append(name)
        self._fill(call, ended=True, end_event_index=position,
              ts_end=number_or_none(meta.get("wallClockMs")), output=output, usage=usage,
              stop_reason=stop_reason, duration_ms=duration_ms,
              tool_call_count=tool_call_count, missing=tuple(missing))
        state.open_call, state.last_ended = None, call
        if output is not None:
            state.outputs[output] = call.id
            self.outputs_by_run.setdefault(key[0], {})[output] = call.id
            self.entries.append(SearchEntry("model output", output, call=call.id,
                                            event_index=position, ts=call.ts_end,
                                            label=call.model or ""))

    def on_tool_start(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta)
        state = self._state(key)
        asker = state.last_ended
        tcid = _tool_call_id(p.get("toolCallId"))
        name = str_or_none(p.get("toolName"))
        missing = []
        if tcid is None:
            missing.append("toolCallId")
        if name is None:
            missing.append("toolName")
        if "args" not in p:
            missing.append("args")
        tool = ToolCall(
            id=len(self.tools), tool_call_id=tcid, name=name, args=p.get("args"), result=None,
            error=None, duration_ms=None, requested_by=asker.id if asker is not None else None,
            run_id=key[0], scope=key[1],
            runtime_stage_id=str_or_none(meta.get("runtimeStageId")),
            start_event_index=position, end_event_index=None,
            ts_start=number_or_none(meta.get("wallClockMs")), missing=tuple(missing))
        self.tools.append(tool)
        self._ask(asker, tool)
        if tcid is not None:
            state.open_tools[tcid] = tool
            self.tools_by_scope_id[(key, tcid)] = tool
            self.tools_by_run_id[(key[0], tcid)] = tool
            self.tools_by_call_id[tcid] = tool
        if "args" in p:
            self.entries.append(SearchEntry("tool arguments", search_text(p.get("args")),
                                            call=tool.requested_by, tool=tool.id,
                                            event_index=position, ts=tool.ts_start,
                                            label=name or ""))

    def on_tool_end(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta)
        state = self._state(key)
        tcid = _tool_call_id(p.get("toolCallId"))
        tool = state.open_tools.pop(tcid, None) if tcid is not None else None
        if tool is None and tcid is not None:
            tool = self.tools_by_scope_id.get((key, tcid)) or \
                self.tools_by_run_id.get((key[0], tcid))
            if tool is not None and tool.ended:
                tool = None  # a second end for the same id: kept apart below
        if tool is None and tcid is not None:
            paused = self.tools_by_call_id.get(tcid)
            if paused is not None and not paused.ended and paused.run_id != key[0]:
                # Started before a pause, ended by the resumed run: one call.
                tool = paused
                self._state((paused.run_id, paused.scope)).open_tools.pop(tcid, None)
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
                            scope=key[1],
                            runtime_stage_id=str_or_none(meta.get("runtimeStageId")),
                            start_event_index=None, end_event_index=None, ts_start=None,
                            missing=("tool_start", "toolName", "args"))
            self.tools.append(tool)
            self._ask(asker, tool)
        missing = list(tool.missing)
        if "result" not in p:
            missing.append("result")
        error = p.get("error")
        duration_ms = number_or_none(p.get("durationMs"))
        if duration_ms is None:
            missing.append("durationMs")
        self._fill(tool, ended=True, end_event_index=position,
              ts_end=number_or_none(meta.get("wallClockMs")),
              result=p.get("result") if "result" in p else tool.result,
              error=error if isinstance(error, bool) else False, duration_ms=duration_ms,
              missing=tuple(missing))
        if "result" in p:
            self.entries.append(SearchEntry("tool result", search_text(tool.result),
                                            call=tool.requested_by, tool=tool.id,
                                            event_index=position, ts=tool.ts_end,
                                            label=tool.name or ""))

    # ── agent / composition ──
    def on_turn_start(self, position: int, p: dict, meta: dict) -> None:
        key = self._scope_key(meta)
        prompt = p.get("userPrompt")
        prompt = prompt if isinstance(prompt, str) else (None if prompt is None
                                                         else json_text(prompt))
        turn = Turn(run_id=key[0], scope=key[1], turn_index=int_or_none(p.get("turnIndex")),
                    user_prompt=prompt, event_index=position)
        self._state(key).turn = turn
        self.turns.append(turn)
        if prompt is not None:
            self.prompts_by_scope[key] = prompt
            self.entries.append(SearchEntry("user prompt", prompt, event_index=position,
                                            ts=number_or_none(meta.get("wallClockMs")),
                                            label="user"))

    def on_turn_end(self, position: int, p: dict, meta: dict) -> None:
        state = self._state(self._scope_key(meta, frozenset({_FINAL_SEGMENT})))
        turn = state.turn
        if turn is None:
            return
        final = str_or_none(p.get("finalContent"))
        last = state.last_ended
        self._fill(turn, final_content=final)
        if last is not None and (final is None or last.output == final):
            self._fill(turn, final_call=last.id)

    def on_route_decided(self, position: int, p: dict, meta: dict) -> None:
        state = self._state(self._scope_key(meta))
        if state.last_ended is not None:
            self._fill(state.last_ended, route=p)
        rationale = p.get("rationale")
        if isinstance(rationale, str):
            self.entries.append(SearchEntry(
                "route reason", rationale, event_index=position,
                call=state.last_ended.id if state.last_ended else None,
                ts=number_or_none(meta.get("wallClockMs")),
                label=f"route → {str_or_none(p.get('chosen')) or '?'}"))

    def on_composition_route(self, position: int, p: dict, meta: dict) -> None:
        rationale = p.get("rationale")
        if isinstance(rationale, str):
            self.entries.append(SearchEntry(
                "route reason", rationale, event_index=position,
                ts=number_or_none(meta.get("wallClockMs")),
                label=f"{str_or_none(p.get('conditionalId')) or 'conditional'} → "
                      f"{str_or_none(p.get('chosen')) or '?'}"))

    def on_fatal(self, position: int, p: dict, meta: dict) -> None:
        text = json_text(p.get("error"))
        self.fatal.append((self.current_run, text, position))
        self.entries.append(SearchEntry("error", text, event_index=position,
                                        ts=number_or_none(meta.get("wallClockMs")),
                                        label=_FATAL_LABEL))

    def _place_late_findings(self, findings: list[Finding], calls: list[ModelCall],
                             fatal_calls: dict[int, int], shown_run: Any) -> None:
        """Findings placed only once the pass is over, replaced in ``findings``:
        an ``error.fatal`` on the call it failed, and an event without meta on
        the run's final answer (among ``calls``)."""
        final = None
        for at in self.late_findings:
            finding = findings[at]
            if finding.type == ERROR_FATAL and finding.event_index in fatal_calls:
                findings[at] = finding._replace(call=fatal_calls[finding.event_index],
                                                tool=None, placed_by=BY_OPEN_CALL)
            elif not finding.has_meta:
                if final is None:
                    final = _final_answer_call(calls, shown_run) or False
                findings[at] = (finding._replace(call=final.id) if final
                                else finding._replace(placed_by=BY_NOTHING))

    # ── finish ──
    def finish(self, source: str, boundary_llm: set[tuple[str, float]], *, lean: bool,
               has_typed_stream: bool, complete: bool | None,
               has_boundary: bool) -> EvidenceIndex:
        run_ids = tuple(r for r in self.run_ids if r is not None) or tuple(self.run_ids)
        fatal_calls: dict[int, int] = {}  # error.fatal position -> the call it failed
        for run_id, text, position in self.fatal:
            for state in self.scopes.values():
                call = state.open_call
                if call is not None and call.run_id == run_id:
                    _fill(call, failure=text, failure_event_index=position)
                    fatal_calls[position] = call.id
        tools_by_stage: dict[str, list[int]] = {}
        for tool in self.tools:
            if tool.runtime_stage_id is not None:
                tools_by_stage.setdefault(tool.runtime_stage_id, []).append(tool.id)
        for call in self.calls:
            asked = self.asked.get(call.id)
            if asked:
                _fill(call, tool_calls=tuple(asked))
            if not call.ended:
                _fill(call, missing=call.missing + ("llm_end",))
            if has_boundary and call.runtime_stage_id is not None and call.ts_start is not None:
                _fill(call, in_boundary_log=(call.runtime_stage_id, call.ts_start)
                      in boundary_llm)
        for at, calls in self.served_in.items():
            _fill(self.entries[at], served_in=tuple(calls))
        # The application's own events (consumer-scope) are not a run of the agent.
        agent_runs = tuple(r for r in run_ids if r != CONSUMER_SCOPE) or run_ids
        several_runs = len(agent_runs) > 1
        shown_run = agent_runs[-1] if several_runs else None
        self._place_late_findings(self.findings, self.calls, fatal_calls, shown_run)
        notices = _notices(source, lean=lean, has_typed_stream=has_typed_stream,
                           complete=complete, run_ids=agent_runs,
                           typed_gaps=_typed_gaps(self.calls, self.tools, self.summary_only
                                                  + self.no_text),
                           has_boundary=has_boundary, fatal=self.fatal)
        return EvidenceIndex(
            source=source, calls=tuple(self.calls), tool_calls=tuple(self.tools),
            turns=tuple(self.turns), search_entries=tuple(self.entries),
            notices=tuple(notices), anomalies=tuple(self.anomalies), run_ids=run_ids,
            lean=lean, stages=_NO_STAGES, shown_run=shown_run,
            findings=tuple(self.findings), integrity=tuple(self.ledgers),
            memory=tuple(self.memory),
            calls_by_stage={rid: tuple(ids) for rid, ids in self.calls_by_stage.items()},
            tools_by_stage={rid: tuple(ids) for rid, ids in tools_by_stage.items()})


def _final_answer_call(calls: list[ModelCall], run: Any) -> ModelCall | None:
    """The call that gave ``run``'s final answer (as :meth:`EvidenceIndex.final_call`
    finds it, for the run the steps show), else that run's last call."""
    last = None
    for call in reversed(calls):
        if run is not None and call.run_id != run:
            continue
        if last is None:
            last = call
        if call.is_final_answer:
            return call
    return last


def _carried(composition: SlotComposition, previous_id: int) -> SlotComposition:
    """The previous call's composition of a slot that was not recomposed."""
    if composition.origin == "carried":
        return composition  # already says which call composed it
    return SlotComposition(
        slot=composition.slot, pieces=composition.pieces, budget=composition.budget,
        source_breakdown=composition.source_breakdown,
        dropped_count=composition.dropped_count,
        dropped_summaries=composition.dropped_summaries, ordering=composition.ordering,
        iteration=composition.iteration, composed_event_index=composition.composed_event_index,
        origin="carried", carried_from=previous_id, missing=composition.missing)


_HANDLERS = {
    CONTEXT_INJECTED: _Builder.on_injected,
    CONTEXT_SLOT_COMPOSED: _Builder.on_slot_composed,
    CONTEXT_EVALUATED: _Builder.on_evaluated,
    CONTEXT_EVICTED: _Builder.on_evicted,
    CONTEXT_BUDGET_PRESSURE: _Builder.on_budget_pressure,
    LLM_START: _Builder.on_llm_start,
    LLM_END: _Builder.on_llm_end,
    TOOL_START: _Builder.on_tool_start,
    TOOL_END: _Builder.on_tool_end,
    AGENT_TURN_START: _Builder.on_turn_start,
    AGENT_TURN_END: _Builder.on_turn_end,
    AGENT_ROUTE_DECIDED: _Builder.on_route_decided,
    COMPOSITION_ROUTE_DECIDED: _Builder.on_composition_route,
    ERROR_FATAL: _Builder.on_fatal,
    INTEGRITY_DISPOSITION: _Builder.on_disposition,
    INTEGRITY_CONTEXT_ERROR: _Builder.on_context_error,
    MEMORY_ATTACHED: _Builder.on_memory_attached,
}
# Typed events name their type in full and are looked up so, which spares
# cutting the prefix off every event's type; the boundary-only fallback
# hands short names (_BOUNDARY_AS_TYPED), and other callers may too.
_HANDLERS.update({short_name(name): handler for name, handler in list(_HANDLERS.items())})


class EvidenceBuilder:
    """An evidence index that grows with a typed stream being written.

    :meth:`feed` folds events one at a time, exactly as
    :func:`build_from_events` does (positions continue from the last feed);
    :meth:`snapshot` gives the :class:`EvidenceIndex` of everything fed so
    far, equal to the complete build over the same events (a typed stream
    alone: an event stream has no boundary log). Work per feed is
    proportional to the events fed; a snapshot copies only the records that
    changed since the last one (plus the open calls it marks as not ended),
    so every index it gives stays as it was when taken, shared or not.
    """

    def __init__(self, *, lean: bool = False, complete: bool | None = None) -> None:
        self._fold = _GrowingBuilder()
        self._lean, self._complete = lean, complete
        self.events_fed = 0
        self._saw_llm_start = False
        # Stage positions, as stage_events indexes a typed stream of one run.
        self._typed_at: dict[str, list[int]] = {}
        self._first_ts: dict[str, float] = {}
        self._stages_dirty: set[str] = set()
        self._typed_at_shown: dict[str, tuple[int, ...]] = {}
        # What the last snapshot published, reused while unchanged.
        self._calls: list[ModelCall] = []
        self._tools: list[ToolCall] = []
        self._turns: list[Turn] = []
        self._memory: list[MemoryServed] = []
        self._entries: list[SearchEntry] = []
        self._calls_by_stage: dict[str, tuple[int, ...]] = {}
        self._tools_by_stage: dict[str, tuple[int, ...]] = {}
        self._last: EvidenceIndex | None = None
        self._last_fed = -1

    # ── folding ──
    def feed(self, events: Iterable[Any]) -> None:
        """Fold ``events`` (as a file holds them: anything may be malformed)."""
        fold = self._fold
        typed_at, first_ts, dirty = self._typed_at, self._first_ts, self._stages_dirty
        position = self.events_fed
        for event in events:
            fold.feed_typed(position, event)
            if isinstance(event, dict):
                if not self._saw_llm_start and event.get("type") == LLM_START:
                    self._saw_llm_start = True
                meta = event.get("meta")
                rid = meta.get("runtimeStageId") if isinstance(meta, dict) else None
                if isinstance(rid, str):
                    typed_at.setdefault(rid, []).append(position)
                    dirty.add(rid)
                    if rid not in first_ts:
                        ts = number_or_none(meta.get("wallClockMs"))
                        if ts is not None:
                            first_ts[rid] = ts
            position += 1
        self.events_fed = position

    # ── what is known now, without a snapshot ──
    @property
    def model_calls(self) -> int:
        """Model calls started so far."""
        return len(self._fold.calls)

    @property
    def tool_calls(self) -> int:
        return len(self._fold.tools)

    @property
    def failed_tool_calls(self) -> int:
        return self._fold.failed_tools

    def open_calls(self) -> tuple[ModelCall | ToolCall, ...]:
        """The model and tool calls started and not (yet) ended, in start order
        (live records: read them now, do not keep them)."""
        scopes = self._fold.scopes.values()
        calls = [state.open_call for state in scopes if state.open_call is not None]
        tools = [tool for state in scopes for tool in state.open_tools.values()]
        return tuple(sorted(calls + tools, key=lambda r: r.start_event_index or 0))

    # ── snapshot ──
    def snapshot(self, typed_events: list | None = None) -> EvidenceIndex:
        """The index of everything fed so far. ``typed_events`` is the list the
        index's stage table refers to (the events fed, as the caller keeps
        them); the same index is returned while nothing new was fed."""
        if self._last is not None and self._last_fed == self.events_fed and (
                typed_events is None or typed_events is self._last.stages.typed_events):
            return self._last
        fold = self._fold
        self._publish()
        calls = list(self._calls)
        # Finishing touches of this moment, on copies (the fold goes on).
        fatal_calls: dict[int, int] = {}
        for run, text, position in fold.fatal:
            for state in fold.scopes.values():
                call = state.open_call
                if call is not None and call.run_id == run:
                    calls[call.id] = _with(calls[call.id], failure=text,
                                           failure_event_index=position)
                    fatal_calls[position] = call.id
        for call_id in fold.unended:
            call = calls[call_id]
            calls[call_id] = _with(call, missing=fold.calls[call_id].missing + ("llm_end",))
        run_ids = tuple(r for r in fold.run_ids if r is not None) or tuple(fold.run_ids)
        agent_runs = tuple(r for r in run_ids if r != CONSUMER_SCOPE) or run_ids
        several_runs = len(agent_runs) > 1
        shown_run = agent_runs[-1] if several_runs else None
        findings = list(fold.findings)
        fold._place_late_findings(findings, calls, fatal_calls, shown_run)
        tools = self._tools
        source = SOURCE_TYPED if self._saw_llm_start else SOURCE_NONE
        notices = _notices(source, lean=self._lean, has_typed_stream=True,
                           complete=self._complete, run_ids=agent_runs,
                           typed_gaps=_typed_gaps(calls, tools, fold.summary_only
                                                  + fold.no_text),
                           has_boundary=False, fatal=fold.fatal)
        events = typed_events if typed_events is not None else []
        shown_ids = parts_of_run(events, shown_run) if several_runs else ()
        if several_runs:
            stages = stage_events([], events, shown_run, several_runs=True,
                                  shown_run_ids=shown_ids)
        else:
            shown = self._typed_at_shown = dict(self._typed_at_shown)
            for rid in self._stages_dirty:
                shown[rid] = tuple(self._typed_at[rid])
            self._stages_dirty = set()
            stages = StageEvents([], events, boundary_at={}, typed_at=shown,
                                 first_ts=dict(self._first_ts))
        self._last = EvidenceIndex(
            source=source, calls=tuple(calls), tool_calls=tuple(tools),
            turns=tuple(self._turns), search_entries=tuple(self._entries),
            notices=tuple(notices), anomalies=tuple(fold.anomalies), run_ids=run_ids,
            lean=self._lean, stages=stages, shown_run=shown_run, shown_run_ids=shown_ids,
            findings=tuple(findings), integrity=tuple(fold.ledgers),
            memory=tuple(self._memory), calls_by_stage=self._calls_by_stage,
            tools_by_stage=self._tools_by_stage)
        self._last_fed = self.events_fed
        return self._last

    def _publish(self) -> None:
        """Copy the records new or changed since the last snapshot into the
        published lists (the fold's own records go on changing)."""
        fold = self._fold
        touched, fold.touched = fold.touched, {}
        calls, tools, turns, memory = self._calls, self._tools, self._turns, self._memory
        for record in touched.values():
            kind = record.__class__
            if kind is ModelCall:
                if record.id < len(calls):
                    calls[record.id] = fold.published_call(record)
            elif kind is ToolCall:
                if record.id < len(tools):
                    tools[record.id] = _copied(record)
            elif kind is Turn:
                at = fold.turn_at.get(id(record))
                if at is not None and at < len(turns):
                    turns[at] = _copied(record)
            elif kind is MemoryServed:
                at = fold.memory_at.get(id(record))
                if at is not None and at < len(memory):
                    memory[at] = _copied(record)
        for call_id in fold.asked_since:
            if call_id < len(calls):
                calls[call_id] = fold.published_call(fold.calls[call_id])
        fold.asked_since = set()
        new_calls = fold.calls[len(calls):]
        calls.extend(fold.published_call(call) for call in new_calls)
        fold.unended.update((call.id, None) for call in new_calls if not call.ended)
        new_tools = fold.tools[len(tools):]
        tools.extend(_copied(tool) for tool in new_tools)
        for at in range(len(turns), len(fold.turns)):
            fold.turn_at[id(fold.turns[at])] = at
            turns.append(_copied(fold.turns[at]))
        for at in range(len(memory), len(fold.memory)):
            fold.memory_at[id(fold.memory[at])] = at
            memory.append(_copied(fold.memory[at]))
        entries = self._entries
        entries.extend(fold.entries[len(entries):])
        for at in fold.served_since:
            entries[at] = replace(fold.entries[at], served_in=tuple(fold.served_in[at]))
        fold.served_since = set()
        if new_calls:
            by_stage = self._calls_by_stage = dict(self._calls_by_stage)
            for rid in dict.fromkeys(call.runtime_stage_id for call in new_calls):
                if rid is not None:
                    by_stage[rid] = tuple(fold.calls_by_stage[rid])
        if new_tools:
            by_stage = self._tools_by_stage = dict(self._tools_by_stage)
            for tool in new_tools:
                if tool.runtime_stage_id is not None:
                    by_stage[tool.runtime_stage_id] = by_stage.get(
                        tool.runtime_stage_id, ()) + (tool.id,)


def _with(record: Any, **fields: Any) -> Any:
    """A copy of a frozen record with ``fields`` changed."""
    record = _copied(record)
    _fill(record, **fields)
    return record


# Field names of each record class, read once (a snapshot copies thousands).
_FIELDS: dict[type, tuple[str, ...]] = {}


def _copied(record: Any) -> Any:
    """A copy of a frozen record (a slotted dataclass), field by field:
    ``copy.copy`` goes through pickling's protocol, ten times slower."""
    kind = record.__class__
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclass_fields(kind))
    new = object.__new__(kind)
    for name in names:
        object.__setattr__(new, name, getattr(record, name))
    return new


class _GrowingBuilder(_Builder):
    """The forward pass, noting what each event changed for
    :class:`EvidenceBuilder`'s snapshots."""

    def __init__(self) -> None:
        super().__init__()
        self.touched: dict[int, Any] = {}   # id(record) -> record completed since the snapshot
        self.asked_since: set[int] = set()  # calls that asked for a tool since the snapshot
        self.served_since: set[int] = set()  # entries served to a call since the snapshot
        # Published model calls not ended, in order; records' positions by id().
        self.unended: dict[int, None] = {}
        self.turn_at: dict[int, int] = {}
        self.memory_at: dict[int, int] = {}
        self.failed_tools = 0

    def _fill(self, record: Any, **fields: Any) -> None:  # type: ignore[override]
        _fill(record, **fields)
        self.touched[id(record)] = record
        if fields.get("ended") is True:
            if record.__class__ is ModelCall:
                self.unended.pop(record.id, None)
            elif fields.get("error") is True:
                self.failed_tools += 1

    def _ask(self, asker: ModelCall | None, tool: ToolCall) -> None:
        super()._ask(asker, tool)
        if asker is not None:
            self.asked_since.add(asker.id)

    def _served_entry(self, piece: Piece, key: ScopeKey, call_id: int) -> int:
        at = super()._served_entry(piece, key, call_id)
        self.served_since.add(at)
        return at

    def published_call(self, call: ModelCall) -> ModelCall:
        """A copy of ``call`` with the tool calls it asked for so far."""
        asked = self.asked.get(call.id)
        published = _copied(call)
        if asked:
            _fill(published, tool_calls=tuple(asked))
        return published


def _typed_gaps(calls: list[ModelCall], tools: list[ToolCall], pieces_without_text: int
                ) -> list[str]:
    """What the typed stream itself lacks, counted (for the lean notice)."""
    gaps = []
    if pieces_without_text:
        gaps.append(f"{counted(pieces_without_text, 'injected piece')} without their full text")
    outputs = sum(1 for c in calls if c.ended and c.output is None)
    if outputs:
        gaps.append(f"{counted(outputs, 'model output')} not recorded")
    args = sum(1 for t in tools if "args" in t.missing)
    results = sum(1 for t in tools if t.ended and "result" in t.missing)
    if args:
        gaps.append(f"{counted(args, 'tool call')} without arguments")
    if results:
        gaps.append(f"{counted(results, 'tool result')} not recorded")
    return gaps


def _notices(source: str, *, lean: bool, has_typed_stream: bool, complete: bool | None,
             run_ids: tuple, typed_gaps: list[str], has_boundary: bool,
             fatal: list) -> list[str]:
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
        notices.append(f"The run failed: {counted(len(fatal), 'fatal error')} recorded (error.fatal).")
    if source != SOURCE_NONE and not has_boundary:
        notices.append("No boundary log: model calls cannot be tied to steps.")
    return notices


# ─── Small helpers ─────────────────────────────────────────────────────


def _join(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return "not recorded" if value is None else str(value)


def search_text(value: Any) -> str:
    """Text to search in a JSON value: strings as they are; objects and lists as
    one ``path: value`` line per leaf, so quotes in values stay unescaped."""
    if isinstance(value, str):
        return value
    if not isinstance(value, (dict, list)):
        return json_text(value)
    if isinstance(value, dict) and len(value) <= _SEARCH_LINES:
        # The usual tool arguments: one flat object, a line per member.
        flat = [f"{k}: {_leaf_text(v)}" for k, v in value.items()
                if not isinstance(v, (dict, list))]
        if len(flat) == len(value):
            return "\n".join(flat)
    lines: list[str] = []
    stack: list[tuple[str, Any]] = [("", value)]
    while stack and len(lines) < _SEARCH_LINES:
        path, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v)
                         for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(node))))
        else:
            lines.append(f"{path}: {_leaf_text(node)}")
    return "\n".join(lines)


def _leaf_text(value: Any) -> str:
    """A JSON leaf as :func:`json_text` writes it, without calling the JSON
    encoder for the common kinds (a tool's arguments are mostly such leaves)."""
    kind = value.__class__
    if kind is str:
        return value
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int and -_EXACT_INT <= value <= _EXACT_INT:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    return json_text(value)


def _slot_from_path(path: tuple[str, ...]) -> str | None:
    if path and path[-1].startswith("sf-"):
        name = path[-1][3:]
        return name if name in SLOTS else None
    return None

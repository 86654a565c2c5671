"""The evidence records: what each model call was served, said and asked for.

These are the one definition of a model call and a tool call in the code
base. Every record is a frozen dataclass: :mod:`recorders.evidence.build`
fills them in during its single pass and hands them out finished; no reader
can change one, so an index can be shared by every session that shows it.

The framework's own verdicts and warnings are :class:`Finding` records, its
integrity ledgers :class:`IntegrityLedger` and the memory it served
:class:`MemoryServed`; what they mean is the catalogue's
(:mod:`recorders.catalogue`), not this module's.

Ids are positions: ``ModelCall.id`` in ``EvidenceIndex.calls``,
``ToolCall.id`` in ``EvidenceIndex.tool_calls``. Links between records are
those ids. Where the recording lacks a fact, the field is None and its name
is in the record's ``missing``; views say so instead of showing an empty box.

A *scope* is where a model call runs: ``(runId, subflowPath)`` of its
``stream.llm_start``, the path without ``__root__``. "The previous call in
the same scope" is the previous model call with the same scope key; a tool
call was asked for by the last call that ended in its scope before it
started.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Collection, Mapping, NamedTuple

from recorders.catalogue import event_type, short_name
from recorders.evidence.stages import StageEvents
from recorders.values import json_text, number_or_none

SYSTEM_PROMPT = "system-prompt"
MESSAGES = "messages"
TOOLS = "tools"
SLOTS: tuple[str, ...] = (SYSTEM_PROMPT, MESSAGES, TOOLS)

SOURCE_TYPED = "typed"
SOURCE_BOUNDARY = "boundary"
SOURCE_NONE = "none"

# Every spelling of token usage agentfootprint's providers report.
USAGE_INPUT_KEYS = ("input", "inputTokens", "input_tokens", "promptTokens", "prompt_tokens")
USAGE_OUTPUT_KEYS = ("output", "outputTokens", "output_tokens", "completionTokens",
                     "completion_tokens")

# The run id agentfootprint gives events the application emits itself
# (``runner.emit``) and pause events: not a run of the agent.
CONSUMER_SCOPE = "consumer-scope"

RunId = Any  # a typed event's ``meta.runId``: a string, or None when not recorded
ScopeKey = tuple[RunId, tuple[str, ...]]  # (runId, subflow path without __root__)


def usage_tokens(usage: Any) -> tuple[float | None, float | None]:
    """(input, output) tokens from a recorded ``usage`` object, whichever
    spelling the provider used; None for a count the object does not carry."""
    if not isinstance(usage, Mapping):
        return None, None
    return _first_number(usage, USAGE_INPUT_KEYS), _first_number(usage, USAGE_OUTPUT_KEYS)


def _first_number(usage: Mapping, keys: tuple[str, ...]) -> float | None:
    for key in keys:
        value = number_or_none(usage.get(key))
        if value is not None:
            return value
    return None


def tool_name_of(content: str | None) -> str | None:
    """The tool's name in a tools-slot piece (``"name: description"``)."""
    if content is None:
        return None
    name, sep, _ = content.partition(":")
    return name if sep else content


class Piece(NamedTuple):
    """One injected piece of a slot, as the model was served it, with provenance.

    ``content`` is the full text (``rawContent``) when recorded; when only the
    recorder's summary exists it holds that and ``content_is_summary`` is True.
    Links (``tool_call``, ``written_by``, ``matches_output_of``) are ids into
    the index, resolved when the piece was read.

    A named tuple rather than a frozen dataclass, like ``RunStep``: a long run
    builds one per injection, and a named tuple is built several times faster.
    Read it by field name.
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
            name = tool_name_of(self.content)
            return ("tool", name if name is not None else self.source_id)
        if self.is_tool_result and self.source_id is not None:
            return ("tool-result", self.source_id)
        if self.slot == SYSTEM_PROMPT:
            return ("system", self.source, self.source_id)
        return (self.role or self.source,
                self.content if self.content is not None else self.content_hash)


@dataclass(frozen=True, slots=True)
class SlotComposition:
    """One slot as served to one call: pieces, budget, drops.

    ``origin`` is ``"fresh"`` when the slot was composed for this call,
    ``"carried"`` when it was not recomposed and the previous call's
    composition (``carried_from``) still stood.
    """

    slot: str
    pieces: tuple[Piece, ...] = ()
    budget: Mapping[str, Any] | None = None
    source_breakdown: Mapping[str, Any] | None = None
    dropped_count: int | None = None
    dropped_summaries: tuple[Any, ...] | None = None
    ordering: str | None = None
    iteration: int | None = None
    composed_event_index: int | None = None
    origin: str = "fresh"
    carried_from: int | None = None
    missing: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Eviction:
    """A piece evicted from the context before a call, with the earlier
    pieces that carried the same content hash."""

    slot: str | None
    content_hash: str | None
    reason: str | None
    survival_ms: float | None
    event_index: int
    pieces: tuple[Piece, ...] = ()


@dataclass(frozen=True, slots=True)
class ContextNote:
    """Any other event in the scope worth showing (skill.*, tools.*, budget pressure)."""

    type: str
    payload: Any
    event_index: int
    ts: float | None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool invocation: what was asked, what came back, and which model
    call asked for it (``requested_by``)."""

    id: int
    tool_call_id: str | None
    name: str | None
    args: Any
    result: Any
    error: bool | None      # None: not recorded (or the call never ended)
    duration_ms: float | None
    requested_by: int | None
    run_id: RunId
    scope: tuple[str, ...]
    runtime_stage_id: str | None
    start_event_index: int | None
    end_event_index: int | None
    ts_start: float | None
    ts_end: float | None = None
    ended: bool = False
    missing: tuple[str, ...] = ()
    notes: tuple[ContextNote, ...] = ()

    @property
    def has_result(self) -> bool:
        return self.ended and "result" not in self.missing

    @property
    def failed(self) -> bool:
        return self.error is True


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One model call (``llm_start`` .. ``llm_end``): the context it was
    served slot by slot, what it said, its usage, and the tool calls it asked
    for (``tool_calls``, ids into the index)."""

    id: int
    run_id: RunId
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
    tools_offered: tuple[Any, ...] | None = None  # llm_start ``tools`` (name, description)
    slots: Mapping[str, SlotComposition] = field(default_factory=dict)
    evaluated: Mapping[str, Any] | None = None
    evaluated_event_index: int | None = None
    evictions: tuple[Eviction, ...] = ()
    notes: tuple[ContextNote, ...] = ()
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
    tool_calls: tuple[int, ...] = ()
    route: Mapping[str, Any] | None = None
    failure: str | None = None
    failure_event_index: int | None = None  # the error.fatal recorded while it was open
    in_boundary_log: bool | None = None
    missing: tuple[str, ...] = ()

    @property
    def is_final_answer(self) -> bool:
        """Ended without asking for tools (an answer, not a tool request)."""
        if not self.ended:
            return False
        if self.tool_call_count is not None:
            return self.tool_call_count == 0 and not self.tool_calls
        return not self.tool_calls and self.stop_reason != "tool_use"

    @property
    def tokens(self) -> tuple[float | None, float | None]:
        """(input, output) tokens, whichever spelling the usage used."""
        return usage_tokens(self.usage)

    @property
    def wall_ms(self) -> float | None:
        """End minus start on the wall clock, when both were recorded."""
        if self.ts_start is None or self.ts_end is None:
            return None
        return self.ts_end - self.ts_start


@dataclass(frozen=True, slots=True)
class Turn:
    """One agent turn: its prompt and the call that gave its final answer."""

    run_id: RunId
    scope: tuple[str, ...]
    turn_index: int | None
    user_prompt: str | None
    final_content: str | None = None
    final_call: int | None = None
    event_index: int = -1


# How a framework finding was tied to a model or tool call (``Finding.placed_by``).
BY_TOOL_CALL_ID = "toolCallId"      # the payload names the tool call
BY_OPEN_TOOL = "open tool call"     # the tool call running in its scope when it fired
BY_OPEN_CALL = "open model call"    # the model call running in its scope when it fired
BY_LAST_CALL = "last model call"    # the model call that had just ended in its scope
BY_FINAL_ANSWER = "final answer"    # no meta: it speaks of the run's final answer
BY_NOTHING = "not placed"


class Finding(NamedTuple):
    """One framework verdict or warning (:mod:`recorders.catalogue` decides
    which events are), in its own words, with the call it belongs to.

    ``event_index`` is the event's position in the recording's ``events``.
    ``call``/``tool`` are ids into the index (None when nothing ties it to
    one); ``placed_by`` says how the tie was made. ``run_id`` is None for an
    event delivered without ``meta``. Its family, meaning and words are the
    catalogue's reading of ``type`` and ``payload``, made when asked for: a
    long run evicts before every call, and the fold stays O(1) per event.

    A named tuple, like :class:`Piece`: built several times faster than a
    frozen dataclass. Read it by field name.
    """

    type: str       # the full type name
    kind: str       # catalogue.VERDICT | catalogue.WARNING
    payload: Any
    event_index: int
    ts: float | None
    run_id: RunId
    scope: tuple[str, ...]
    has_meta: bool = True
    call: int | None = None
    tool: int | None = None
    placed_by: str = BY_NOTHING

    @property
    def short(self) -> str:
        """The type without ``agentfootprint.``."""
        return short_name(self.type)

    @property
    def family(self) -> str:
        entry = event_type(self.type)
        return entry.family if entry is not None else ""

    @property
    def meaning(self) -> str:
        """The catalogue's plain words for the type."""
        entry = event_type(self.type)
        return entry.meaning if entry is not None else ""

    @property
    def explained(self) -> tuple[tuple[str, Any], ...]:
        """The catalogue's explaining fields that the payload carries, most
        telling first, as ``(field, value as recorded)``."""
        entry = event_type(self.type)
        if entry is None or not isinstance(self.payload, Mapping):
            return ()
        return tuple((name, self.payload[name]) for name in entry.explaining
                     if self.payload.get(name) is not None)

    @property
    def words(self) -> tuple[tuple[str, str], ...]:
        """The event's own words: :attr:`explained` as ``(field, text)`` (a
        string as recorded, any other value as JSON)."""
        return tuple((name, json_text(value)) for name, value in self.explained)

    def word(self, name: str) -> str | None:
        """The text of one explaining field, if the payload carries it."""
        for field_name, text in self.words:
            if field_name == name:
                return text
        return None


@dataclass(frozen=True, slots=True)
class IntegrityLedger:
    """One ``integrity.disposition``: each check's account at a run's end.

    ``rows`` keep the recorded rows; ``summary`` says them in one line
    ("3 of 4 checks ran; unsupported-claim found 1"). A check is a row
    (check, seam): the framework runs one check at several seams. ``found``
    counts distinct defects (one ``integrity.context_error`` each), not the
    rows' re-detections.
    """

    summary: str
    posture: str | None
    ran: int
    total: int
    found: tuple[tuple[str, int], ...]   # (check label, defects filed) of checks that found
    not_applicable: tuple[str, ...]      # check labels that never applied
    unreachable: tuple[str, ...]         # check labels that could not run
    rows: tuple[Any, ...]
    event_index: int
    run_id: RunId
    # (check label, detections) of rows counting findings no recorded event files
    detected: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class MemoryServed:
    """A remembered or retrieved entry on its way into a prompt
    (``memory.attached``), traced to the model call it was served to:
    the next call that started in the scope the memory read ran under."""

    memory_id: str | None
    summary: str | None
    score: float | None
    rank: int | None
    source: str | None
    event_index: int
    run_id: RunId
    scope: tuple[str, ...]
    served_to: int | None = None   # ModelCall id; None when no call followed


@dataclass(frozen=True, slots=True)
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
    served_in: tuple[int, ...] = ()
    label: str = ""  # a short label (source/role/tool name): recording text


@dataclass(frozen=True)
class EvidenceIndex:
    """Everything the evidence views read, built once per recording.

    ``shown_run`` is the run the boundary log, and so the steps, describe:
    the last run id when the typed stream holds several, else None (every call
    is in it). ``shown_run_ids`` are the ids of that run's parts when it paused
    for a person and was resumed (the boundary log, and so the steps, hold
    every part; the snapshot holds the part of ``shown_run``, the last, only),
    else ``(shown_run,)``. ``stages`` says which events carry each
    ``runtimeStageId``.
    """

    source: str
    calls: tuple[ModelCall, ...]
    tool_calls: tuple[ToolCall, ...]
    turns: tuple[Turn, ...]
    search_entries: tuple[SearchEntry, ...]
    notices: tuple[str, ...]
    anomalies: tuple[str, ...]
    run_ids: tuple[RunId, ...]
    lean: bool
    stages: StageEvents
    shown_run: RunId = None
    shown_run_ids: tuple[RunId, ...] = ()
    findings: tuple[Finding, ...] = ()
    integrity: tuple[IntegrityLedger, ...] = ()
    memory: tuple[MemoryServed, ...] = ()
    calls_by_stage: Mapping[str, tuple[int, ...]] = field(default_factory=dict, repr=False)
    tools_by_stage: Mapping[str, tuple[int, ...]] = field(default_factory=dict, repr=False)

    # ── look-ups ──
    def calls_for_runtime_stage(self, runtime_stage_id: str) -> tuple[int, ...]:
        return self.calls_by_stage.get(runtime_stage_id, ())

    def previous_call(self, call_id: int) -> ModelCall | None:
        """The model call before this one in the same scope, if any."""
        prev = self.calls[call_id].previous_in_scope
        return None if prev is None else self.calls[prev]

    def asked_by(self, tool_id: int) -> ModelCall | None:
        """The model call that asked for this tool call, if the recording shows one."""
        asker = self.tool_calls[tool_id].requested_by
        return None if asker is None else self.calls[asker]

    def tools_of(self, call: ModelCall | None) -> tuple[ToolCall, ...]:
        """The tool calls ``call`` asked for, in the order they started."""
        if call is None:
            return ()
        return tuple(self.tool_calls[t] for t in call.tool_calls)

    def in_shown_run(self, run_id: RunId) -> bool:
        """Whether a record of ``run_id`` belongs to the run the steps describe
        (any of its parts, when it paused and was resumed)."""
        return self.shown_run is None or run_id == self.shown_run or (
            run_id is not None and run_id in self.shown_run_ids)

    def before_the_resume(self, run_id: RunId) -> bool:
        """Whether a record of ``run_id`` belongs to a part of the shown run
        before its last resume: the steps show it, the snapshot (the file's
        state and commit log, the last part's) does not."""
        return (self.shown_run is not None and run_id is not None
                and run_id != self.shown_run and run_id in self.shown_run_ids)

    def shown_calls(self) -> tuple[ModelCall, ...]:
        """The model calls of the run the steps describe."""
        if self.shown_run is None:
            return self.calls
        return tuple(c for c in self.calls if self.in_shown_run(c.run_id))

    def shown_tools(self) -> tuple[ToolCall, ...]:
        """The tool calls of the run the steps describe."""
        if self.shown_run is None:
            return self.tool_calls
        return tuple(t for t in self.tool_calls if self.in_shown_run(t.run_id))

    def calls_of_run(self, run_ids: Collection[RunId] = ()) -> tuple[ModelCall, ...]:
        """The model calls of the run of ``run_ids`` (a run's ids: a resume
        adds one, :func:`recorders.evidence.run_groups`); the shown run's
        when empty. Every count of a run's calls reads this, so the run bar
        and the outcome's sentence count the same calls."""
        if not run_ids:
            return self.shown_calls()
        ids = tuple(run_ids)  # a hostile file's run id may be no text (unhashable)
        return tuple(c for c in self.calls if c.run_id in ids)

    def tools_of_run(self, run_ids: Collection[RunId] = ()) -> tuple[ToolCall, ...]:
        """The tool calls of the run of ``run_ids``, as :meth:`calls_of_run`."""
        if not run_ids:
            return self.shown_tools()
        ids = tuple(run_ids)
        return tuple(t for t in self.tool_calls if t.run_id in ids)

    def call_at_stage(self, runtime_stage_id: str, ts: float | None = None
                      ) -> ModelCall | None:
        """The model call at ``runtime_stage_id`` in the run the steps describe:
        the one whose time window holds ``ts`` when several do, else the last."""
        found = [self.calls[c] for c in self.calls_for_runtime_stage(runtime_stage_id)
                 if self.in_shown_run(self.calls[c].run_id)]
        if len(found) > 1 and ts is not None:
            for call in found:
                if call.ts_start is not None and call.ts_start <= ts and (
                        call.ts_end is None or ts <= call.ts_end):
                    return call
        return found[-1] if found else None

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

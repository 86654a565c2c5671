"""The run as OpenTelemetry spans: one OTLP/JSON document for tracing tools.

:func:`otlp_document` turns an open run into ``{"resourceSpans": [...]}`` as
an OTLP/HTTP JSON body (hex trace and span ids, nanosecond times as strings,
enums as numbers), following the OpenTelemetry GenAI semantic conventions and
the shape agentfootprint's own OpenTelemetry adapter (``otelObservability``,
9.62) gives a live run, so a team sees the same tree from both:

- each run of the recording (a ``meta.runId`` with calls) is a root span of
  its top-level primitive; every execution of a primitive inside it (Agent,
  LLMCall, Sequence, Parallel, Conditional, Loop) is a child span of the one
  it ran in. An Agent is ``invoke_agent <name>`` (``gen_ai.operation.name``
  ``invoke_agent``, ``gen_ai.agent.name``, its calls' token totals); any other
  primitive is ``<Kind> <name>`` with ``agentfootprint.scope.kind``;
- an Agent's iteration is ``iteration:<n>``, holding that iteration's model
  call and the tool calls it asked for, as the adapter nests them;
- a model call is ``chat <model>`` (client kind): ``gen_ai.request.model``,
  ``gen_ai.provider.name`` (and the older ``gen_ai.system``),
  ``gen_ai.usage.input_tokens`` / ``output_tokens`` and the cache counts where
  recorded, ``gen_ai.response.finish_reasons``; a call that crashed has ERROR
  status with the error text, and so has its run's root span;
- a tool call is ``execute_tool <name>``: ``gen_ai.tool.name``,
  ``gen_ai.tool.call.id``; a failed one has ERROR status, ``error.type`` and
  its error text as the status message;
- the framework's verdicts and warnings (the evidence index's findings) are
  span events named by their event type, on the tool call, model call or run
  they belong to, with the catalogue's family and meaning and the event's own
  explaining fields (``agentfootprint.<domain>.<field>``; a field that holds
  contents, such as a tool's result, only with ``content=True``); integrity
  ledgers are events on their run's root span.

Executions are told apart from the calls, in event order (the boundary log
the scopes come from says which scopes exist, not how often each ran): an
Agent runs again when a call's iteration does not follow its last one or its
turn changes, an LLMCall when it makes a second call; a child that runs again
within its parent's current execution means the parent ran again, except in a
Loop, where it is the loop's next iteration. A run that paused and resumed
under a new run id with the next iteration goes on in its agent's span, and a
tool call that paused there is closed by its ``toolCallId``, as the adapter
closes tool spans.

Contents are opt-in, as the conventions make them: only with ``content=True``
do spans carry ``gen_ai.system_instructions``, ``gen_ai.input.messages``,
``gen_ai.output.messages``, ``gen_ai.tool.call.arguments`` and
``gen_ai.tool.call.result``; without it a tool span says only its arguments'
key names and its result's type, like the adapter. A redactor, when given,
masks every text of the finished document (names, attribute values, event
attributes, status messages); ids, keys and times are not text of the run.

Every such text is at most :data:`CUT_CHARS` characters, as the HTML export
keeps a recorded value (:data:`lens.share.html.WHOLE_TEXT_CHARS`); a longer
one keeps its first :data:`CUT_CHARS` and ends in :data:`CUT_MARKER`, which
says how long the whole text is. A value that is not a string is never
written whole to be cut: its JSON's length is measured over its objects, each
shared object once (a packed recording refers to one object from every place
that holds it), and only the start is written, so a few hundred KB standing
for a value copied a million times exports in the time and memory its cut
text takes. With a redactor a text is masked before it is cut, over
:data:`GUARD_CHARS` characters past the cut, so a secret the cut would split
is seen whole and masked, never half kept.

Ids are deterministic: the trace id from the run id, each span id from the
trace id and the span's place (a call's or tool call's position in the
evidence index, a scope's path and execution number), so exporting the same
file twice gives the same bytes.

What this owns: the span tree and its attributes. What it does not: finding
calls, tool calls and verdicts (the evidence index), the scopes' kinds (the
lens projection), the attribute names (:mod:`lens.share.otlp_names`), masking
(:mod:`lens.share.redaction`), files and arguments (:mod:`lens.export_otlp`).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from recorders.catalogue import INTEGRITY_DISPOSITION
from recorders.deep_parse import collector_paused
from recorders.evidence import MESSAGES, SYSTEM_PROMPT, ModelCall, ToolCall
from recorders.json_measure import json_length, json_start
from recorders.values import ROOT_PATH, is_number, json_text
from lens.share.otlp_names import (AGENTFOOTPRINT_CALL_ENDED, AGENTFOOTPRINT_EXPLAINING_FIELD,
                                   AGENTFOOTPRINT_FINDING_FAMILY, AGENTFOOTPRINT_FINDING_KIND,
                                   AGENTFOOTPRINT_FINDING_MEANING, AGENTFOOTPRINT_FINDING_WITHHELD,
                                   AGENTFOOTPRINT_INTEGRITY_CHECKS_RAN,
                                   AGENTFOOTPRINT_INTEGRITY_CHECKS_TOTAL,
                                   AGENTFOOTPRINT_INTEGRITY_POSTURE,
                                   AGENTFOOTPRINT_INTEGRITY_SUMMARY,
                                   AGENTFOOTPRINT_ITERATION_INDEX, AGENTFOOTPRINT_LOOP_ITERATION,
                                   AGENTFOOTPRINT_RUNTIME_STAGE_ID, AGENTFOOTPRINT_RUN_ID,
                                   AGENTFOOTPRINT_RUN_RESUMED_AS, AGENTFOOTPRINT_SCOPE_KIND,
                                   AGENTFOOTPRINT_SCOPE_NAME, AGENTFOOTPRINT_SCOPE_PATH,
                                   AGENTFOOTPRINT_TIME_CLAMPED, AGENTFOOTPRINT_TIME_UNRECORDED,
                                   AGENTFOOTPRINT_TOOL_ARGS_KEYS, AGENTFOOTPRINT_TOOL_CALL_COUNT,
                                   AGENTFOOTPRINT_TOOL_ENDED, AGENTFOOTPRINT_TOOL_RESULT_TYPE,
                                   AGENTFOOTPRINT_TURN_INDEX, AGENTFOOTPRINT_VERSION,
                                   DEFAULT_SERVICE_NAME, ERROR_TYPE, ERROR_TYPE_OTHER,
                                   GEN_AI_AGENT_NAME, GEN_AI_INPUT_MESSAGES, GEN_AI_OPERATION_NAME,
                                   GEN_AI_OUTPUT_MESSAGES, GEN_AI_PROVIDER_NAME,
                                   GEN_AI_REQUEST_MODEL, GEN_AI_RESPONSE_FINISH_REASONS,
                                   GEN_AI_SYSTEM, GEN_AI_SYSTEM_INSTRUCTIONS,
                                   GEN_AI_TOOL_CALL_ARGUMENTS, GEN_AI_TOOL_CALL_ID,
                                   GEN_AI_TOOL_CALL_RESULT, GEN_AI_TOOL_NAME,
                                   GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
                                   GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, GEN_AI_USAGE_INPUT_TOKENS,
                                   GEN_AI_USAGE_OUTPUT_TOKENS, ITERATION_NUMBER,
                                   OPENINFERENCE_CHAIN, OPENINFERENCE_SPAN_KIND, OPERATION_CHAT,
                                   OPERATION_EXECUTE_TOOL, OPERATION_INVOKE_AGENT, SERVICE_NAME,
                                   TELEMETRY_SDK_NAME, TOOL_NAME)

if TYPE_CHECKING:
    from lens.run import OpenRun

# OTLP enums (numbers in OTLP/JSON).
SPAN_KIND_INTERNAL = 1
SPAN_KIND_CLIENT = 3
STATUS_ERROR = 2

SCOPE_NAME = "footprint-lens"
# The adapter lists at most this many argument names.
MAX_LIST_ITEMS = 20

# A verdict's explaining fields that carry what the model or a tool said or
# was given (a tool's result, a prompt, an output): contents, opt-in like the
# conventions' message attributes; without them the event names what it left out.
CONTENT_WORDS = frozenset({
    "args", "content", "contentSummary", "droppedSummaries", "finalContent", "payload",
    "questionPayload", "rawOutput", "rawOutputPreview", "result", "resultSummary",
    "resumeInput", "snapshot", "userPrompt"})

# Lens's scope kinds (lower case) as the framework names its primitives.
_PRIMITIVE = {"agent": "Agent", "llmcall": "LLMCall", "sequence": "Sequence",
              "parallel": "Parallel", "conditional": "Conditional", "loop": "Loop"}
AGENT = "agent"
LLMCALL = "llmcall"
LOOP = "loop"
# Cache token counts as providers spell them in a recorded ``usage``.
_CACHE_READ_KEYS = ("cacheRead", "cacheReadTokens", "cache_read_input_tokens",
                    "cacheReadInputTokens")
_CACHE_WRITE_KEYS = ("cacheWrite", "cacheWriteTokens", "cache_creation_input_tokens",
                     "cacheCreationInputTokens")

__all__ = ["otlp_document", "SCOPE_NAME"]


def otlp_document(open_run: OpenRun, *, content: bool = False,
                  redactor: Any = None) -> dict[str, Any]:
    """The run as one OTLP/JSON ``ExportTraceServiceRequest`` body (see the module doc).

    ``redactor`` is a :class:`lens.share.redaction.Redactor`: every text of the
    document goes through its ``redact_texts`` in one plan, each text before it
    is cut (see the module doc), so a secret is whole when it is masked. A run
    opened from a file that was redacted first (as ``export otlp --redact``
    does) has masked values only; this pass then also masks what the recording
    keeps as names.
    """
    # Building allocates enough to set off collections that walk the whole
    # open run to free nothing: the collector is paused, as for opening it.
    with collector_paused():
        spans = _TraceBuilder(open_run, content).build()
        long: list[tuple[dict[str, Any], str]] = []
        document = _wire(open_run, spans, long)
    return _finished(document, redactor, long)


# ─── The span tree ─────────────────────────────────────────────────────


@dataclass(eq=False)
class _Span:
    key: str                       # its place in the run: hashed into its id
    name: str
    kind: int
    parent: _Span | None
    attributes: dict[str, Any] = field(default_factory=dict)
    start_ms: float | None = None
    end_ms: float | None = None
    events: list[tuple[str, float | None, dict[str, Any]]] = field(default_factory=list)
    error: str | None = None       # ERROR status with this message
    calls: list[ModelCall] = field(default_factory=list)  # model calls directly inside
    unrecorded: list[str] = field(default_factory=list)   # times the recording lacks


@dataclass(eq=False)
class _Execution:
    """One execution of a scope in one run: its span, and what ran in it."""

    span: _Span
    kind: str | None
    parent: _Execution | None
    children_seen: set[tuple[str, ...]] = field(default_factory=set)
    last_iteration: int | None = None
    turn_index: int | None = None
    calls: int = 0
    loop_iteration: int = 0


class _TraceBuilder:
    """Builds the spans of one run in one pass over its calls and tool calls."""

    def __init__(self, open_run: OpenRun, content: bool) -> None:
        self.evidence = open_run.evidence
        self.content = content
        self.scopes = _scope_kinds(open_run)
        self.spans: list[_Span] = []
        self.roots: dict[Any, _Execution] = {}
        self.open: dict[tuple[Any, tuple[str, ...]], _Execution] = {}
        self.executions_of: dict[tuple[Any, tuple[str, ...]], int] = {}
        self.call_spans: dict[int, _Span] = {}
        self.call_holders: dict[int, _Span] = {}  # the span a call's tools go under
        self.tool_spans: dict[int, _Span] = {}
        self.unended_tools: dict[str, _Span] = {}  # by toolCallId
        self._chains: dict[tuple[str, ...], tuple[tuple[str, ...], ...]] = {}

    # ── the pass ──

    def build(self) -> list[_Span]:
        records: list[tuple[int, int, Any]] = []
        for call in self.evidence.calls:
            records.append((call.start_event_index, 0, call))
        for tool in self.evidence.tool_calls:
            records.append((_tool_position(tool, self.evidence.calls), 1, tool))
        records.sort(key=lambda r: (r[0], r[1], r[2].id))
        for _, _, record in records:
            if isinstance(record, ModelCall):
                self._add_call(record)
            else:
                self._add_tool(record)
        if not self.spans:
            self._root(self.evidence.shown_run if self.evidence.shown_run is not None
                       else (self.evidence.run_ids[-1] if self.evidence.run_ids else None), None)
        self._add_findings()
        self._add_integrity()
        _settle_times(self.spans)
        self._add_agent_totals()
        return self.spans

    def _add_call(self, call: ModelCall) -> None:
        execution = self._execution_for(call.run_id, call.scope, call, call.composition_path)
        holder = execution.span
        if execution.kind == AGENT and call.iteration is not None:
            # As the adapter names and marks its iteration spans.
            attributes: dict[str, Any] = {ITERATION_NUMBER: call.iteration,
                                          OPENINFERENCE_SPAN_KIND: OPENINFERENCE_CHAIN}
            if call.tool_call_count is not None:
                attributes[AGENTFOOTPRINT_TOOL_CALL_COUNT] = _integral(call.tool_call_count)
            holder = self._span(f"iteration|{call.id}", f"iteration:{call.iteration}",
                                SPAN_KIND_INTERNAL, holder, attributes)
        span = self._span(f"call|{call.id}", _joined(OPERATION_CHAT + " ", _window(call.model))
                          if call.model else OPERATION_CHAT,
                          SPAN_KIND_CLIENT, holder, _call_attributes(call))
        span.start_ms, span.end_ms = call.ts_start, call.ts_end
        if call.ts_end is None and call.ts_start is not None and is_number(call.duration_ms):
            span.end_ms = call.ts_start + call.duration_ms
        if call.failure is not None:
            span.error = call.failure
            span.attributes[ERROR_TYPE] = ERROR_TYPE_OTHER
            root = self._run_root(execution)
            if root.error is None:
                root.error = call.failure
        elif not call.ended:
            span.attributes[AGENTFOOTPRINT_CALL_ENDED] = False
        if self.content:
            span.attributes.update(_call_contents(call, self.evidence.tool_calls))
        holder.calls.append(call)
        self.call_spans[call.id] = span
        self.call_holders[call.id] = holder

    def _add_tool(self, tool: ToolCall) -> None:
        started = self.unended_tools.pop(tool.tool_call_id, None) \
            if "tool_start" in tool.missing and tool.tool_call_id is not None else None
        if started is not None:
            # The end of a tool call that paused and resumed in a new run: the
            # index has it apart, the adapter closes the open span by its id.
            self._end_tool(started, tool)
            started.attributes.pop(AGENTFOOTPRINT_TOOL_ENDED, None)
            self.tool_spans[tool.id] = started
            return
        holder = self.call_holders.get(tool.requested_by) if tool.requested_by is not None \
            else None
        if holder is None:
            holder = self._execution_for(tool.run_id, tool.scope, None, None).span
        name = _window(tool.name) if tool.name is not None else "tool"
        attributes: dict[str, Any] = {GEN_AI_OPERATION_NAME: OPERATION_EXECUTE_TOOL,
                                      GEN_AI_TOOL_NAME: name, TOOL_NAME: name}
        if tool.tool_call_id is not None:
            attributes[GEN_AI_TOOL_CALL_ID] = tool.tool_call_id
        if tool.runtime_stage_id is not None:
            attributes[AGENTFOOTPRINT_RUNTIME_STAGE_ID] = tool.runtime_stage_id
        if isinstance(tool.args, Mapping) and tool.args:
            attributes[AGENTFOOTPRINT_TOOL_ARGS_KEYS] = _bounded_list(
                map(str, itertools.islice(tool.args, MAX_LIST_ITEMS)), len(tool.args))
        if self.content and "args" not in tool.missing:
            attributes[GEN_AI_TOOL_CALL_ARGUMENTS] = _text(tool.args)
        span = self._span(f"tool|{tool.id}", _joined(OPERATION_EXECUTE_TOOL + " ", name),
                          SPAN_KIND_INTERNAL, holder, attributes)
        span.start_ms = tool.ts_start
        self._end_tool(span, tool)
        if not tool.ended:
            attributes[AGENTFOOTPRINT_TOOL_ENDED] = False
            if tool.tool_call_id is not None:
                self.unended_tools[tool.tool_call_id] = span
        self.tool_spans[tool.id] = span

    def _end_tool(self, span: _Span, tool: ToolCall) -> None:
        """What ``tool``'s end says: the end time, the result's type (and the
        result, with contents), ERROR with the error text for a failed call."""
        span.end_ms = tool.ts_end
        if tool.ts_end is None and tool.ts_start is not None and is_number(tool.duration_ms):
            span.end_ms = tool.ts_start + tool.duration_ms
        if tool.has_result:
            span.attributes[AGENTFOOTPRINT_TOOL_RESULT_TYPE] = _json_type(tool.result)
            if self.content:
                span.attributes[GEN_AI_TOOL_CALL_RESULT] = _text(tool.result)
        if tool.failed:
            span.error = _text(tool.result) if tool.has_result else "the tool failed"
            span.attributes[ERROR_TYPE] = ERROR_TYPE_OTHER

    # ── scopes and their executions ──

    def _execution_for(self, run: Any, scope: tuple[str, ...], call: ModelCall | None,
                       composition_path: tuple[str, ...] | None) -> _Execution:
        """The execution a record of ``scope`` in ``run`` belongs to, opening new
        executions where the record shows its scope (or an ancestor) ran again."""
        chain = self._chain(scope)
        root = self._root(run, composition_path, call if not chain else None)
        if not chain:
            if call is not None:
                self._note_call(root, call)
            return root
        # Bottom up: does the innermost scope start again, and does that make
        # its parents start again (a child that already ran in the parent's
        # current execution means the parent ran again, unless it is a Loop)?
        fresh = [False] * len(chain)
        innermost = self.open.get((run, chain[-1]))
        if call is not None and innermost is not None and self._runs_again(innermost, call):
            fresh[-1] = True
        for level in range(len(chain) - 1, -1, -1):
            if not fresh[level]:
                break
            parent = self.open.get((run, chain[level - 1])) if level else root
            if parent is None or chain[level] not in parent.children_seen:
                break
            if parent.kind == LOOP:
                parent.loop_iteration += 1
                parent.children_seen.clear()
                break
            if not level:  # the run's root does not run again within its run
                break
            fresh[level - 1] = True
        # Top down: open what is fresh, missing, or open under an older parent.
        parent = root
        for level, path in enumerate(chain):
            current = self.open.get((run, path))
            if fresh[level] or current is None or current.parent is not parent:
                current = self._open_scope(run, path, parent)
            parent = current
        if call is not None:
            self._note_call(parent, call)
        return parent

    def _runs_again(self, execution: _Execution, call: ModelCall) -> bool:
        if execution.kind == LLMCALL:
            return execution.calls > 0
        if execution.kind == AGENT:
            if (call.turn_index is not None and execution.turn_index is not None
                    and call.turn_index != execution.turn_index):
                return True
            return (call.iteration is not None and execution.last_iteration is not None
                    and call.iteration <= execution.last_iteration)
        return False

    @staticmethod
    def _note_call(execution: _Execution, call: ModelCall) -> None:
        execution.calls += 1
        if call.iteration is not None:
            execution.last_iteration = call.iteration
        if call.turn_index is not None:
            execution.turn_index = call.turn_index
            if execution.kind == AGENT:
                execution.span.attributes.setdefault(AGENTFOOTPRINT_TURN_INDEX,
                                                     call.turn_index)

    def _open_scope(self, run: Any, path: tuple[str, ...], parent: _Execution) -> _Execution:
        kind, name = self.scopes.get(path, (None, None))
        number = self.executions_of.get((run, path), 0)
        self.executions_of[(run, path)] = number + 1
        name = _window(name or path[-1])
        span = self._span(f"scope|{run}|{'/'.join(path)}|{number}", _scope_span_name(kind, name),
                          SPAN_KIND_INTERNAL, parent.span,
                          _scope_attributes(kind, name, path[1:], run))
        if parent.kind == LOOP:
            span.attributes[AGENTFOOTPRINT_LOOP_ITERATION] = parent.loop_iteration + 1
        execution = _Execution(span, kind, parent)
        parent.children_seen.add(path)
        self.open[(run, path)] = execution
        return execution

    def _root(self, run: Any, composition_path: tuple[str, ...] | None,
              call: ModelCall | None = None) -> _Execution:
        root = self.roots.get(run)
        if root is not None:
            return root
        resumed = self._resumed(call)
        if resumed is not None:
            self.roots[run] = resumed
            resumed.span.attributes.setdefault(AGENTFOOTPRINT_RUN_RESUMED_AS, []).append(run)
            return resumed
        kind, name = self.scopes.get(ROOT_PATH, (None, None))
        head = composition_path[0] if composition_path else None
        if isinstance(head, str) and ":" in head:
            recorded_kind, _, recorded_name = head.partition(":")
            kind = kind or next((k for k, v in _PRIMITIVE.items() if v == recorded_kind), None)
            name = name or recorded_name
        name = _window(name or "run")
        span = self._span(f"run|{run}", _scope_span_name(kind, name), SPAN_KIND_INTERNAL, None,
                          _scope_attributes(kind, name, (), run))
        root = self.roots[run] = _Execution(span, kind, None)
        return root

    def _resumed(self, call: ModelCall | None) -> _Execution | None:
        """The agent run that ``call``, the first of a new run, resumes: a run
        that paused (for an approval, a credential) goes on under a new run id
        with the next iteration of the same turn, which stays one span."""
        if call is None or call.iteration is None or not self.roots:
            return None
        last = list(self.roots.values())[-1]
        if last.kind == AGENT and last.last_iteration is not None and \
                call.iteration > last.last_iteration:
            return last
        return None

    def _run_root(self, execution: _Execution) -> _Span:
        while execution.parent is not None:
            execution = execution.parent
        return execution.span

    def _chain(self, scope: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
        """The scopes (rooted paths, outermost first) a record of ``scope`` runs in."""
        chain = self._chains.get(scope)
        if chain is None:
            rooted = ROOT_PATH + tuple(scope)
            chain = tuple(rooted[:end] for end in range(2, len(rooted) + 1)
                          if rooted[:end] in self.scopes)
            self._chains[scope] = chain
        return chain

    def _span(self, key: str, name: str, kind: int, parent: _Span | None,
              attributes: dict[str, Any]) -> _Span:
        span = _Span(key, name, kind, parent, attributes)
        self.spans.append(span)
        return span

    # ── verdicts, ledgers, totals ──

    def _add_findings(self) -> None:
        for finding in self.evidence.findings:
            span = None
            if finding.tool is not None:
                span = self.tool_spans.get(finding.tool)
            if span is None and finding.call is not None:
                span = self.call_spans.get(finding.call)
            if span is None:
                span = self._root_for(finding.run_id)
            attributes: dict[str, Any] = {AGENTFOOTPRINT_FINDING_KIND: finding.kind,
                                          AGENTFOOTPRINT_FINDING_FAMILY: finding.family}
            if finding.meaning:
                attributes[AGENTFOOTPRINT_FINDING_MEANING] = finding.meaning
            domain = finding.short.partition(".")[0]
            withheld = []
            for word, value in finding.explained:
                if word in CONTENT_WORDS and not self.content:
                    withheld.append(word)
                else:  # as finding.words has it, never written whole
                    key = AGENTFOOTPRINT_EXPLAINING_FIELD.format(domain=domain,
                                                                 field=_snake(word))
                    attributes[key] = _text(value)
            if withheld:
                attributes[AGENTFOOTPRINT_FINDING_WITHHELD] = withheld
            span.events.append((finding.type, finding.ts, attributes))

    def _add_integrity(self) -> None:
        for ledger in self.evidence.integrity:
            attributes: dict[str, Any] = {AGENTFOOTPRINT_INTEGRITY_SUMMARY: ledger.summary,
                                          AGENTFOOTPRINT_INTEGRITY_CHECKS_RAN: ledger.ran,
                                          AGENTFOOTPRINT_INTEGRITY_CHECKS_TOTAL: ledger.total}
            if ledger.posture is not None:
                attributes[AGENTFOOTPRINT_INTEGRITY_POSTURE] = ledger.posture
            self._root_for(ledger.run_id).events.append(
                (INTEGRITY_DISPOSITION, None, attributes))

    def _root_for(self, run: Any) -> _Span:
        """The run's root span; for a run without calls (the application's own
        events), the last run's."""
        root = self.roots.get(run)
        return root.span if root is not None else list(self.roots.values())[-1].span

    def _add_agent_totals(self) -> None:
        """An agent span's model and provider (its first call's) and its calls'
        token totals, as the adapter puts a turn's on its ``invoke_agent`` span."""
        per_agent: dict[int, tuple[_Span, list[ModelCall]]] = {}
        for span in self.spans:
            agent = span
            while agent is not None and \
                    agent.attributes.get(GEN_AI_OPERATION_NAME) != OPERATION_INVOKE_AGENT:
                agent = agent.parent
            if agent is not None and span.calls:
                per_agent.setdefault(id(agent), (agent, []))[1].extend(span.calls)
        for agent, calls in per_agent.values():
            calls.sort(key=lambda c: c.id)
            first = calls[0]
            if first.provider is not None:
                agent.attributes.setdefault(GEN_AI_PROVIDER_NAME, first.provider)
            if first.model is not None:
                agent.attributes.setdefault(GEN_AI_REQUEST_MODEL, first.model)
            for key, index in ((GEN_AI_USAGE_INPUT_TOKENS, 0),
                               (GEN_AI_USAGE_OUTPUT_TOKENS, 1)):
                counts = [c.tokens[index] for c in calls if c.tokens[index] is not None]
                if counts:
                    agent.attributes[key] = _integral(sum(counts))


def _scope_kinds(open_run: OpenRun) -> dict[tuple[str, ...], tuple[str | None, str | None]]:
    """Each scope of the run's composition tree (rooted path) with its kind and name,
    as the lens projection read them from the boundary log."""
    steps = open_run.projection("lens").steps
    infos = steps.scope_infos() if hasattr(steps, "scope_infos") else {}
    return {path: (info.kind, info.name) for path, info in infos.items()}


def _tool_position(tool: ToolCall, calls: tuple[ModelCall, ...]) -> int:
    """Where a tool call sits in the event order: its start, else its asker's."""
    if tool.start_event_index is not None:
        return tool.start_event_index
    if tool.end_event_index is not None:
        return tool.end_event_index
    if tool.requested_by is not None:
        return calls[tool.requested_by].start_event_index
    return 1 << 62


def _scope_span_name(kind: str | None, name: str) -> str:
    if kind == AGENT:
        return _joined(OPERATION_INVOKE_AGENT + " ", name)
    return _joined(f"{_PRIMITIVE.get(kind or '', 'scope')} ", name)


def _scope_attributes(kind: str | None, name: str, path: tuple[str, ...],
                      run: Any) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    if kind == AGENT:
        attributes.update({GEN_AI_OPERATION_NAME: OPERATION_INVOKE_AGENT, GEN_AI_AGENT_NAME: name})
    else:
        attributes[OPENINFERENCE_SPAN_KIND] = OPENINFERENCE_CHAIN
    if kind is not None:
        attributes[AGENTFOOTPRINT_SCOPE_KIND] = _PRIMITIVE.get(kind, kind)
    attributes[AGENTFOOTPRINT_SCOPE_NAME] = name
    if path:
        attributes[AGENTFOOTPRINT_SCOPE_PATH] = list(path)
    if isinstance(run, str):
        attributes[AGENTFOOTPRINT_RUN_ID] = run
    return attributes


def _call_attributes(call: ModelCall) -> dict[str, Any]:
    attributes: dict[str, Any] = {GEN_AI_OPERATION_NAME: OPERATION_CHAT}
    if call.model is not None:
        attributes[GEN_AI_REQUEST_MODEL] = call.model
    if call.provider is not None:
        attributes[GEN_AI_PROVIDER_NAME] = call.provider
        attributes[GEN_AI_SYSTEM] = call.provider
    tokens_in, tokens_out = call.tokens
    if tokens_in is not None:
        attributes[GEN_AI_USAGE_INPUT_TOKENS] = _integral(tokens_in)
    if tokens_out is not None:
        attributes[GEN_AI_USAGE_OUTPUT_TOKENS] = _integral(tokens_out)
    if isinstance(call.usage, Mapping):
        for key, keys in ((GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, _CACHE_READ_KEYS),
                          (GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, _CACHE_WRITE_KEYS)):
            value = next((call.usage[k] for k in keys if is_number(call.usage.get(k))), None)
            if value is not None:
                attributes[key] = _integral(value)
    if call.stop_reason is not None:
        attributes[GEN_AI_RESPONSE_FINISH_REASONS] = [call.stop_reason]
    if call.iteration is not None:
        attributes[AGENTFOOTPRINT_ITERATION_INDEX] = call.iteration
    if call.tool_call_count is not None:
        attributes[AGENTFOOTPRINT_TOOL_CALL_COUNT] = _integral(call.tool_call_count)
    if call.runtime_stage_id is not None:
        attributes[AGENTFOOTPRINT_RUNTIME_STAGE_ID] = call.runtime_stage_id
    return attributes


def _call_contents(call: ModelCall, tools: tuple[ToolCall, ...]) -> dict[str, Any]:
    """The opt-in content attributes of a model call, in the conventions' JSON shapes."""
    attributes: dict[str, Any] = {}
    system = call.slots.get(SYSTEM_PROMPT)
    if system is not None:
        parts = [{"type": "text", "content": piece.content} for piece in system.pieces
                 if piece.content is not None]
        if parts:
            attributes[GEN_AI_SYSTEM_INSTRUCTIONS] = _text(parts)
    messages = call.slots.get(MESSAGES)
    if messages is not None:
        served = []
        for piece in messages.pieces:
            if piece.content is None:
                continue
            role = piece.role or ("tool" if piece.is_tool_result else piece.source or "user")
            if piece.is_tool_result:
                part = {"type": "tool_call_response", "id": piece.source_id,
                        "response": piece.content}
            else:
                part = {"type": "text", "content": piece.content}
            served.append({"role": role, "parts": [part]})
        if served:
            attributes[GEN_AI_INPUT_MESSAGES] = _text(served)
    elif call.user_prompt is not None:
        attributes[GEN_AI_INPUT_MESSAGES] = _text(
            [{"role": "user", "parts": [{"type": "text", "content": call.user_prompt}]}])
    if call.ended:
        parts: list[dict[str, Any]] = []
        if call.output:
            parts.append({"type": "text", "content": call.output})
        for tool_id in call.tool_calls:
            tool = tools[tool_id]
            parts.append({"type": "tool_call", "id": tool.tool_call_id, "name": tool.name,
                          "arguments": tool.args})
        message: dict[str, Any] = {"role": "assistant", "parts": parts}
        if call.stop_reason is not None:
            message["finish_reason"] = call.stop_reason
        attributes[GEN_AI_OUTPUT_MESSAGES] = _text([message])
    return attributes


# ─── Times ─────────────────────────────────────────────────────────────


def _settle_times(spans: list[_Span]) -> None:
    """Give every span a start and an end: a container spans what it holds; a
    time the recording lacks is its parent's (said in ``agentfootprint.time.unrecorded``)."""
    for span in reversed(spans):  # children before parents
        parent = span.parent
        if parent is None:
            continue
        for ms in (span.start_ms, span.end_ms):
            if ms is None:
                continue
            if parent.start_ms is None or ms < parent.start_ms:
                parent.start_ms = ms
            if parent.end_ms is None or ms > parent.end_ms:
                parent.end_ms = ms
    known = [ms for span in spans for ms in (span.start_ms, span.end_ms) if ms is not None]
    known += [ts for span in spans for _, ts, _ in span.events if ts is not None]
    fallback = min(known) if known else 0.0
    for span in spans:  # parents before children
        if span.start_ms is None:
            span.unrecorded.append("start")
            span.start_ms = span.parent.start_ms if span.parent is not None else fallback
        if span.end_ms is None:
            span.unrecorded.append("end")
            span.end_ms = span.start_ms
        if span.end_ms < span.start_ms:
            span.end_ms = span.start_ms
        if any(_within_otlp(ms) != ms for ms in (span.start_ms, span.end_ms)):
            # A recorded time OTLP cannot carry (before 1970, after 2554).
            span.attributes[AGENTFOOTPRINT_TIME_CLAMPED] = True
        if span.unrecorded:
            span.attributes[AGENTFOOTPRINT_TIME_UNRECORDED] = list(span.unrecorded)


def _unix_nano(ms: float) -> str:
    """Epoch milliseconds as the decimal string of epoch nanoseconds (exact for
    whole milliseconds, to the nanosecond otherwise), within what OTLP's
    unsigned 64-bit field holds."""
    ms = _within_otlp(ms)
    whole = int(ms)
    return str(min(whole * 1_000_000 + round((ms - whole) * 1_000_000), _MAX_NANOS))


_MAX_NANOS = 2**64 - 1
_MAX_MS = _MAX_NANOS // 1_000_000


def _within_otlp(ms: float) -> float:
    return min(max(ms, 0), _MAX_MS)


# ─── The wire form ─────────────────────────────────────────────────────


def _wire(open_run: OpenRun, spans: list[_Span],
          long: list[tuple[dict[str, Any], str]]) -> dict[str, Any]:
    """The OTLP/JSON body of ``spans``; each place of a text longer than
    :data:`CUT_CHARS` (its holder and key) is added to ``long``."""
    trace_id = _hex_id(f"trace|{_trace_seed(open_run)}", 16)
    ids = {id(span): _hex_id(f"{trace_id}|{span.key}", 8) for span in spans}
    wire_spans = []
    for span in spans:
        wire: dict[str, Any] = {"traceId": trace_id, "spanId": ids[id(span)]}
        if span.parent is not None:
            wire["parentSpanId"] = ids[id(span.parent)]
        wire.update({"name": _noted(span.name, wire, "name", long), "kind": span.kind,
                     "startTimeUnixNano": _unix_nano(span.start_ms),
                     "endTimeUnixNano": _unix_nano(span.end_ms),
                     "attributes": _key_values(span.attributes, long)})
        if span.events:
            events = sorted(span.events, key=lambda e: e[1] if e[1] is not None else span.end_ms)
            wire["events"] = []
            for name, ts, attributes in events:
                event = {"timeUnixNano": _unix_nano(ts if ts is not None else span.end_ms)}
                event["name"] = _noted(name, event, "name", long)
                event["attributes"] = _key_values(attributes, long)
                wire["events"].append(event)
        if span.error is not None:
            status: dict[str, Any] = {"code": STATUS_ERROR}
            status["message"] = _noted(span.error, status, "message", long)
            wire["status"] = status
        wire_spans.append(wire)
    resource = {SERVICE_NAME: _service_name(spans),
                AGENTFOOTPRINT_RUN_ID: open_run.run_id,
                TELEMETRY_SDK_NAME: SCOPE_NAME}
    producer = open_run.recording.producer
    if isinstance(producer, Mapping) and isinstance(producer.get("agentfootprintVersion"), str):
        resource[AGENTFOOTPRINT_VERSION] = producer["agentfootprintVersion"]
    return {"resourceSpans": [{
        "resource": {"attributes": _key_values(resource, long)},
        "scopeSpans": [{"scope": {"name": SCOPE_NAME, "version": _version()},
                        "spans": wire_spans}],
    }]}


def _trace_seed(open_run: OpenRun) -> str:
    recording = open_run.recording
    return (f"{open_run.run_id}|{len(recording.typed_events)}|"
            f"{len(recording.boundary_events)}")


def _service_name(spans: list[_Span]) -> str:
    for span in spans:
        if span.parent is None:
            name = span.attributes.get(AGENTFOOTPRINT_SCOPE_NAME, DEFAULT_SERVICE_NAME)
            return name if isinstance(name, str) else str(name)
    return DEFAULT_SERVICE_NAME


def _hex_id(seed: str, size: int) -> str:
    digest = hashlib.sha256(seed.encode("utf-8", "surrogatepass")).digest()[:size]
    if not any(digest):  # an all-zero id is invalid in OTLP
        digest = b"\x01" + digest[1:]
    return digest.hex()


def _noted(text: Any, holder: dict[str, Any], key: str,
           long: list[tuple[dict[str, Any], str]]) -> Any:
    """``text``, its place noted in ``long`` when it is a text longer than :data:`CUT_CHARS`."""
    if isinstance(text, str) and len(text) > CUT_CHARS:
        long.append((holder, key))
    return text


def _key_values(attributes: Mapping[str, Any],
                long: list[tuple[dict[str, Any], str]]) -> list[dict[str, Any]]:
    return [{"key": key, "value": _any_value(value, long)} for key, value in attributes.items()]


def _any_value(value: Any, long: list[tuple[dict[str, Any], str]]) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        if -2**63 <= value < 2**63:
            return {"intValue": str(value)}
        return {"stringValue": str(value)}  # past int64: the recorded digits
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [_any_value(item, long) for item in value]}}
    text = value if isinstance(value, str) else _text(value)
    wire = {"stringValue": text}
    if len(text) > CUT_CHARS:
        long.append((wire, "stringValue"))
    return wire


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("footprint-lens")
    except PackageNotFoundError:
        return "unknown"


# ─── Cutting and masking ───────────────────────────────────────────────

# Wire fields that are not text of the run: ids, times, enums, attribute keys.
_NOT_TEXT = frozenset({"traceId", "spanId", "parentSpanId", "startTimeUnixNano",
                       "endTimeUnixNano", "timeUnixNano", "key", "kind", "code", "intValue"})


def _finished(document: dict[str, Any], redactor: Any,
              long: list[tuple[dict[str, Any], str]]) -> dict[str, Any]:
    """``document`` with every text of the run at most :data:`CUT_CHARS`
    characters (a longer one ends in :data:`CUT_MARKER`, which says its whole
    length) and, with a ``redactor``, masked in one call to it (so one value
    gets one mask throughout the document). Ids, times, enums and attribute
    keys are the export's own, not text of the run.

    A text is masked before it is cut, over its first :data:`_WINDOW_CHARS`
    characters: a secret of up to :data:`GUARD_CHARS` characters that starts
    before the cut is seen whole, and what is kept of a text ends where the
    masked window stops matching the original past the cut (a mask reaching
    over the cut is kept, never the part of a secret it stands for).

    ``long``: the places of the texts longer than :data:`CUT_CHARS`, which are
    all there is to do without a redactor."""
    if redactor is None:
        for holder, key in long:
            text = holder[key]
            length = text.length if isinstance(text, _Cut) else len(text)
            holder[key] = text[:CUT_CHARS] + CUT_MARKER.format(length=length, kept=CUT_CHARS)
        return document
    places: list[tuple[Any, Any]] = []

    def collect(value: Any) -> None:
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(item, str):
                if key not in _NOT_TEXT:
                    places.append((value, key))
            elif isinstance(item, (dict, list)):
                collect(item)

    collect(document)
    texts = [holder[key] for holder, key in places]
    lengths = [text.length if isinstance(text, _Cut) else len(text) for text in texts]
    windows = [text[:_WINDOW_CHARS] for text in texts]
    masked, _ = redactor.redact_texts(windows)
    for (holder, key), length, window, text in zip(places, lengths, windows, masked):
        if length > CUT_CHARS:
            text = _before_the_cut(text, window[CUT_CHARS:])
            text = text[:CUT_CHARS] + CUT_MARKER.format(length=length, kept=CUT_CHARS)
        holder[key] = text
    return document


def _before_the_cut(masked: str, past: str) -> str:
    """The masked window of a text less the end it shares with ``past``, the
    window's original characters past the cut: those stand as they were, so
    nothing of a secret is in them; what is left holds the masked text up to
    the cut, and any mask that reaches over it."""
    low, high = 0, len(past)  # the shortest end of ``past`` that ``masked`` ends with
    while low < high:
        middle = (low + high) // 2
        if masked.endswith(past[middle:]):
            high = middle
        else:
            low = middle + 1
    return masked[:len(masked) - (len(past) - low)]


# ─── Bounded texts ─────────────────────────────────────────────────────

# A text of the document (an attribute value, a name, a status message) keeps
# this many characters, as the HTML export keeps a recorded value
# (lens.share.html.WHOLE_TEXT_CHARS); past it, the marker says how long it was.
CUT_CHARS = 100_000
# With a redactor, a cut text is masked over this many characters more than it
# keeps, so a secret up to this long that the cut would split is seen whole.
GUARD_CHARS = 65_536
_WINDOW_CHARS = CUT_CHARS + GUARD_CHARS
CUT_MARKER = "… ⟨cut: the recorded text is {length:,} characters; the first {kept:,} are here⟩"


class _Cut(str):
    """The first characters of a longer text (at least the window), and the
    whole text's length in characters (:attr:`length`)."""

    length: int

    def __new__(cls, window: str, length: int) -> _Cut:
        cut = super().__new__(cls, window)
        cut.length = length
        return cut


def _window(text: Any) -> Any:
    """``text``, or its first :data:`_WINDOW_CHARS` characters as a :class:`_Cut`
    when it is a longer string (another value as it is)."""
    if not isinstance(text, str) or len(text) <= _WINDOW_CHARS or isinstance(text, _Cut):
        return text
    return _Cut(text[:_WINDOW_CHARS], len(text))


def _joined(head: str, text: Any) -> str:
    """``head + text`` (``str`` of another value), its whole length kept when
    ``text`` is a :class:`_Cut`."""
    if isinstance(text, _Cut):
        return _Cut(head + text, len(head) + text.length)
    return _window(head + (text if isinstance(text, str) else str(text)))


def _text(value: Any) -> str:
    """A recorded value as text, as :func:`recorders.values.json_text` writes it
    (strings as they are, anything else as JSON), but at most the window of it:
    a value whose JSON is longer is never written whole. Its length is measured
    over its objects, each shared object once (a packed recording's value
    referred to from a million places is one object), and the window written
    from the start, so the work follows the window and the value's distinct
    objects, not the size of the text it stands for."""
    if isinstance(value, str):
        return _window(value)
    try:
        length = json_length(value)
    except (TypeError, ValueError):  # a cycle, a key JSON cannot write: json_text says it
        return _window(json_text(value))
    if length <= _WINDOW_CHARS:
        return json_text(value)
    return _Cut(json_start(value, _WINDOW_CHARS), length)


# ─── Small helpers ─────────────────────────────────────────────────────


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _integral(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def _bounded_list(items: Iterable[str], count: int) -> list[str]:
    """The first :data:`MAX_LIST_ITEMS` of ``count`` items, and how many more there are."""
    kept = list(itertools.islice(items, MAX_LIST_ITEMS))
    if count > MAX_LIST_ITEMS:
        kept.append(f"…+{count - MAX_LIST_ITEMS} more")
    return kept


@lru_cache(maxsize=1024)
def _snake(name: str) -> str:
    """``tellLLM`` → ``tell_llm``, ``policyRuleId`` → ``policy_rule_id``."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()

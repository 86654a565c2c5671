"""Every typed event type agentfootprint 9.62 declares, in one table.

Owns: the vocabulary of the typed stream. For each of the 107 types: its
family, what it means in plain words, the payload fields 9.62 declares for it
(name, rough shape, whether it is always there, the closed set of values where
the declaration has one), which of those fields explain the event to a person,
and whether the event is a *verdict* (something failed, was refused, cut
short, guarded or flagged), a *warning* or *context* — with the payload values
that turn an ordinary event into a verdict or a warning (a permission check
that denied, a tool call that raised). Also the named constant of every type,
so no other module spells an ``agentfootprint.…`` string of its own, and
lookups by name and by family.

Does not own: reading events (the loader, the evidence index and the recorders
do), how a view shows them, or the boundary log's DomainEvent types
(:mod:`recorders.event_types`).

Ported from the payload declarations of agentfootprint v9.62.0
(``src/events/registry.ts`` and ``src/events/payloads.ts`` at commit
6dda53a444babe0ca655a155ab0ce718ba464f65); the meanings are written here, not
copied. Families follow the framework's own grouping: mostly its name domain
(``tools.*``, ``memory.*``), and where the framework groups across domains
this table does too: extended thinking (``stream.thinking_*`` with
``agent.thinking_parse_failed``), the output guards (``agent.output_*``,
``agent.evidence_checked``, ``validation.*``, ``risk.*``), recovery
(``error.*`` retries and the circuit breaker, ``reliability.*``,
``resilience.*``, ``fallback.*``) and budgets (``agent.budget_exhausted`` beside
``cost.limit_hit``, which the framework fires together).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

PREFIX = "agentfootprint."

# ─── Kinds ─────────────────────────────────────────────────────────────
VERDICT = "verdict"  # something failed, was refused, cut short, guarded or flagged
WARNING = "warning"  # the run went on, but not as asked (a retry, an eviction, a shadow)
CONTEXT = "context"  # what happened, neither good nor bad in itself
KINDS = (VERDICT, WARNING, CONTEXT)

# ─── Payload field shapes (JSON, roughly) ──────────────────────────────
TEXT, NUMBER, FLAG, LIST, RECORD, ANY = "text", "number", "flag", "list", "record", "any"
SHAPES = (TEXT, NUMBER, FLAG, LIST, RECORD, ANY)

# ─── Families ──────────────────────────────────────────────────────────
COMPOSITION = "composition"
AGENT = "agent"
STREAM = "stream"
THINKING = "thinking"
CONTEXT_FAMILY = "context"
MEMORY = "memory"
EMBEDDING = "embedding"
TOOLS = "tools"
SKILLS = "skills"
MAPS = "maps"
GUARD = "guard"
RECOVERY = "recovery"
ERROR = "error"
PERMISSION = "permission"
MIDDLEWARE = "middleware"
PAUSE = "pause"
CHECKIN = "checkin"
CREDENTIAL = "credential"
COST = "cost"
BUDGET = "budget"
EVAL = "eval"
INTEGRITY = "integrity"
ARTIFACTS = "artifacts"

# ─── Type names ────────────────────────────────────────────────────────
# composition.*
COMPOSITION_ENTER = "agentfootprint.composition.enter"
COMPOSITION_EXIT = "agentfootprint.composition.exit"
COMPOSITION_FORK_START = "agentfootprint.composition.fork_start"
COMPOSITION_BRANCH_COMPLETE = "agentfootprint.composition.branch_complete"
COMPOSITION_MERGE_END = "agentfootprint.composition.merge_end"
COMPOSITION_ROUTE_DECIDED = "agentfootprint.composition.route_decided"
COMPOSITION_ITERATION_START = "agentfootprint.composition.iteration_start"
COMPOSITION_ITERATION_EXIT = "agentfootprint.composition.iteration_exit"
# agent.*
AGENT_TURN_START = "agentfootprint.agent.turn_start"
AGENT_TURN_END = "agentfootprint.agent.turn_end"
AGENT_ITERATION_START = "agentfootprint.agent.iteration_start"
AGENT_ITERATION_END = "agentfootprint.agent.iteration_end"
AGENT_ROUTE_DECIDED = "agentfootprint.agent.route_decided"
AGENT_HANDOFF = "agentfootprint.agent.handoff"
AGENT_OUTPUT_SCHEMA_VALIDATION_FAILED = "agentfootprint.agent.output_schema_validation_failed"
AGENT_OUTPUT_SCHEMA_RETRY = "agentfootprint.agent.output_schema_retry"
AGENT_OUTPUT_CONTRACT_UNMET = "agentfootprint.agent.output_contract_unmet"
AGENT_EVIDENCE_CHECKED = "agentfootprint.agent.evidence_checked"
AGENT_RUN_CONFIGURED = "agentfootprint.agent.run_configured"
AGENT_THINKING_PARSE_FAILED = "agentfootprint.agent.thinking_parse_failed"
AGENT_BUDGET_EXHAUSTED = "agentfootprint.agent.budget_exhausted"
# stream.*
LLM_START = "agentfootprint.stream.llm_start"
LLM_END = "agentfootprint.stream.llm_end"
LLM_TOKEN = "agentfootprint.stream.token"
TOOL_START = "agentfootprint.stream.tool_start"
TOOL_PROGRESS = "agentfootprint.stream.tool_progress"
TOOL_END = "agentfootprint.stream.tool_end"
THINKING_DELTA = "agentfootprint.stream.thinking_delta"
THINKING_END = "agentfootprint.stream.thinking_end"
# context.*
CONTEXT_INJECTED = "agentfootprint.context.injected"
CONTEXT_EVICTED = "agentfootprint.context.evicted"
CONTEXT_SLOT_COMPOSED = "agentfootprint.context.slot_composed"
CONTEXT_BUDGET_PRESSURE = "agentfootprint.context.budget_pressure"
CONTEXT_EVALUATED = "agentfootprint.context.evaluated"
# memory.*
MEMORY_STRATEGY_APPLIED = "agentfootprint.memory.strategy_applied"
MEMORY_ATTACHED = "agentfootprint.memory.attached"
MEMORY_RETRIEVED = "agentfootprint.memory.retrieved"
MEMORY_DETACHED = "agentfootprint.memory.detached"
MEMORY_WRITTEN = "agentfootprint.memory.written"
# tools.*
TOOLS_OFFERED = "agentfootprint.tools.offered"
TOOLS_ACTIVATED = "agentfootprint.tools.activated"
TOOLS_DEACTIVATED = "agentfootprint.tools.deactivated"
TOOLS_DISCOVERY_STARTED = "agentfootprint.tools.discovery_started"
TOOLS_DISCOVERY_COMPLETED = "agentfootprint.tools.discovery_completed"
TOOLS_DISCOVERY_FAILED = "agentfootprint.tools.discovery_failed"
TOOLS_SHADOWED = "agentfootprint.tools.shadowed"
TOOLS_SESSION_STARTED = "agentfootprint.tools.session_started"
TOOLS_SESSION_REUSED = "agentfootprint.tools.session_reused"
TOOLS_SESSION_CLOSED = "agentfootprint.tools.session_closed"
TOOLS_SESSION_CLOSE_FAILED = "agentfootprint.tools.session_close_failed"
TOOLS_EFFECT = "agentfootprint.tools.effect"
TOOLS_RESULT_REFUSED = "agentfootprint.tools.result_refused"
TOOLS_REPEATED_CALL = "agentfootprint.tools.repeated_call"
TOOLS_ABSENT = "agentfootprint.tools.absent"
TOOLS_CODE_RUN = "agentfootprint.tools.code_run"
TOOLS_COVERAGE_DECLARED = "agentfootprint.tools.coverage_declared"
TOOLS_SEMANTICS_DECLARED = "agentfootprint.tools.semantics_declared"
# validation.*
VALIDATION_ARGS_INVALID = "agentfootprint.validation.args_invalid"
# skill.*
SKILL_ACTIVATED = "agentfootprint.skill.activated"
SKILL_GRAPH_DECLARED = "agentfootprint.skill.graph_declared"
SKILL_DEACTIVATED = "agentfootprint.skill.deactivated"
SKILL_REJECTED = "agentfootprint.skill.rejected"
SKILL_REROUTE_SUPERSEDED = "agentfootprint.skill.reroute_superseded"
SKILL_ROUTE_CONFLICT = "agentfootprint.skill.route_conflict"
SKILL_TURN_ROUTED = "agentfootprint.skill.turn_routed"
SKILL_STEP_ADVANCED = "agentfootprint.skill.step_advanced"
SKILL_STEP_SKIPPED = "agentfootprint.skill.step_skipped"
SKILL_STEPS_UNFINISHED = "agentfootprint.skill.steps_unfinished"
SKILL_ESCALATED = "agentfootprint.skill.escalated"
# map.*
MAP_ENGAGED = "agentfootprint.map.engaged"
MAP_PARKED = "agentfootprint.map.parked"
# integrity.*
INTEGRITY_CONTEXT_ERROR = "agentfootprint.integrity.context_error"
INTEGRITY_DISPOSITION = "agentfootprint.integrity.disposition"
# permission.*
PERMISSION_CHECK = "agentfootprint.permission.check"
PERMISSION_GATE_OPENED = "agentfootprint.permission.gate_opened"
PERMISSION_GATE_CLOSED = "agentfootprint.permission.gate_closed"
PERMISSION_HALT = "agentfootprint.permission.halt"
# credential.*
CREDENTIAL_REQUESTED = "agentfootprint.credential.requested"
CREDENTIAL_ACQUIRED = "agentfootprint.credential.acquired"
CREDENTIAL_AUTHORIZATION_REQUIRED = "agentfootprint.credential.authorization_required"
CREDENTIAL_FAILED = "agentfootprint.credential.failed"
# risk.*, fallback.*
RISK_FLAGGED = "agentfootprint.risk.flagged"
FALLBACK_TRIGGERED = "agentfootprint.fallback.triggered"
# cost.*
COST_TICK = "agentfootprint.cost.tick"
COST_LIMIT_HIT = "agentfootprint.cost.limit_hit"
# eval.*
EVAL_SCORE = "agentfootprint.eval.score"
EVAL_THRESHOLD_CROSSED = "agentfootprint.eval.threshold_crossed"
# error.*
ERROR_RETRIED = "agentfootprint.error.retried"
ERROR_RECOVERED = "agentfootprint.error.recovered"
ERROR_FATAL = "agentfootprint.error.fatal"
ERROR_CIRCUIT_CHANGED = "agentfootprint.error.circuit_changed"
# reliability.*
RELIABILITY_FAIL_FAST = "agentfootprint.reliability.fail_fast"
RELIABILITY_RETRIED = "agentfootprint.reliability.retried"
RELIABILITY_RECOVERED = "agentfootprint.reliability.recovered"
# resilience.*
RESILIENCE_OUTPUT_FALLBACK_TRIGGERED = "agentfootprint.resilience.output_fallback_triggered"
RESILIENCE_OUTPUT_CANNED_USED = "agentfootprint.resilience.output_canned_used"
# pause.*, checkin.*
PAUSE_REQUEST = "agentfootprint.pause.request"
PAUSE_RESUME = "agentfootprint.pause.resume"
CHECKIN_REQUEST = "agentfootprint.checkin.request"
CHECKIN_DECISION = "agentfootprint.checkin.decision"
# middleware.*, embedding.*
MIDDLEWARE_DECISION = "agentfootprint.middleware.decision"
EMBEDDING_GENERATED = "agentfootprint.embedding.generated"
# artifacts.*
ARTIFACTS_MINTED = "agentfootprint.artifacts.minted"
ARTIFACTS_RESOLVED = "agentfootprint.artifacts.resolved"
ARTIFACTS_EXPIRED = "agentfootprint.artifacts.expired"
ARTIFACTS_REFUSED = "agentfootprint.artifacts.refused"
ARTIFACTS_PRESENTED = "agentfootprint.artifacts.presented"

# A rule value that matches whenever the field is there at all.
PRESENT = "*"


@dataclass(frozen=True, slots=True)
class PayloadField:
    """One field 9.62 declares on a payload: its name as declared, its rough JSON
    shape, whether the framework always writes it, and its closed set of values
    (empty when the declaration allows any value of the shape)."""

    name: str
    shape: str
    required: bool
    choices: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class KindRule:
    """A payload that makes an event of this type a different kind: the field
    holds one of ``values`` (or is there at all, for :data:`PRESENT`)."""

    field: str
    values: tuple[Any, ...]
    kind: str

    def matches(self, payload: Mapping[str, Any]) -> bool:
        if self.field not in payload:
            return False
        if self.values == (PRESENT,):
            return True
        value = payload[self.field]
        # True == 1 in Python; a flag rule must not match a count of 1.
        return any(value == wanted and type(value) is type(wanted) for wanted in self.values)


@dataclass(frozen=True, slots=True)
class EventType:
    """One typed event type: see the module doc."""

    name: str
    family: str
    kind: str  # what an event of this type is when no rule below says otherwise
    meaning: str
    fields: tuple[PayloadField, ...]
    explaining: tuple[str, ...]  # the fields that say why, most telling first
    rules: tuple[KindRule, ...] = ()  # first match wins

    @property
    def short(self) -> str:
        """The name without ``agentfootprint.``: ``stream.llm_start``."""
        return self.name[len(PREFIX):]

    @property
    def domain(self) -> str:
        """The framework's own name domain: ``stream`` of ``stream.thinking_end``."""
        return self.short.partition(".")[0]

    def field(self, name: str) -> PayloadField | None:
        for declared in self.fields:
            if declared.name == name:
                return declared
        return None

    @property
    def may_be_verdict(self) -> bool:
        return self.kind == VERDICT or any(rule.kind == VERDICT for rule in self.rules)

    def kind_of(self, payload: Any) -> str:
        """This event's kind given its payload (a payload that is not an object
        leaves the type's own kind)."""
        if isinstance(payload, Mapping):
            for rule in self.rules:
                if rule.matches(payload):
                    return rule.kind
        return self.kind


def short_name(name: str) -> str:
    """``agentfootprint.context.injected`` → ``context.injected``; other text unchanged."""
    return name[len(PREFIX):] if name.startswith(PREFIX) else name


# ─── The table ─────────────────────────────────────────────────────────
#
# Fields are written ``name:shape``, ``name?:shape`` when the framework may
# leave the field out, and ``name:text=a|b`` for a closed set of values.
# Rules are (field, values, kind); values are written as in a field's set,
# ``true``/``false`` for flags and ``*`` for "the field is there".

def _value(text: str) -> Any:
    return {"true": True, "false": False}.get(text, text)


def _fields(spec: str) -> tuple[PayloadField, ...]:
    fields = []
    for item in spec.split():
        name, _, rest = item.partition(":")
        shape, _, choices = rest.partition("=")
        optional = name.endswith("?")
        fields.append(PayloadField(name.rstrip("?"), shape, not optional,
                                   tuple(_value(c) for c in choices.split("|")) if choices else ()))
    return tuple(fields)


def _rules(*rules: tuple[str, str, str]) -> tuple[KindRule, ...]:
    return tuple(KindRule(field, tuple(_value(v) for v in values.split("|")), kind)
                 for field, values, kind in rules)


_TABLE: list[EventType] = []


def _declare(name: str, family: str, kind: str, meaning: str, fields: str, explains: str,
             *rules: tuple[str, str, str]) -> None:
    _TABLE.append(EventType(name, family, kind, meaning, _fields(fields), tuple(explains.split()),
                            _rules(*rules)))


_COMPOSITION_KINDS = "Sequence|Parallel|Conditional|Loop"
_VALIDATION_STAGES = "json-parse|schema-validate"
_TOOL_RESULT_STATUSES = "success|failure|denied|invalid|partial|pending|absent"
_SLOTS = "system-prompt|messages|tools"
_SESSION_SCOPES = "call|run|session|shutdown"
_SESSION_CLOSE_REASONS = "call-end|run-end|session-end|shutdown|idle|evicted"
_MAP_EVIDENCE = "explicit|structural|semantic|lexical|assumed"
_SESSION_FIELDS = (f"tool:text scope:text={_SESSION_SCOPES} keyHash:text runnerId?:text "
                   "label?:text")

# composition.*
_declare(COMPOSITION_ENTER, COMPOSITION, CONTEXT,
         "A Sequence, Parallel, Conditional or Loop began running its children.",
         f"kind:text={_COMPOSITION_KINDS} id:text name:text childCount:number",
         "name kind childCount")
_declare(COMPOSITION_EXIT, COMPOSITION, CONTEXT,
         "A composition finished: how it ended (normally, with an error, by a break, or out of "
         "budget) and how long it took.",
         f"kind:text={_COMPOSITION_KINDS} id:text name?:text "
         "status:text=ok|err|break|budget_exhausted durationMs:number",
         "status name durationMs",
         ("status", "err|budget_exhausted", VERDICT))
_declare(COMPOSITION_FORK_START, COMPOSITION, CONTEXT,
         "A Parallel started its branches at once.",
         "parentId:text branches:list",
         "branches")
_declare(COMPOSITION_BRANCH_COMPLETE, COMPOSITION, CONTEXT,
         "One branch of a Parallel finished, well or with an error.",
         "parentId:text branchId:text status:text=ok|err durationMs:number",
         "branchId status",
         ("status", "err", VERDICT))
_declare(COMPOSITION_MERGE_END, COMPOSITION, CONTEXT,
         "A Parallel merged its branches' results; how many of them fed the merge and how.",
         "parentId:text strategy:text=llm|fn|outcomes-fn resultSummary:text "
         "mergedBranchCount:number totalBranchCount:number",
         "mergedBranchCount totalBranchCount strategy resultSummary")
_declare(COMPOSITION_ROUTE_DECIDED, COMPOSITION, CONTEXT,
         "A Conditional chose which child runs, and why.",
         "conditionalId:text chosen:text rationale?:text evidence?:any",
         "chosen rationale evidence")
_declare(COMPOSITION_ITERATION_START, COMPOSITION, CONTEXT,
         "A Loop began one pass over its body.",
         "loopId:text iteration:number",
         "iteration")
_declare(COMPOSITION_ITERATION_EXIT, COMPOSITION, CONTEXT,
         "A Loop stopped: its guard said no, its body broke out, it ran its passes, or its "
         "budget of passes ran out while the guard still wanted more.",
         "loopId:text iteration:number reason:text=budget|guard_false|break|body_complete",
         "reason iteration",
         ("reason", "budget", VERDICT))

# agent.*
_declare(AGENT_TURN_START, AGENT, CONTEXT,
         "An agent took a user's message and began a turn.",
         "turnIndex:number userPrompt:text",
         "userPrompt")
_declare(AGENT_TURN_END, AGENT, CONTEXT,
         "An agent finished a turn with its answer, the tokens it spent and its number of model "
         "calls; when a limit stopped it first, the answer may be a fragment and says so.",
         "turnIndex:number finalContent:text totalInputTokens:number totalOutputTokens:number "
         "iterationCount:number durationMs:number stoppedEarly?:record",
         "finalContent stoppedEarly",
         ("stoppedEarly", PRESENT, VERDICT))
_declare(AGENT_ITERATION_START, AGENT, CONTEXT,
         "An agent began one pass of its model-and-tools loop.",
         "turnIndex:number iterIndex:number",
         "iterIndex")
_declare(AGENT_ITERATION_END, AGENT, CONTEXT,
         "An agent finished one pass of its loop, with how many tool calls it made.",
         "turnIndex:number iterIndex:number toolCallCount:number history?:list",
         "toolCallCount")
_declare(AGENT_ROUTE_DECIDED, AGENT, CONTEXT,
         "After a model call the agent chose what to do next: run the tools asked for, answer, "
         "or go round again because the answer missed its schema, skipped steps, stated "
         "unsupported values or ran out of passes.",
         "turnIndex:number iterIndex:number "
         "chosen:text=tool-calls|final|output-retry|step-nudge|evidence-recheck|wrap-up "
         "rationale?:text",
         "chosen rationale",
         ("chosen", "output-retry|step-nudge|evidence-recheck|wrap-up", WARNING))
_declare(AGENT_HANDOFF, AGENT, CONTEXT,
         "One agent handed the conversation to another.",
         "fromAgentId:text toAgentId:text reason?:text viaProtocol?:text=native|mcp|http",
         "fromAgentId toAgentId reason")
_declare(AGENT_OUTPUT_SCHEMA_VALIDATION_FAILED, GUARD, VERDICT,
         "The agent's final answer did not pass its output schema: not JSON at all, or JSON of "
         "the wrong shape.",
         f"message:text stage:text={_VALIDATION_STAGES} path?:text rawOutput?:text "
         "attempt:number cumulativeRetries:number",
         "message stage path rawOutput attempt")
_declare(AGENT_OUTPUT_SCHEMA_RETRY, GUARD, WARNING,
         "An answer failed the output schema and the agent asked the model again, saying what "
         "was wrong.",
         f"attempt:number retriesRemaining:number iteration:number stage:text={_VALIDATION_STAGES} "
         "error:text path?:text correctiveMessageHash:text",
         "error stage path attempt retriesRemaining")
_declare(AGENT_OUTPUT_CONTRACT_UNMET, GUARD, VERDICT,
         "The run handed back an answer that does not satisfy its own output schema, after the "
         "re-asks it was allowed.",
         f"stage:text={_VALIDATION_STAGES} error:text path?:text attempts:number "
         "retriesSpent:number fallbackConfigured:flag iteration:number brokenBy?:text",
         "error stage path attempts brokenBy fallbackConfigured")
_declare(AGENT_EVIDENCE_CHECKED, GUARD, CONTEXT,
         "The evidence gate looked for every name and number of a would-be answer in the tool "
         "results; the values no tool returned are listed, and what the gate did about them.",
         "iteration:number posture:text=assist|guard|rails candidates:number unsupported:list "
         "action:text=grounded|flagged|revision-asked|refused afterRevision:flag "
         "evidenceTruncated?:flag",
         "action unsupported posture afterRevision",
         ("action", "flagged|refused", VERDICT), ("action", "revision-asked", WARNING))
_declare(AGENT_RUN_CONFIGURED, AGENT, CONTEXT,
         "At the start of a run, what the agent was built with: its model, memories, window, "
         "skill graph, evidence gate, artifact store and recipes, by name.",
         "agentId:text llm:record reactMode:text=classic|dynamic|dynamic-grouped memories:list "
         "window?:text skillGraph?:record evidenceGate?:text=assist|guard|rails "
         "artifacts?:record recipes?:list",
         "agentId llm memories")
_declare(AGENT_THINKING_PARSE_FAILED, THINKING, VERDICT,
         "The model's reasoning could not be read from its response, so it was dropped and the "
         "run went on without it.",
         "providerName:text subflowId:text error:text errorName:text iteration:number",
         "error errorName providerName")
_declare(AGENT_BUDGET_EXHAUSTED, BUDGET, WARNING,
         "A turn ran out of passes or money while the model still wanted tools: either one more "
         "call without tools wrapped it up, or the turn ended on whatever the last call said.",
         "reason:text=max-iterations|cost-budget iteration:number limit?:number "
         "pendingToolCalls:number action:text=wrapped-up|cut-short",
         "action reason limit pendingToolCalls",
         ("action", "cut-short", VERDICT))

# stream.*
_declare(LLM_START, STREAM, CONTEXT,
         "A model call began: the provider and model called, how much it was sent and the tools "
         "it could choose from.",
         "iteration:number provider:text model:text systemPromptChars:number "
         "systemPromptText?:text messagesCount:number toolsCount:number tools?:list "
         "estimatedPromptTokens?:number temperature?:number providerRequestRef?:text "
         "brain?:record",
         "provider model tools brain")
_declare(LLM_END, STREAM, CONTEXT,
         "A model call returned: its text, how many tools it asked for, why it stopped and the "
         "tokens it used.",
         "iteration:number content:text toolCallCount:number usage:record stopReason:text "
         "durationMs:number providerResponseRef?:text",
         "content toolCallCount stopReason usage")
_declare(LLM_TOKEN, STREAM, CONTEXT,
         "One streamed piece of a model call's visible answer.",
         "iteration:number tokenIndex:number content:text",
         "content")
_declare(TOOL_START, STREAM, CONTEXT,
         "A tool call was dispatched with the arguments the model wrote.",
         "toolName:text toolCallId:text args:record parallelCount?:number "
         "protocol?:text=native|mcp|http|python-fn",
         "toolName args")
_declare(TOOL_PROGRESS, STREAM, CONTEXT,
         "A tool still running reported how far it had got (never shown to the model).",
         "toolCallId:text toolName:text iteration:number payload:any",
         "toolName payload")
_declare(TOOL_END, STREAM, CONTEXT,
         "A tool call finished: its result (text or an object), whether it raised, and the "
         "outcome the tool itself declared. It carries no tool name: its toolCallId joins it to "
         "its start.",
         f"toolCallId:text result:any error?:flag durationMs:number "
         f"status?:text={_TOOL_RESULT_STATUSES}",
         "result error status",
         ("error", "true", VERDICT), ("status", "failure|denied|invalid", VERDICT),
         ("status", "partial|pending", WARNING))
_declare(THINKING_DELTA, THINKING, CONTEXT,
         "One streamed piece of the model's reasoning.",
         "iteration:number tokenIndex:number content:text",
         "content")
_declare(THINKING_END, THINKING, CONTEXT,
         "A model call's reasoning, whole: its blocks, their size and the tokens they cost.",
         "iteration:number blockCount:number totalChars:number tokens?:number blocks?:list",
         "blocks blockCount tokens")

# context.*
_declare(CONTEXT_INJECTED, CONTEXT_FAMILY, CONTEXT,
         "One piece of context was put into the next model call's system prompt, messages or "
         "tools, with where it came from and why.",
         f"contentSummary:text contentHash:text rawContent?:text slot:text={_SLOTS} "
         "asRole?:text=system|user|assistant|tool asRecency?:text=latest|earlier "
         "position?:number sectionTag?:text "
         "source:text=rag|skill|memory|instructions|steering|fact|custom|user|tool-result|"
         "assistant|base|registry "
         "sourceId?:text upstreamRef?:text reason:text retrievalScore?:number "
         "rankPosition?:number threshold?:number budgetSpent?:record "
         "expiresAfter?:text=iteration|turn|run|persistent",
         "source reason slot contentSummary retrievalScore")
_declare(CONTEXT_EVICTED, CONTEXT_FAMILY, WARNING,
         "A piece of context was taken out of a slot (over budget, stale, scored low, by policy "
         "or by the user) after living a while.",
         f"slot:text={_SLOTS} contentHash:text "
         "reason:text=budget|stale|low_score|policy|user_revoked survivalMs:number",
         "reason slot contentHash")
_declare(CONTEXT_SLOT_COMPOSED, CONTEXT_FAMILY, CONTEXT,
         "A slot of the next model call was assembled: its budget, what each source "
         "contributed and what was dropped.",
         f"slot:text={_SLOTS} iteration:number budget:record sourceBreakdown:record "
         "orderingStrategy?:text droppedCount:number droppedSummaries:list",
         "droppedCount droppedSummaries budget slot")
_declare(CONTEXT_BUDGET_PRESSURE, CONTEXT_FAMILY, WARNING,
         "A slot or the context window measured over its budget (in characters or tokens), and "
         "what, if anything, was done about it.",
         f"slot:text={_SLOTS} overflowBy:number planAction:text=evict|summarize|abort|none "
         "unit:text=chars|tokens cap:number projected:number",
         "overflowBy unit cap projected planAction")
_declare(CONTEXT_EVALUATED, CONTEXT_FAMILY, CONTEXT,
         "Before a model call, every declared injection and skill was judged: which are active, "
         "which were skipped and why, and how the skill graph's cursor moved.",
         "iteration:number activeCount:number skippedCount:number evaluatedTotal:number "
         "activeIds:list skippedDetails:list triggerKindCounts:record skillCatalog:list "
         "routing?:list cursorMove?:record supersededIds?:list",
         "activeIds skippedDetails cursorMove routing supersededIds")

# memory.*
_declare(MEMORY_STRATEGY_APPLIED, MEMORY, CONTEXT,
         "A memory strategy (a window, a summary, a semantic pick, fact extraction) reshaped "
         "what the agent remembers: what it dropped and what it added.",
         "strategyId:text "
         "strategyKind:text=sliding-window|summarizing|semantic|fact-extraction|hybrid "
         "reason:text scoreEvidence?:record inputMemoryCount:number outputMemoryCount:number "
         "droppedIds:list addedIds:list",
         "strategyKind reason droppedIds addedIds")
_declare(MEMORY_ATTACHED, MEMORY, CONTEXT,
         "One remembered or retrieved entry reached the prompt, with its score and rank.",
         "memoryId:text contentSummary:text score?:number rank?:number "
         "source:text=store|auto-extract|manual "
         "retriever?:text=pinecone|weaviate|qdrant|chroma|custom",
         "memoryId contentSummary score rank")
_declare(MEMORY_RETRIEVED, MEMORY, CONTEXT,
         "A retrieval ran: every candidate it weighed, which were let into the prompt, and why "
         "the others were not.",
         "strategy:text queryHash:text k:number threshold?:number maxChars?:number "
         "charsUsed?:number embedderId?:text dimensions?:number consideredCount:number "
         "admittedCount:number rejectedCount:number candidates?:list candidatesComplete:flag "
         "candidatesOmittedReason?:text corpusEmpty:flag namespace?:text",
         "candidates admittedCount rejectedCount threshold corpusEmpty",
         ("corpusEmpty", "true", WARNING))
_declare(MEMORY_DETACHED, MEMORY, WARNING,
         "A remembered entry was taken out of the prompt (stale, over budget, scored low or by "
         "policy).",
         "memoryId:text reason:text=stale|budget|score_low|policy",
         "memoryId reason")
_declare(MEMORY_WRITTEN, MEMORY, CONTEXT,
         "Something was written to memory for later turns.",
         "memoryId:text contentSummary:text source:text=auto|manual actor?:text",
         "contentSummary memoryId")

# tools.*
_declare(TOOLS_OFFERED, TOOLS, CONTEXT,
         "Which tools the model could use, and which were held back and why.",
         "availableIds:list withheldIds:list withheldReasons:record reason:text",
         "availableIds withheldIds withheldReasons reason")
_declare(TOOLS_ACTIVATED, TOOLS, CONTEXT,
         "A tool became available to the model (a skill was activated, or permission granted).",
         "toolId:text reason:text=skill_activated|autoActivate|permission_granted source?:text",
         "toolId reason")
_declare(TOOLS_DEACTIVATED, TOOLS, CONTEXT,
         "A tool stopped being available to the model.",
         "toolId:text reason:text=skill_deactivated|permission_revoked",
         "toolId reason")
_declare(TOOLS_DISCOVERY_STARTED, TOOLS, CONTEXT,
         "The agent began asking a tool provider (a hub) for its list of tools.",
         "providerId?:text iteration:number",
         "providerId")
_declare(TOOLS_DISCOVERY_COMPLETED, TOOLS, CONTEXT,
         "A tool provider answered with its tools, and how long it took.",
         "providerId?:text iteration:number durationMs:number toolCount:number",
         "toolCount providerId durationMs")
_declare(TOOLS_DISCOVERY_FAILED, TOOLS, VERDICT,
         "A tool provider could not list its tools; the pass was abandoned.",
         "providerId?:text error:text errorName:text iteration:number durationMs:number",
         "error errorName providerId")
_declare(TOOLS_SHADOWED, TOOLS, WARNING,
         "Two sources offer a tool of the same name: the model read one's description while "
         "another's code runs.",
         "toolName:text iteration:number schemaFrom:text=provider|registry|skill "
         "schemaFromId?:text dispatchTo:text=provider|registry|skill dispatchToId?:text",
         "toolName schemaFrom schemaFromId dispatchTo dispatchToId")
_declare(TOOLS_SESSION_STARTED, TOOLS, CONTEXT,
         "A tool opened something that lives across calls (a code interpreter, a browser) and "
         "registered how to close it.",
         _SESSION_FIELDS,
         "tool scope label")
_declare(TOOLS_SESSION_REUSED, TOOLS, CONTEXT,
         "A later call reused a tool session already open, and how many calls have shared it.",
         _SESSION_FIELDS + " calls:number",
         "tool calls label")
_declare(TOOLS_SESSION_CLOSED, TOOLS, CONTEXT,
         "A tool session was closed, and on what occasion.",
         _SESSION_FIELDS + f" reason:text={_SESSION_CLOSE_REASONS} durationMs:number",
         "tool reason label")
_declare(TOOLS_SESSION_CLOSE_FAILED, TOOLS, VERDICT,
         "Closing a tool session failed or took too long: the resource may still be running.",
         _SESSION_FIELDS + f" reason:text={_SESSION_CLOSE_REASONS} durationMs:number "
         "error:text errorClass?:text",
         "error errorClass tool reason")
_declare(TOOLS_EFFECT, TOOLS, CONTEXT,
         "A tool's result asked for something beyond its content (move the skill graph to "
         "another skill, push an instruction), and whether that was accepted, refused or "
         "outrun by another proposal.",
         "kind:text=propose-transition|require-instruction "
         "outcome:text=accepted|refused|superseded toolName:text toolCallId?:text "
         "iteration:number targetSkillId?:text reason?:text instructionId?:text "
         "deliveryLease?:text=next-call|until-skill-exit refusalReason?:text "
         "supersededBy?:text=earlier-proposal",
         "outcome kind targetSkillId instructionId refusalReason reason",
         ("outcome", "refused", VERDICT), ("outcome", "superseded", WARNING))
_declare(TOOLS_RESULT_REFUSED, TOOLS, VERDICT,
         "A tool's result was larger than the tool's own ceiling, so the model was told no data "
         "came back and how to ask for less.",
         "toolName:text toolCallId:text iteration:number sizeChars:number maxChars:number "
         f"narrowBy?:list declaredStatus?:text={_TOOL_RESULT_STATUSES}",
         "toolName sizeChars maxChars narrowBy")
_declare(TOOLS_REPEATED_CALL, TOOLS, WARNING,
         "A tool was called again with the same arguments and gave the same result; the model "
         "was told so.",
         "toolName:text toolCallId:text iteration:number occurrences:number "
         "argsFingerprint:text resultFingerprint:text mode?:text=arguments",
         "toolName occurrences")
_declare(TOOLS_ABSENT, TOOLS, CONTEXT,
         "A tool looked and found nothing, and said what ground its search covered, did not "
         "cover, and can never cover.",
         "toolName:text toolCallId:text iteration:number lookedFor?:text checked:list "
         "notChecked?:list cannotCover?:list",
         "toolName lookedFor checked notChecked cannotCover",
         ("notChecked", PRESENT, WARNING), ("cannotCover", PRESENT, WARNING))
_declare(TOOLS_CODE_RUN, TOOLS, CONTEXT,
         "A code-running tool ran a program the model wrote: whether it ran to the end and "
         "whether its output was cut (the code itself is not recorded).",
         "tool:text language:text stagedInputs:number outputChars:number truncated:flag "
         "ok:flag shapeHash:text",
         "ok truncated tool language",
         ("ok", "false", VERDICT), ("truncated", "true", WARNING))
_declare(TOOLS_COVERAGE_DECLARED, TOOLS, CONTEXT,
         "A tool's verdict came with its limits: what it checked, what it did not, and what it "
         "cannot check.",
         "toolName:text toolCallId:text iteration:number checked?:list notChecked?:list "
         "cannotCover?:list",
         "toolName notChecked cannotCover checked",
         ("notChecked", PRESENT, WARNING), ("cannotCover", PRESENT, WARNING))
_declare(TOOLS_SEMANTICS_DECLARED, TOOLS, CONTEXT,
         "A tool returned typed data with its caveats (grain, provenance, coverage) as data.",
         "toolName:text toolCallId:text iteration:number semantics:record",
         "toolName semantics")

# validation.*
_declare(VALIDATION_ARGS_INVALID, GUARD, VERDICT,
         "The arguments the model wrote for a tool did not match the tool's input schema: "
         "refused before the tool ran, or (when not enforced) let through.",
         "toolName:text toolCallId:text iteration:number issues:list enforced:flag",
         "toolName issues enforced",
         ("enforced", "false", WARNING))

# skill.*
_declare(SKILL_ACTIVATED, SKILLS, CONTEXT,
         "A skill became active and brought its instructions and tools.",
         "skillId:text reason:text=autoActivate|read_skill_result|manual "
         "injectedTools?:list injectedSystemPromptChars?:number",
         "skillId reason injectedTools")
_declare(SKILL_GRAPH_DECLARED, SKILLS, CONTEXT,
         "The skill map as its author drew it: every skill and every declared edge.",
         "nodes:list edges:list",
         "nodes edges")
_declare(SKILL_DEACTIVATED, SKILLS, CONTEXT,
         "A skill stopped being active.",
         "skillId:text reason:text",
         "skillId reason")
_declare(SKILL_REJECTED, SKILLS, VERDICT,
         "The model asked to move to a skill it could not reach from where it was; it was "
         "refused and told which skills it could choose.",
         "requestedId:text currentSkillId?:text allowed:list iteration:number "
         "posture?:text=guard|rails",
         "requestedId currentSkillId allowed posture")
_declare(SKILL_REROUTE_SUPERSEDED, SKILLS, WARNING,
         "A skill the model (or a tool) picked was accepted, then lost to a declared edge that "
         "fired in the same step.",
         "volunteeredId:text wonId?:text fromSkillId?:text iteration:number "
         "source?:text=tool-proposal",
         "volunteeredId wonId fromSkillId")
_declare(SKILL_ROUTE_CONFLICT, SKILLS, WARNING,
         "Tool results of one batch pointed the skill graph to different skills; the first won "
         "and the others were set aside.",
         "iteration:number fromSkillId?:text winner:record losers:list "
         "source?:text=tool-proposal",
         "winner losers fromSkillId")
_declare(SKILL_TURN_ROUTED, SKILLS, CONTEXT,
         "At the start of a turn the skill graph decided where the turn begins: by a rule, a "
         "scorer, the previous turn's skill or a menu, with the scores of every candidate.",
         "by:text=entry|intent|continuity|menu|decider|none from?:text to?:text scorer?:text "
         "scores?:list runnerUp?:record decisive?:flag witness?:record offered?:list "
         "stayOffered?:flag policy:record window?:number droppedResume?:record "
         "decider?:record",
         "by to from witness scores decisive")
_declare(SKILL_STEP_ADVANCED, SKILLS, CONTEXT,
         "A step of a skill's declared procedure was done (its tool returned while it was the "
         "current step).",
         "skillId:text step:record iteration:number toolCallId?:text completed?:flag",
         "skillId step completed")
_declare(SKILL_STEP_SKIPPED, SKILLS, VERDICT,
         "The model declined a step of a skill's procedure, in its own words; the procedure "
         "moved on or held as the skill declares.",
         "skillId:text step:record reason:text policy:text=advance|hold iteration:number "
         "toolCallId?:text",
         "reason step skillId policy")
_declare(SKILL_STEPS_UNFINISHED, SKILLS, WARNING,
         "A turn was ending with steps of a skill's procedure not done: the model was nudged "
         "once, or its stop was accepted, or a limit cut the turn short.",
         "skillId:text remaining:list total:number action:text=nudged|accepted|cut-short "
         "iteration:number",
         "remaining action skillId total",
         ("action", "accepted|cut-short", VERDICT))
_declare(SKILL_ESCALATED, SKILLS, WARNING,
         "The model was refused so often that the rest of the turn moved to a stronger model.",
         "iteration:number afterRefusals:number refusals:number from:record to:record",
         "refusals afterRefusals from to")

# permission.*
_declare(PERMISSION_CHECK, PERMISSION, CONTEXT,
         "A permission policy was asked about an action (a tool call, reading a skill, memory, "
         "the network or user data) and allowed, denied, halted the run or opened a gate.",
         "capability:text=memory_read|memory_write|external_net|user_data|tool_call|skill_read "
         "actor:text target?:text result:text=allow|deny|halt|gate_open "
         "policyEngine?:text=opa|cerbos|custom policyRuleId?:text rationale?:text reason?:text",
         "result target rationale policyRuleId reason",
         ("result", "deny|halt", VERDICT))
_declare(PERMISSION_GATE_OPENED, PERMISSION, CONTEXT,
         "A permission gate was opened, by whom, and until when.",
         "gateId:text openedBy:text expiresAt?:number",
         "gateId openedBy expiresAt")
_declare(PERMISSION_GATE_CLOSED, PERMISSION, CONTEXT,
         "A permission gate was closed, and why.",
         "gateId:text reason:text",
         "gateId reason")
_declare(PERMISSION_HALT, PERMISSION, VERDICT,
         "A permission policy stopped the whole run at an action, and why.",
         "checkerId?:text target:text reason:text tellLLM?:text iteration:number "
         "sequenceLength:number",
         "target reason tellLLM")

# credential.*
_declare(CREDENTIAL_REQUESTED, CREDENTIAL, CONTEXT,
         "A tool's credential for a service was being fetched before the tool ran.",
         "service:text mode?:text=machine|user",
         "service mode")
_declare(CREDENTIAL_ACQUIRED, CREDENTIAL, CONTEXT,
         "A credential for a service was issued (its kind only, never the secret).",
         "service:text kind:text expiresAt?:number",
         "service kind")
_declare(CREDENTIAL_AUTHORIZATION_REQUIRED, CREDENTIAL, WARNING,
         "A service needs the user's consent first; the tool waits until it is given.",
         "service:text sessionId:text",
         "service")
_declare(CREDENTIAL_FAILED, CREDENTIAL, VERDICT,
         "A credential could not be obtained, so the tool that needed it did not run.",
         "service:text reason:text tool?:text errorClass?:text",
         "reason service tool errorClass")

# risk.*, fallback.*
_declare(RISK_FLAGGED, GUARD, VERDICT,
         "A guardrail flagged a risk (personal data, prompt injection, a runaway loop, "
         "overspending, a hallucination) and warned, redacted or stopped.",
         "severity:text=low|medium|high|critical "
         "category:text=pii|prompt_injection|runaway_loop|cost_overrun|hallucination_flag "
         "detector:text=nemo_guardrails|llama_guard|custom|heuristic evidence:record "
         "action:text=warn|redact|abort",
         "category severity action evidence detector")
_declare(FALLBACK_TRIGGERED, RECOVERY, WARNING,
         "A provider, tool or skill failed and its stand-in served instead.",
         "kind:text=provider|tool|skill primary:text fallback:text reason:text",
         "reason primary fallback kind")

# cost.*
_declare(COST_TICK, COST, CONTEXT,
         "The tokens and estimated money one call cost, on which model, and the running total.",
         "scope:text=iteration|turn|run model:text provider?:text tokensInput:number "
         "tokensOutput:number estimatedUsd:number cumulative:record",
         "estimatedUsd model cumulative")
_declare(COST_LIMIT_HIT, BUDGET, VERDICT,
         "A limit on tokens, money, passes or time was crossed, and the run stopped, degraded or "
         "only warned.",
         "kind:text=max_tokens|max_cost|max_iterations|max_wallclock limit:number actual:number "
         "action:text=abort|warn|degrade",
         "kind limit actual action",
         ("action", "warn", WARNING))

# eval.*
_declare(EVAL_SCORE, EVAL, CONTEXT,
         "An evaluation scored a call, a turn or the run on a metric, against its threshold "
         "when it has one.",
         "metricId:text value:number threshold?:number target:text=iteration|turn|run|toolCall "
         "targetRef:text evaluator?:text=llm|fn|heuristic evidence?:record",
         "metricId value threshold evidence")
_declare(EVAL_THRESHOLD_CROSSED, EVAL, VERDICT,
         "An evaluation's score crossed its threshold, and what was done about it.",
         "metricId:text direction:text=above|below value:number threshold:number "
         "actionTaken?:text",
         "metricId direction value threshold actionTaken")

# error.*
_declare(ERROR_RETRIED, RECOVERY, WARNING,
         "A provider call failed and was tried again after a wait (a retry wrapper).",
         "attempt:number maxAttempts:number lastError:text backoffMs:number reason:text",
         "lastError attempt maxAttempts reason")
_declare(ERROR_RECOVERED, RECOVERY, WARNING,
         "A provider call succeeded after failed attempts: a flaky call hidden by retries.",
         "attempt:number totalDurationMs:number",
         "attempt totalDurationMs")
_declare(ERROR_FATAL, ERROR, VERDICT,
         "The run failed with an error it could not recover from (its words may restate an "
         "earlier, more exact cause).",
         "error:text stage:text scope:text",
         "error stage scope")
_declare(ERROR_CIRCUIT_CHANGED, RECOVERY, CONTEXT,
         "A provider's circuit breaker changed state: open (calls stop going to it), half-open "
         "(trying it again) or closed (back in use), and why.",
         "state:text=closed|open|half-open reason:text providerName:text",
         "state reason providerName",
         ("state", "open", WARNING))

# reliability.*
_declare(RELIABILITY_FAIL_FAST, RECOVERY, VERDICT,
         "The agent's reliability rules gave up on a failing call instead of trying again.",
         "phase:text=pre-check|post-decide kind:text attempt:number label?:text reason?:text "
         "providerUsed?:text errorKind?:text errorMessage?:text",
         "label reason errorMessage kind errorKind")
_declare(RELIABILITY_RETRIED, RECOVERY, WARNING,
         "The agent's reliability rules tried a failed call again, on the same provider or "
         "another.",
         "attempt:number action:text=retry|retry-other errorKind:text errorMessage?:text "
         "fromProvider:text toProvider:text",
         "errorMessage errorKind action fromProvider toProvider")
_declare(RELIABILITY_RECOVERED, RECOVERY, WARNING,
         "A call the reliability rules kept trying finally succeeded, and how.",
         "attempt:number recoveredVia:text=retry|retry-other|fallback priorFailures:number "
         "errorKind:text",
         "recoveredVia priorFailures errorKind")

# resilience.*
_declare(RESILIENCE_OUTPUT_FALLBACK_TRIGGERED, RECOVERY, VERDICT,
         "A typed answer failed its schema and the application's own fallback was called to "
         "produce one instead. Delivered after the run, with no meta.",
         f"stage:text={_VALIDATION_STAGES} rawOutputPreview:text primaryErrorMessage:text "
         "retriesSpent?:number",
         "primaryErrorMessage rawOutputPreview stage retriesSpent")
_declare(RESILIENCE_OUTPUT_CANNED_USED, RECOVERY, VERDICT,
         "The fallback failed too, so a fixed canned answer replaced the model's. Delivered "
         "after the run, with no meta.",
         "rawOutputPreview:text fallbackErrorMessage:text retriesSpent?:number",
         "fallbackErrorMessage rawOutputPreview retriesSpent")

# pause.*, checkin.*
_declare(PAUSE_REQUEST, PAUSE, CONTEXT,
         "The run paused to ask a person something.",
         "reason:text questionPayload:record",
         "reason questionPayload")
_declare(PAUSE_RESUME, PAUSE, CONTEXT,
         "A paused run was resumed with the person's answer, after how long.",
         "resumeInput:record pausedDurationMs:number componentId?:text",
         "resumeInput pausedDurationMs")
_declare(CHECKIN_REQUEST, CHECKIN, CONTEXT,
         "Before a tool ran, the run paused to ask a person's consent, with the evidence for "
         "the decision.",
         "toolName:text toolCallId:text iteration:number request:record",
         "toolName request")
_declare(CHECKIN_DECISION, CHECKIN, CONTEXT,
         "A person approved or declined a tool call they were asked about.",
         "toolName:text toolCallId:text iteration:number approved:flag by:text note?:text "
         "componentId?:text",
         "approved by note toolName",
         ("approved", "false", VERDICT))

# middleware.*, embedding.*
_declare(MIDDLEWARE_DECISION, MIDDLEWARE, CONTEXT,
         "A link of the application's governance chain looked at a message or tool call and "
         "let it through, changed it, refused it, or paused to ask a person.",
         "middleware:text moment:text=input|before-tool|after-tool|window|output "
         "at:text=tool|message phase?:text=input|output toolName?:text toolCallId?:text "
         "iteration:number outcome:text=allow|deny|ask changed:flag why?:text "
         "componentId?:text",
         "outcome why middleware changed toolName",
         ("outcome", "deny", VERDICT), ("outcome", "ask", WARNING), ("changed", "true", WARNING))
_declare(EMBEDDING_GENERATED, EMBEDDING, CONTEXT,
         "Text was turned into vectors for a search or for storage.",
         "model:text provider:text=openai|cohere|voyage|local|custom "
         "inputKind:text=query|document dimension:number count:number durationMs:number "
         "tokensSpent?:number",
         "inputKind model count")

# artifacts.*
_declare(ARTIFACTS_MINTED, ARTIFACTS, CONTEXT,
         "A tool stored a payload aside and got a reference to hand around instead of the "
         "bytes.",
         "ref:text kind:text mediaType:text bytes:number label?:text digest?:text "
         "expiresAt?:number origin?:record parentRefs?:list tool:text",
         "ref kind label tool")
_declare(ARTIFACTS_RESOLVED, ARTIFACTS, CONTEXT,
         "A stored artifact was described or read back by its reference.",
         "ref:text via:text=head|get kind:text bytes:number tool?:text",
         "ref via tool")
_declare(ARTIFACTS_EXPIRED, ARTIFACTS, WARNING,
         "A stored artifact was removed without its owner asking: its time ran out, or the "
         "store was full.",
         "ref:text reason:text=ttl|max-bytes|max-count kind:text bytes:number tool:text",
         "ref reason tool")
_declare(ARTIFACTS_REFUSED, ARTIFACTS, VERDICT,
         "An artifact could not be stored, found or delivered, and why.",
         "op:text=put|head|get|delete|list|dispatch "
         "reason:text=no-store|missing-or-expired|unknown-parent|digest-mismatch|invalid-input|"
         "kind-mismatch ref?:text detail?:text tool?:text",
         "reason detail ref op tool")
_declare(ARTIFACTS_PRESENTED, ARTIFACTS, CONTEXT,
         "The model put a stored artifact on the user's screen, as a chart, a table or the "
         "like.",
         "ref:text as:text snapshot:record toolCallId:text iteration:number",
         "ref as snapshot")

# map.*
_declare(MAP_ENGAGED, MAPS, CONTEXT,
         "A skill map's prompt and tools started riding the model calls again (or for the "
         "first time), and on what evidence.",
         f"mapId:text iteration:number by:text={_MAP_EVIDENCE} witness?:text reengaged?:flag "
         f"upgraded?:flag foundedBy?:text={_MAP_EVIDENCE} tenantChanged?:flag at?:text",
         "mapId by witness reengaged")
_declare(MAP_PARKED, MAPS, WARNING,
         "A skill map was set aside after several calls in which none of its tools was used.",
         f"mapId:text iteration:number by:text={_MAP_EVIDENCE} idleCalls:number witness?:text",
         "mapId idleCalls by witness")

# integrity.*
_declare(INTEGRITY_CONTEXT_ERROR, INTEGRITY, VERDICT,
         "An integrity check found a defect in what the agent was served or said: two things "
         "that cannot both be true, a value nothing served, an action whose inputs were gone, "
         "work done twice, or a claim the record does not support; with its subjects and the "
         "assertions that prove it. A canary's finding is a self-test, and an advisory one "
         "reports doubt, not contradiction.",
         "kind:text=invariant-violation|unsupported-argument|dangling-reference|"
         "duplicate-execution|unsupported-claim "
         "seam:text=write|compose|wire|choice|claim subjects:list witnesses:list "
         "predicate?:text epoch?:number synthetic?:flag advisory?:flag message:text "
         "iteration?:number",
         "message kind subjects witnesses predicate",
         ("synthetic", "true", CONTEXT), ("advisory", "true", WARNING))
_declare(INTEGRITY_DISPOSITION, INTEGRITY, CONTEXT,
         "At the end of a run, each integrity check's account: how often it ran, found, did not "
         "apply or could not run.",
         "posture:text=observe|dev workExisted:flag rows:list",
         "rows workExisted posture")


# ─── Lookups ───────────────────────────────────────────────────────────

EVENT_TYPES: tuple[EventType, ...] = tuple(_TABLE)
del _TABLE

BY_NAME: Mapping[str, EventType] = MappingProxyType({t.name: t for t in EVENT_TYPES})
ALL_NAMES: frozenset[str] = frozenset(BY_NAME)
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(t.family for t in EVENT_TYPES))
# Types that are a verdict whatever their payload says, and those some payload makes one.
VERDICT_NAMES: frozenset[str] = frozenset(t.name for t in EVENT_TYPES if t.kind == VERDICT)
MAY_BE_VERDICT_NAMES: frozenset[str] = frozenset(t.name for t in EVENT_TYPES
                                                 if t.may_be_verdict)
_BY_FAMILY: Mapping[str, tuple[EventType, ...]] = MappingProxyType(
    {family: tuple(t for t in EVENT_TYPES if t.family == family) for family in FAMILIES})


def event_type(name: Any) -> EventType | None:
    """The catalogue's entry for a type name; None for a name 9.62 does not declare."""
    return BY_NAME.get(name) if isinstance(name, str) else None


def types_in_family(family: str) -> tuple[EventType, ...]:
    """The types of one family, in the framework's registry order (empty for an unknown family)."""
    return _BY_FAMILY.get(family, ())


def event_kind(name: Any, payload: Any) -> str | None:
    """What one event is (verdict, warning or context) given its payload; None for
    a type the catalogue does not know."""
    entry = event_type(name)
    return entry.kind_of(payload) if entry is not None else None

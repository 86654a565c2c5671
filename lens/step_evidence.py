"""Evidence for a step: the recorded events behind it, found in O(1).

Built in one pass over the boundary log and one over the typed stream, keyed
by runtimeStageId. A model call joins its ``llm.start`` / ``llm.end`` (and the
typed ``stream.llm_start`` / ``stream.llm_end``, which still carry content and
arguments when the boundary log is lean) with the tool calls it asked for:
the ``tool.*`` events that follow it in the same agent (same stage-id prefix)
before that agent's next model call.

When the typed stream holds several runs, only the last one is indexed: the
boundary log and the steps describe the last run only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from recorders.loading import Recording

TYPED_LLM_START = "agentfootprint.stream.llm_start"
TYPED_LLM_END = "agentfootprint.stream.llm_end"
TYPED_TOOL_START = "agentfootprint.stream.tool_start"
TYPED_TOOL_END = "agentfootprint.stream.tool_end"

# The event types that feed model and tool calls or the run's start and end.
_BOUNDARY_KINDS_READ = frozenset({"run.entry", "run.exit", "llm.start", "llm.end",
                                  "tool.start", "tool.end"})
_TYPED_KINDS_READ = frozenset({TYPED_LLM_START, TYPED_LLM_END, TYPED_TOOL_START, TYPED_TOOL_END})

_USAGE_IN = ("input", "inputTokens", "input_tokens", "promptTokens", "prompt_tokens")
_USAGE_OUT = ("output", "outputTokens", "output_tokens", "completionTokens", "completion_tokens")


@dataclass
class ToolCall:
    """One tool invocation: what was asked and what came back."""

    runtime_stage_id: str
    tool_call_id: str | None
    sources: list[dict] = field(default_factory=list)  # start then end records, boundary first

    def _get(self, name: str) -> Any:
        return _first_present(self.sources, name)

    @property
    def tool_name(self) -> str | None:
        return _str_or_none(self._get("toolName"))

    @property
    def args(self) -> Any:
        return self._get("args")

    @property
    def result(self) -> Any:
        return self._get("result")

    @property
    def has_result(self) -> bool:
        return any("result" in source for source in self.sources)

    @property
    def failed(self) -> bool:
        return self._get("error") is True

    @property
    def duration_ms(self) -> float | None:
        return _number_or_none(self._get("durationMs"))


@dataclass
class ModelCall:
    """One model call: its start and end records and the tools it asked for."""

    runtime_stage_id: str
    agent: str  # the stage-id prefix that pairs it with its tool calls
    starts: list[dict] = field(default_factory=list)
    ends: list[dict] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    previous: ModelCall | None = None  # the same agent's call before this one

    def _get(self, records: list[dict], name: str) -> Any:
        return _first_present(records, name)

    @property
    def model(self) -> str | None:
        return _str_or_none(self._get(self.starts, "model"))

    @property
    def provider(self) -> str | None:
        return _str_or_none(self._get(self.starts, "provider"))

    @property
    def content(self) -> Any:
        return self._get(self.ends, "content")

    @property
    def stop_reason(self) -> str | None:
        return _str_or_none(self._get(self.ends, "stopReason"))

    @property
    def usage(self) -> dict | None:
        usage = self._get(self.ends, "usage")
        return usage if isinstance(usage, dict) else None

    @property
    def tokens_in(self) -> float | None:
        return _usage_number(self.usage, _USAGE_IN)

    @property
    def tokens_out(self) -> float | None:
        return _usage_number(self.usage, _USAGE_OUT)

    @property
    def tool_call_count(self) -> float | None:
        return _number_or_none(self._get(self.ends, "toolCallCount"))

    @property
    def started_ms(self) -> float | None:
        return _number_or_none(self._get(self.starts, "ts"))

    @property
    def ended_ms(self) -> float | None:
        return _number_or_none(self._get(self.ends, "ts"))

    @property
    def duration_ms(self) -> float | None:
        reported = _number_or_none(self._get(self.ends, "durationMs"))
        if reported is not None:
            return reported
        if self.started_ms is not None and self.ended_ms is not None:
            return self.ended_ms - self.started_ms
        return None

    def start_field(self, name: str) -> Any:
        return self._get(self.starts, name)


class StepEvidence:
    """Owns the per-stage index of one recording's events. Read-only once built."""

    def __init__(self, boundary_events: list[dict] | None = None,
                 typed_events: list[dict] | None = None) -> None:
        self.boundary_events = boundary_events if boundary_events is not None else []
        self.typed_events = typed_events if typed_events is not None else []
        self.model_calls: dict[str, ModelCall] = {}
        self.boundary_at: dict[str, list[int]] = {}  # runtimeStageId → boundary event indexes
        self.typed_at: dict[str, list[int]] = {}  # runtimeStageId → typed event indexes
        self.first_ts: dict[str, float] = {}  # runtimeStageId → earliest ts seen
        self.run_started_ms: float | None = None
        self.run_ended_ms: float | None = None
        self.indexed_run_id: str | None = None  # set when typed events of one run were chosen
        self.call_at_iteration: dict[tuple[str, float], ModelCall] = {}  # (agent, iteration)
        self.tool_stage_owner: dict[str, ModelCall] = {}  # tool stage id → the call that asked
        self._last_call: dict[str, ModelCall] = {}
        self._tools: dict[tuple[str, str | None], ToolCall] = {}

    @classmethod
    def build(cls, recording: Recording) -> StepEvidence:
        index = cls(recording.boundary_events, recording.typed_events)
        index._index_boundary(recording.boundary_events)
        index._last_call.clear()  # the typed pass pairs tools on its own
        run_id = recording.typed_run_ids[-1] if len(recording.typed_run_ids) > 1 else None
        index.indexed_run_id = run_id
        index._index_typed(recording.typed_events, run_id)
        return index

    # ── queries ──────────────────────────────────────────────────────

    def model_call(self, runtime_stage_id: str) -> ModelCall | None:
        return self.model_calls.get(runtime_stage_id)

    def calls(self) -> Iterable[ModelCall]:
        return self.model_calls.values()

    def tool_calls(self) -> Iterable[ToolCall]:
        return self._tools.values()

    def boundary_events_at(self, runtime_stage_id: str, kind: str | None = None) -> list[dict]:
        events = (self.boundary_events[i] for i in self.boundary_at.get(runtime_stage_id, ()))
        return [e for e in events if kind is None or e.get("type") == kind]

    def tool_names_for_call(self, call: ModelCall | None) -> list[str]:
        if call is None:
            return []
        return [t.tool_name for t in call.tool_calls if t.tool_name is not None]

    def boundary_indexes(self, runtime_stage_id: str) -> list[int]:
        return self.boundary_at.get(runtime_stage_id, [])

    def typed_indexes(self, runtime_stage_id: str) -> list[int]:
        return self.typed_at.get(runtime_stage_id, [])

    # ── one pass each ────────────────────────────────────────────────
    # Each runs once per recording over every event, so the loop bodies are
    # written out with the indexes held in locals.

    def _index_boundary(self, events: list[dict]) -> None:
        boundary_at, first_ts = self.boundary_at, self.first_ts
        for position, event in enumerate(events):
            rid = event.get("runtimeStageId")
            if not isinstance(rid, str):
                continue
            positions = boundary_at.get(rid)
            if positions is None:
                boundary_at[rid] = [position]
            else:
                positions.append(position)
            if rid not in first_ts:
                ts = _number_or_none(event.get("ts"))
                if ts is not None:
                    first_ts[rid] = ts
            kind = event.get("type")
            if kind not in _BOUNDARY_KINDS_READ:
                continue
            ts = _number_or_none(event.get("ts"))
            if kind == "run.entry":
                if ts is not None and self.run_started_ms is None:
                    self.run_started_ms = ts
            elif kind == "run.exit":
                if ts is not None:
                    self.run_ended_ms = ts
            elif kind == "llm.start":
                self._call(rid).starts.append(event)
            elif kind == "llm.end":
                self._call(rid).ends.append(event)
            else:  # tool.start, tool.end
                self._tool(rid, event.get("toolCallId"), event)

    def _index_typed(self, events: list[dict], run_id: str | None) -> None:
        typed_at, first_ts = self.typed_at, self.first_ts
        for position, event in enumerate(events):
            meta = event.get("meta") or {}
            if run_id is not None and meta.get("runId") != run_id:
                continue
            rid = meta.get("runtimeStageId")
            if not isinstance(rid, str):
                continue
            positions = typed_at.get(rid)
            if positions is None:
                typed_at[rid] = [position]
            else:
                positions.append(position)
            if rid not in first_ts:
                ts = _number_or_none(meta.get("wallClockMs"))
                if ts is not None:
                    first_ts[rid] = ts
            kind = event.get("type")
            if kind not in _TYPED_KINDS_READ:
                continue
            ts = _number_or_none(meta.get("wallClockMs"))
            payload = event.get("payload")
            if not isinstance(payload, dict):
                continue
            record = {**payload, "ts": ts} if ts is not None else payload
            if kind == TYPED_LLM_START:
                call = self._call(rid)
                call.starts.append(record)
                iteration = _number_or_none(payload.get("iteration"))
                if iteration is not None:
                    self.call_at_iteration.setdefault((call.agent, iteration), call)
            elif kind == TYPED_LLM_END:
                self._call(rid).ends.append(record)
            else:  # tool start, tool end
                self._tool(rid, payload.get("toolCallId"), record)

    def _call(self, rid: str) -> ModelCall:
        call = self.model_calls.get(rid)
        agent = _agent_of(rid)
        if call is None:
            call = ModelCall(rid, agent, previous=self._last_call.get(agent))
            self.model_calls[rid] = call
        self._last_call[agent] = call
        return call

    def _tool(self, rid: str, call_id: Any, record: dict) -> None:
        key = (rid, call_id if isinstance(call_id, str) else None)
        tool = self._tools.get(key)
        if tool is None:  # a start, or an end whose start is missing: keep what it says
            tool = ToolCall(rid, key[1])
            self._tools[key] = tool
            owner = self._last_call.get(_agent_of(rid))
            if owner is not None:
                owner.tool_calls.append(tool)
                self.tool_stage_owner.setdefault(rid, owner)
        tool.sources.append(record)


def _agent_of(runtime_stage_id: str) -> str:
    """``array/tool-calls#62`` and ``array/call-llm#58`` share the agent ``array``."""
    return runtime_stage_id.rpartition("/")[0]


def _first_present(records: list[dict], name: str) -> Any:
    for record in records:
        value = record.get(name)
        if value is not None:
            return value
    return None


def _usage_number(usage: dict | None, names: tuple[str, ...]) -> float | None:
    if usage is None:
        return None
    for name in names:
        value = _number_or_none(usage.get(name))
        if value is not None:
            return value
    return None


def _number_or_none(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None

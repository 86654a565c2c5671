"""What happened at one step, from the recording: the step detail view model.

:func:`describe_step` turns a RunStep and the evidence index into plain data
(facts, texts, tool calls, branches, the events behind it). The UI renders
that data generically; every value in it is the recording's own (untrusted)
text, so the renderer must show it through safe elements only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from recorders.run_step import DECIDE, FORK, ITERATION, MERGE, REACT, SEQUENTIAL, RunStep
from lens.step_evidence import ModelCall, StepEvidence, ToolCall
from lens.text import format_ms, value_text

USER_TO_LLM = "user→llm"
TOOL_TO_LLM = "tool→llm"
LLM_TO_TOOL = "llm→tool"
LLM_TO_USER = "llm→user"
KNOWN_ARROWS = frozenset({USER_TO_LLM, TOOL_TO_LLM, LLM_TO_TOOL, LLM_TO_USER})
HANDOFF_LABELS = frozenset({"asks", "forwards", "answers"})

_HEADINGS = {
    REACT: "Model call",
    DECIDE: "Decision",
    FORK: "Fork",
    MERGE: "Merge",
    ITERATION: "Loop iteration",
    SEQUENTIAL: "Handoff",
}


@dataclass(frozen=True)
class Fact:
    name: str  # app text
    value: str  # recording text


@dataclass(frozen=True)
class TextValue:
    title: str  # app text only: it may be shown where Markdown renders
    text: str  # recording text, possibly very long
    is_error: bool = False


@dataclass(frozen=True)
class ToolCallView:
    name: str
    call_id: str | None
    args: str | None  # None when the recording carries no arguments
    result: str | None  # None when the recording carries no result
    failed: bool
    duration: str | None


@dataclass(frozen=True)
class EventRef:
    stream: str  # "boundary" | "typed"
    index: int  # position in that stream of the file
    type: str


@dataclass(frozen=True)
class StepDetail:
    heading: str  # app text only: it may be shown where Markdown renders
    facts: tuple[Fact, ...]
    texts: tuple[TextValue, ...] = ()
    tools_asked: tuple[ToolCallView, ...] = ()
    tool_results: tuple[ToolCallView, ...] = ()
    branches: tuple[str, ...] = ()
    transitions: tuple[tuple[str, str, str, str], ...] = ()  # from, to, via, label
    absent: tuple[str, ...] = ()  # what the recording does not carry for this step
    events: tuple[EventRef, ...] = ()
    meta: Mapping[str, Any] | None = None
    model_call_id: str | None = None  # the served-context panel hooks in here


def actor_arrow(step: RunStep) -> str | None:
    meta = step.meta or {}
    arrow = meta.get("actorArrow")
    if isinstance(arrow, str):
        return arrow
    return step.label if step.kind == REACT else None


def step_tool_names(step: RunStep, evidence: StepEvidence) -> list[str]:
    """The tools a react step hands to or hears back from, for its caption.

    The projection's own ``meta.toolNames`` wins; otherwise the tool calls the
    recording pairs with this model call (llm→tool) or the one before it (tool→llm).
    """
    names = (step.meta or {}).get("toolNames")
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        return list(names)
    arrow = actor_arrow(step)
    call = evidence.model_call(step.runtime_stage_id)
    if arrow == LLM_TO_TOOL:
        return evidence.tool_names_for_call(call)
    if arrow == TOOL_TO_LLM and call is not None:
        return evidence.tool_names_for_call(call.previous)
    return []


def step_caption(step: RunStep, index: int, total: int, evidence: StepEvidence) -> str:
    """``step 7 of 19 · llm→tool · lookup_order`` (1-based, for people)."""
    parts = [f"step {index + 1} of {total}", step.label]
    tools = step_tool_names(step, evidence)
    if tools:
        parts.append(", ".join(tools))
    return " · ".join(parts)


def describe_step(step: RunStep, evidence: StepEvidence) -> StepDetail:
    base = _common_facts(step, evidence)
    transitions = tuple((t.source, t.target, t.via, t.label or "") for t in step.transitions)
    events = _events_at(step.runtime_stage_id, evidence)
    heading = _HEADINGS.get(step.kind, "Step")
    common = dict(transitions=transitions, events=events, meta=step.meta)
    if step.kind == REACT:
        return _react_detail(step, evidence, heading, base, common)
    if step.kind == DECIDE:
        meta = step.meta or {}
        decision = next(iter(evidence.boundary_events_at(step.runtime_stage_id, "decision.branch")), {})
        facts = [Fact("chosen", _text(meta.get("chosen", decision.get("chosen"))))]
        rationale = meta.get("rationale", decision.get("rationale"))
        absent = () if rationale else ("the recording gives no rationale for this decision",)
        if decision.get("decider") is not None:
            facts.append(Fact("decider", _text(decision.get("decider"))))
        texts = (TextValue("Rationale", value_text(rationale)),) if rationale else ()
        return StepDetail(heading, tuple(facts) + base, texts, absent=absent, **common)
    if step.kind in (FORK, MERGE):
        meta = step.meta or {}
        ends = [t.target for t in step.transitions] if step.kind == FORK else [t.source for t in step.transitions]
        facts = [Fact("branches", str(len(ends)))]
        if meta.get("parentSubflowId") is not None:
            facts.append(Fact("parent", _text(meta["parentSubflowId"])))
        return StepDetail(heading, tuple(facts) + base, branches=tuple(ends), **common)
    if step.kind == ITERATION:
        meta = step.meta or {}
        facts = [Fact("pass", _text(meta.get("index", step.label))),
                 Fact("loops back to", _text(meta.get("target", "")))]
        return StepDetail(heading, tuple(facts) + base, **common)
    if step.kind == SEQUENTIAL:
        return _handoff_detail(step, evidence, heading, base, common)
    return StepDetail(heading, base, **common)


# ─── per kind ──────────────────────────────────────────────────────────


def _react_detail(step: RunStep, evidence: StepEvidence, heading: str,
                  base: tuple[Fact, ...], common: dict) -> StepDetail:
    call = evidence.model_call(step.runtime_stage_id)
    arrow = actor_arrow(step)
    if arrow in KNOWN_ARROWS:
        heading = f"{heading} · {arrow}"
    if call is None:
        return StepDetail(heading, base,
                          absent=("no model-call events are recorded at this stage",), **common)
    facts = _call_facts(call) + base
    texts: list[TextValue] = []
    absent: list[str] = []
    tools_asked: tuple[ToolCallView, ...] = ()
    tool_results: tuple[ToolCallView, ...] = ()
    if arrow in (LLM_TO_TOOL, LLM_TO_USER):
        if call.content is not None:
            texts.append(TextValue("Model output", value_text(call.content)))
        elif call.ends:
            absent.append("the recording carries no output text for this call (lean mode?)")
        else:
            absent.append("the recording has no end for this model call (the run stopped?)")
    if arrow == LLM_TO_TOOL:
        tools_asked = tuple(_tool_view(t) for t in call.tool_calls)
        if not tools_asked:
            absent.append("no tool-call events follow this model call in the recording")
    if arrow == TOOL_TO_LLM and call.previous is not None:
        tool_results = tuple(_tool_view(t) for t in call.previous.tool_calls)
    return StepDetail(heading, facts, tuple(texts), tools_asked, tool_results,
                      absent=tuple(absent), model_call_id=call.runtime_stage_id, **common)


def _handoff_detail(step: RunStep, evidence: StepEvidence, heading: str,
                    base: tuple[Fact, ...], common: dict) -> StepDetail:
    # The boundary events at a handoff's stage are the subflow's entry and exit;
    # asks/forwards hand over the entry payload, answers return the exit payload.
    kind = "subflow.exit" if step.label == "answers" else "subflow.entry"
    texts = []
    for event in evidence.boundary_events_at(step.runtime_stage_id, kind):
        if "payload" in event:
            title = "Answer returned" if kind == "subflow.exit" else "Input handed over"
            texts.append(TextValue(title, value_text(event["payload"])))
    absent = () if texts else ("the recording carries no payload for this handoff",)
    if step.label in HANDOFF_LABELS:
        heading = f"{heading} · {step.label}"
    return StepDetail(heading, base, tuple(texts), absent=absent, **common)


# ─── helpers ───────────────────────────────────────────────────────────


def _common_facts(step: RunStep, evidence: StepEvidence) -> tuple[Fact, ...]:
    facts = [Fact("stage", step.runtime_stage_id),
             Fact("subflow path", " / ".join(step.anchor.subflow_path))]
    if evidence.run_started_ms is not None:
        facts.append(Fact("at", f"+{format_ms(step.ts_ms - evidence.run_started_ms)} from run start"))
    return tuple(facts)


def _call_facts(call: ModelCall) -> tuple[Fact, ...]:
    pairs: list[tuple[str, Any]] = [
        ("model", call.model),
        ("provider", call.provider),
        ("stop reason", call.stop_reason),
        ("tokens in", call.tokens_in),
        ("tokens out", call.tokens_out),
        ("duration", format_ms(call.duration_ms) if call.duration_ms is not None else None),
        ("messages sent", call.start_field("messagesCount")),
        ("tools offered", call.start_field("toolsCount")),
        ("tool calls asked", call.tool_call_count),
    ]
    return tuple(Fact(name, _text(value)) for name, value in pairs if value is not None)


def _tool_view(tool: ToolCall) -> ToolCallView:
    return ToolCallView(
        name=tool.tool_name or "(unnamed tool)",
        call_id=tool.tool_call_id,
        args=value_text(tool.args) if tool.args is not None else None,
        result=value_text(tool.result) if tool.has_result else None,
        failed=tool.failed,
        duration=format_ms(tool.duration_ms) if tool.duration_ms is not None else None,
    )


def _events_at(runtime_stage_id: str, evidence: StepEvidence) -> tuple[EventRef, ...]:
    refs = [EventRef("boundary", i, str(evidence.boundary_events[i].get("type")))
            for i in evidence.boundary_indexes(runtime_stage_id)]
    refs += [EventRef("typed", i, str(evidence.typed_events[i].get("type")))
             for i in evidence.typed_indexes(runtime_stage_id)]
    return tuple(refs)


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else value_text(value)

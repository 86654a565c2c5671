"""What happened at one step, from the recording: the step detail view model.

:func:`describe_step` turns a RunStep and the evidence index into plain data
(facts, texts, tool calls, branches, the events behind it). A model call's
facts, the tools it asked for and the results fed back come from the same
:class:`recorders.evidence.ModelCall` the served-context panel and the run
header read. The UI renders that data generically; every value in it is the
recording's own (untrusted) text, so the renderer must show it through safe
elements only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from recorders import boundary_names
from recorders.catalogue import COMPOSITION_MERGE_END, short_name
from recorders.evidence import EvidenceIndex, ModelCall, ToolCall
from recorders.run_step import DECIDE, FORK, ITERATION, MERGE, REACT, SEQUENTIAL, RunStep
from recorders.values import is_number, js_number_text
from lens.text import DisplayText, display_text, format_ms, value_text

USER_TO_LLM = "user→llm"
TOOL_TO_LLM = "tool→llm"
LLM_TO_TOOL = "llm→tool"
LLM_TO_USER = "llm→user"
KNOWN_ARROWS = frozenset({USER_TO_LLM, TOOL_TO_LLM, LLM_TO_TOOL, LLM_TO_USER})
HANDOFF_LABELS = frozenset({"asks", "forwards", "answers"})
MERGE_END = short_name(COMPOSITION_MERGE_END)
ROUTE_DECIDED = ".route_decided"  # composition.route_decided, agent.route_decided

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
    text: DisplayText  # recording text, possibly very long


@dataclass(frozen=True)
class ToolCallView:
    name: str
    call_id: str | None
    args: DisplayText | None  # None when the recording carries no arguments
    result: DisplayText | None  # None when the recording carries no result
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
    call_id: int | None = None  # the model call shown (an id into the evidence index)


def actor_arrow(step: RunStep) -> str | None:
    meta = step.meta or {}
    arrow = meta.get("actorArrow")
    if isinstance(arrow, str):
        return arrow
    return step.label if step.kind == REACT else None


def step_call(step: RunStep, evidence: EvidenceIndex) -> ModelCall | None:
    """The model call at a step's stage, if the recording has one there."""
    return evidence.call_at_stage(step.runtime_stage_id, step.ts_ms)


def step_tools(step: RunStep, evidence: EvidenceIndex) -> tuple[ToolCall, ...]:
    """The tool calls a react step hands to (llm→tool: the ones its call asked
    for) or hears back from (tool→llm: the ones the previous call in its scope
    asked for)."""
    arrow = actor_arrow(step)
    call = step_call(step, evidence)
    if call is None:
        return ()
    if arrow == LLM_TO_TOOL:
        return evidence.tools_of(call)
    if arrow == TOOL_TO_LLM:
        return evidence.tools_of(evidence.previous_call(call.id))
    return ()


def step_tool_names(step: RunStep, evidence: EvidenceIndex) -> list[str]:
    """The tools a react step hands to or hears back from, for its caption.

    The projection's own ``meta.toolNames`` wins; otherwise :func:`step_tools`.
    """
    names = (step.meta or {}).get("toolNames")
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        return list(names)
    return [t.name for t in step_tools(step, evidence) if t.name is not None]


def decision_rationale(step: RunStep, evidence: EvidenceIndex) -> str | None:
    """Why a decision went the way it did, as the recording says it: the
    projection's own rationale, else the boundary ``decision.branch`` event's,
    else the ``route_decided`` typed event at the same stage (a Conditional's
    ``composition.route_decided``, an agent's ``agent.route_decided``)."""
    rationale = (step.meta or {}).get("rationale")
    if isinstance(rationale, str) and rationale:
        return rationale
    stages = evidence.stages
    for event in stages.boundary_events_at(step.runtime_stage_id, boundary_names.DECISION_BRANCH):
        if isinstance(event.get("rationale"), str) and event["rationale"]:
            return event["rationale"]
    for position in stages.typed_indexes(step.runtime_stage_id):
        event = stages.typed_events[position]
        payload = event.get("payload") if isinstance(event, dict) else None
        if (str(event.get("type", "")).endswith(ROUTE_DECIDED) and isinstance(payload, dict)
                and isinstance(payload.get("rationale"), str) and payload["rationale"]):
            return payload["rationale"]
    return None


def merged_result(step: RunStep, evidence: EvidenceIndex) -> Any:
    """What a merge produced: the ``resultSummary`` of the first
    ``composition.merge_end`` in the merge's own scope at or after the step
    (the merge event sits at its own stage, not at the branch end the step shows)."""
    scope = list(step.anchor.subflow_path[1:])
    for event in evidence.stages.typed_events:
        if not isinstance(event, dict) or not str(event.get("type", "")).endswith(MERGE_END):
            continue
        meta, payload = event.get("meta"), event.get("payload")
        if not isinstance(meta, dict) or not isinstance(payload, dict):
            continue
        at = meta.get("wallClockMs")
        if meta.get("subflowPath") == scope and is_number(at) and at >= step.ts_ms \
                and "resultSummary" in payload:
            return payload["resultSummary"]
    return None


def pass_output(step: RunStep, evidence: EvidenceIndex) -> Any:
    """What a loop pass produced: the payload of its subflow's exit (its
    ``answer`` when it has one), or None when the recording carries none."""
    exits = evidence.stages.boundary_events_at(step.runtime_stage_id, boundary_names.SUBFLOW_EXIT)
    output = exits[0].get("payload") if exits else None
    if isinstance(output, dict) and "answer" in output:
        output = output["answer"]
    return output


def step_caption(step: RunStep, index: int, total: int, evidence: EvidenceIndex) -> str:
    """``step 7 of 19 · llm→tool · lookup_order`` (1-based, for people)."""
    parts = [f"step {index + 1} of {total}", step.label]
    tools = step_tool_names(step, evidence)
    if tools:
        parts.append(", ".join(tools))
    return " · ".join(parts)


def describe_step(step: RunStep, evidence: EvidenceIndex) -> StepDetail:
    base = _common_facts(step, evidence)
    transitions = tuple((t.source, t.target, t.via, t.label or "") for t in step.transitions)
    events = _events_at(step.runtime_stage_id, evidence)
    heading = _HEADINGS.get(step.kind, "Step")
    common = dict(transitions=transitions, events=events, meta=step.meta)
    if step.kind == REACT:
        return _react_detail(step, evidence, heading, base, common)
    if step.kind == DECIDE:
        meta = step.meta or {}
        decision = next(iter(evidence.stages.boundary_events_at(
            step.runtime_stage_id, boundary_names.DECISION_BRANCH)), {})
        facts = [Fact("chosen", _text(meta.get("chosen", decision.get("chosen"))))]
        rationale = decision_rationale(step, evidence)
        absent = () if rationale else ("the recording gives no rationale for this decision",)
        if decision.get("decider") is not None:
            facts.append(Fact("decider", _text(decision.get("decider"))))
        texts = (TextValue("Rationale", display_text(rationale)),) if rationale else ()
        return StepDetail(heading, tuple(facts) + base, texts, absent=absent, **common)
    if step.kind in (FORK, MERGE):
        meta = step.meta or {}
        ends = [t.target for t in step.transitions] if step.kind == FORK else [t.source for t in step.transitions]
        facts = [Fact("branches", str(len(ends)))]
        if meta.get("parentSubflowId") is not None:
            facts.append(Fact("parent", _text(meta["parentSubflowId"])))
        texts: tuple[TextValue, ...] = ()
        if step.kind == MERGE:
            merged = merged_result(step, evidence)
            if merged is not None:
                texts = (TextValue("Merged result", display_text(merged)),)
        return StepDetail(heading, tuple(facts) + base, texts, branches=tuple(ends), **common)
    if step.kind == ITERATION:
        meta = step.meta or {}
        facts = [Fact("pass", _text(meta.get("index", step.label))),
                 Fact("loops back to", _text(meta.get("target", "")))]
        output = pass_output(step, evidence)
        texts = (TextValue("This pass's output", display_text(output)),) if output is not None else ()
        absent = () if texts else ("the recording carries no output for this pass",)
        return StepDetail(heading, tuple(facts) + base, texts, absent=absent, **common)
    if step.kind == SEQUENTIAL:
        return _handoff_detail(step, evidence, heading, base, common)
    return StepDetail(heading, base, **common)


# ─── per kind ──────────────────────────────────────────────────────────


def _react_detail(step: RunStep, evidence: EvidenceIndex, heading: str,
                  base: tuple[Fact, ...], common: dict) -> StepDetail:
    call = step_call(step, evidence)
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
        if call.output == "" and arrow == LLM_TO_TOOL:
            pass  # no text beside the tool request: an empty box would only push the tools down
        elif call.output is not None:
            texts.append(TextValue("Model output", display_text(call.output)))
        elif call.ended:
            absent.append("the recording carries no output text for this call (lean mode?)")
        else:
            absent.append("the recording has no end for this model call (the run stopped?)")
    if arrow == LLM_TO_TOOL:
        tools_asked = tuple(_tool_view(t) for t in step_tools(step, evidence))
        if not tools_asked:
            absent.append("no tool-call events follow this model call in the recording")
    if arrow == TOOL_TO_LLM:
        tool_results = tuple(_tool_view(t) for t in step_tools(step, evidence))
    return StepDetail(heading, facts, tuple(texts), tools_asked, tool_results,
                      absent=tuple(absent), call_id=call.id, **common)


def _handoff_detail(step: RunStep, evidence: EvidenceIndex, heading: str,
                    base: tuple[Fact, ...], common: dict) -> StepDetail:
    # The boundary events at a handoff's stage are the subflow's entry and exit;
    # asks/forwards hand over the entry payload, answers return the exit payload.
    kind = boundary_names.SUBFLOW_EXIT if step.label == "answers" else boundary_names.SUBFLOW_ENTRY
    texts = []
    for event in evidence.stages.boundary_events_at(step.runtime_stage_id, kind):
        if "payload" in event:
            returned = kind == boundary_names.SUBFLOW_EXIT
            title = "Answer returned" if returned else "Input handed over"
            texts.append(TextValue(title, display_text(event["payload"])))
    absent = () if texts else ("the recording carries no payload for this handoff",)
    if step.label in HANDOFF_LABELS:
        heading = f"{heading} · {step.label}"
    return StepDetail(heading, base, tuple(texts), absent=absent, **common)


# ─── helpers ───────────────────────────────────────────────────────────


def _common_facts(step: RunStep, evidence: EvidenceIndex) -> tuple[Fact, ...]:
    facts = [Fact("stage", step.runtime_stage_id),
             Fact("subflow path", " / ".join(step.anchor.subflow_path))]
    started = evidence.stages.run_started_ms
    if started is not None:
        facts.append(Fact("at", f"+{format_ms(step.ts_ms - started)} from run start"))
    return tuple(facts)


def _call_facts(call: ModelCall) -> tuple[Fact, ...]:
    tokens_in, tokens_out = call.tokens
    # The recorded duration; the wall clock between start and end when none was recorded.
    duration = call.duration_ms if call.duration_ms is not None else call.wall_ms
    pairs: list[tuple[str, Any]] = [
        ("model", call.model),
        ("provider", call.provider),
        ("stop reason", call.stop_reason),
        ("tokens in", tokens_in),
        ("tokens out", tokens_out),
        ("duration", format_ms(duration) if duration is not None else None),
        ("messages sent", call.messages_count),
        ("tools offered", call.tools_count),
        ("tool calls asked", call.tool_call_count),
    ]
    return tuple(Fact(name, _text(value)) for name, value in pairs if value is not None)


def _tool_view(tool: ToolCall) -> ToolCallView:
    return ToolCallView(
        name=tool.name or "(unnamed tool)",
        call_id=tool.tool_call_id,
        args=None if "args" in tool.missing else display_text(tool.args),
        result=display_text(tool.result) if tool.has_result else None,
        failed=tool.failed,
        duration=format_ms(tool.duration_ms) if tool.duration_ms is not None else None,
    )


def _events_at(runtime_stage_id: str, evidence: EvidenceIndex) -> tuple[EventRef, ...]:
    stages = evidence.stages
    refs = [EventRef("boundary", i, _event_type(stages.boundary_events[i]))
            for i in stages.boundary_indexes(runtime_stage_id)]
    refs += [EventRef("typed", i, _event_type(stages.typed_events[i]))
             for i in stages.typed_indexes(runtime_stage_id)]
    return tuple(refs)


def _event_type(event: dict) -> str:
    kind = event.get("type")
    return "(no type recorded)" if kind is None else value_text(kind)


def _text(value: Any) -> str:
    """A fact's value: numbers as JavaScript prints them, other values as text."""
    return js_number_text(value) if is_number(value) else value_text(value)

"""The served context of one model call: what the model was given, and from where.

:func:`served_context` builds, for one call, its three slots as served (each
piece with its provenance and a link to where it came from), the facts of
``llm_start`` and ``llm_end``, the output and the tool calls it asked for,
the skill evaluation, evictions and budget pressure before it, and the
change since the previous call in its scope (:mod:`lens.evidence.delta`).

Recording text in the model is shown as :class:`lens.text.DisplayText`
(clipped, invisible characters visible) and must still be rendered as text;
``title``, ``notices``, ``status`` and ``provenance`` are this module's own
words with ids quoted as data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from recorders.evidence import (MESSAGES, SOURCE_BOUNDARY, SYSTEM_PROMPT, TOOLS,
                                EvidenceIndex, Eviction, ModelCall, Piece, SlotComposition,
                                StepMap, ToolCall)
from recorders.catalogue import CONTEXT_BUDGET_PRESSURE, short_name
from recorders.values import is_number, js_number_text, json_text
from lens.evidence.delta import SLOT_TITLES, ContextDelta, context_delta, slot_order
from lens.evidence.nav import Nav, call_title, nav_for_call, nav_for_tool
from lens.text import DisplayText, display_text, grouped

# The type of the notes the evidence index keeps of a context.budget_pressure event.
_BUDGET_PRESSURE_NOTE = short_name(CONTEXT_BUDGET_PRESSURE)


@dataclass(frozen=True)
class PieceRow:
    position: int | None
    role: str | None
    source: str | None
    source_id: str | None
    reason: str | None
    content: DisplayText | None
    provenance: str           # our words + ids, e.g. "result of tool call c4 (issue_refund)"
    change: str | None        # "added" | "changed" | None (vs previous call in the scope)
    error: bool
    missing: tuple[str, ...]
    nav: Nav | None


def piece_pages(rows: Sequence[PieceRow], per_page: int) -> tuple[list[range], int]:
    """The slot's pieces in pages of ``per_page``, and the page to show first:
    the one holding the first piece that changed since the previous call (a
    long conversation's new messages are at its end), else the first."""
    pages = [range(start, min(start + per_page, len(rows)))
             for start in range(0, len(rows), per_page)] or [range(0)]
    changed = next((n for n, row in enumerate(rows) if row.change), 0)
    return pages, changed // per_page


@dataclass(frozen=True)
class SlotPanel:
    slot: str
    title: str
    status: str               # our words: composed / carried over / not composed / ...
    budget: str               # our words and numbers only
    dropped: tuple[DisplayText, ...]
    dropped_count: int | None
    rows: tuple[PieceRow, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class ToolRow:
    tool_id: int
    name: str | None
    tool_call_id: str | None
    args: DisplayText | None
    result: DisplayText | None
    status: str               # "ok" | "error" | "did not end" | "not recorded"
    error: bool
    duration_ms: float | None
    missing: tuple[str, ...]
    notes: tuple[DisplayText, ...]


@dataclass(frozen=True)
class ServedContext:
    call_id: int
    title: str                # our words and numbers only
    facts: tuple[tuple[str, str], ...]   # (label, value); values may be recording text
    notices: tuple[str, ...]  # our words only: what is missing, carried over, inconsistent
    slots: tuple[SlotPanel, ...]
    skills: DisplayText | None
    evictions: tuple[DisplayText, ...]
    pressure: tuple[DisplayText, ...]
    other_events: tuple[DisplayText, ...]   # skill.*, tools.* ... before this call
    output: DisplayText | None
    output_status: str
    usage: str
    tool_rows: tuple[ToolRow, ...]
    route: DisplayText | None
    failure: DisplayText | None
    delta: "ContextDelta"
    start_nav: Nav
    end_nav: Nav


def served_context(index: EvidenceIndex, call_id: int,
                   step_map: StepMap | None = None) -> ServedContext:
    """Everything the model was served at this call, with provenance and delta."""
    call = index.calls[call_id]
    delta = context_delta(index, call_id)
    changes = {(item.slot, item.key): item.change for item in delta.items
               if item.change in ("added", "changed")}
    notices: list[str] = list(index.notices)
    if not call.ended:
        notices.append("This call did not end in the recording (no stream.llm_end): its output, "
                       "token usage, stop reason and duration are not recorded.")
    if call.failure is not None:
        notices.append("A fatal error was recorded while this call was open (shown below).")
    if index.before_the_resume(call.run_id):
        notices.append("This call comes before the run's pause: the file's snapshot (its state) "
                       "holds only the part after the resume.")
    elif call.in_boundary_log is False:
        notices.append("This call is not in the boundary log (it belongs to an earlier run), so "
                       "no step on the slider shows it.")
    slots: list[SlotPanel] = []
    for slot in slot_order(call):
        slots.append(_slot_panel(index, call, slot, call.slots.get(slot), changes, step_map))
    notices.extend(_count_checks(call))
    not_recorded = [m for m in call.missing if m not in ("llm_end",)]
    if not_recorded and call.ended:
        notices.append("Not recorded for this call: " + ", ".join(sorted(not_recorded)) + ".")
    facts = _facts(index, call)
    tool_rows = tuple(_tool_row(index.tool_calls[t]) for t in call.tool_calls)
    if call.ended:
        output_status = "recorded" if call.output is not None else "not recorded (no content)"
    else:
        output_status = "not recorded: the call did not end"
    return ServedContext(
        call_id=call.id, title=call_title(call), facts=facts, notices=tuple(notices),
        slots=tuple(slots),
        skills=display_text(_skills_text(call)) if call.evaluated is not None else None,
        evictions=tuple(display_text(_eviction_text(e)) for e in call.evictions),
        pressure=tuple(display_text(n.payload) for n in call.notes
                       if n.type == _BUDGET_PRESSURE_NOTE),
        other_events=tuple(display_text(f"{n.type}: {json_text(n.payload)}") for n in call.notes
                           if n.type != _BUDGET_PRESSURE_NOTE),
        output=display_text(call.output) if call.output is not None else None,
        output_status=output_status, usage=_usage_text(call), tool_rows=tool_rows,
        route=display_text(call.route) if call.route is not None else None,
        failure=display_text(call.failure) if call.failure is not None else None,
        delta=delta,
        start_nav=nav_for_call(index, step_map, call.id),
        end_nav=nav_for_call(index, step_map, call.id, end=True),
    )


def served_context_for_step(index: EvidenceIndex, step_map: StepMap,
                            position: int) -> tuple[ServedContext | None, str | None]:
    """The served context for a slider position, and a note when the step is
    not itself a model call (then the last call before it is shown)."""
    call_id, exact = step_map.call_at(position)
    if call_id is None:
        if not index.calls:
            return None, (index.notices[0] if index.notices else
                          "No model call was recorded in this run.")
        return None, "No model call at or before this step."
    note = None if exact else ("This step is not a model call; showing the last model call "
                               "that started before it.")
    return served_context(index, call_id, step_map), note


def _slot_panel(index: EvidenceIndex, call: ModelCall, slot: str,
                composition: SlotComposition | None, changes: dict,
                step_map: StepMap | None) -> SlotPanel:
    title = SLOT_TITLES.get(slot, "Another slot")  # an unknown slot name is recording text
    notes: list[str] = []
    if composition is None:
        if slot == TOOLS and call.tools_count == 0:
            status = "no tools offered (llm_start: toolsCount 0)"
        elif slot == TOOLS and call.tools_offered:
            status = "not composed; llm_start lists the tools offered (see facts)"
        elif index.source == SOURCE_BOUNDARY and slot == TOOLS:
            status = "not recorded: the boundary log has no tool-slot injections here"
        else:
            status = ("not recorded: no injection into this slot was recorded for this call "
                      "or any earlier call in its scope")
        return SlotPanel(slot, title, status, "not recorded", (), None, (), tuple(notes))
    if composition.origin == "carried":
        status = (f"not recomposed for this call: carried over from model call "
                  f"{(composition.carried_from or 0) + 1}")
    elif composition.composed_event_index is None:
        status = "injections recorded for this call (no slot composition event)"
    else:
        status = "composed for this call"
    if composition.composed_event_index is None:
        budget = "not recorded (no context.slot_composed for this slot)"
    else:
        budget = _budget_text(composition)
    if composition.missing:
        notes.append("Not recorded in context.slot_composed: "
                     + ", ".join(composition.missing) + ".")
    rows = []
    for piece in composition.pieces:
        change = changes.get((slot, piece.key)) if composition.origin == "fresh" else None
        rows.append(_piece_row(index, call, piece, change, step_map))
    if not composition.pieces:
        notes.append("The slot was composed with no pieces.")
    if any(p.content_is_summary for p in composition.pieces):
        notes.append("Some pieces carry only the recorder's summary, not their full text.")
    if any(p.content is None for p in composition.pieces):
        notes.append("Some pieces have no content recorded at all (lean boundary log, no "
                     "typed stream).")
    dropped = tuple(display_text(d) for d in composition.dropped_summaries or ())
    return SlotPanel(slot, title, status, budget, dropped, composition.dropped_count,
                     tuple(rows), tuple(notes))


def _piece_row(index: EvidenceIndex, call: ModelCall, piece: Piece, change: str | None,
               step_map: StepMap | None) -> PieceRow:
    provenance, nav, error = _provenance(index, call, piece, step_map)
    content = display_text(piece.content) if piece.content is not None else None
    return PieceRow(position=piece.position, role=piece.role, source=piece.source,
                    source_id=piece.source_id, reason=piece.reason, content=content,
                    provenance=provenance, change=change, error=error,
                    missing=piece.missing, nav=nav)


def _provenance(index: EvidenceIndex, call: ModelCall, piece: Piece,
                step_map: StepMap | None) -> tuple[str, Nav | None, bool]:
    """Where a piece came from, in our words (ids quoted as data)."""
    if piece.slot == MESSAGES:
        if piece.tool_call is not None:
            tool = index.tool_calls[piece.tool_call]
            status = "ERROR result" if tool.error else "result"
            asked = (f", asked for by model call {tool.requested_by + 1}"
                     if tool.requested_by is not None else "")
            return (f"{status} of tool call {tool.tool_call_id} ({tool.name}){asked}",
                    nav_for_tool(index, step_map, tool.id), bool(tool.error))
        if piece.is_tool_result:
            if piece.source_id is None:
                return "tool result; the recording names no tool call id", None, False
            return (f"tool result for tool call {piece.source_id}; that call is not in the "
                    "recording", None, False)
        if piece.written_by is not None:
            return (f"written by model call {piece.written_by + 1} (matched by identical text)",
                    nav_for_call(index, step_map, piece.written_by, end=True), False)
        if piece.from_user_prompt:
            return "the user's prompt for this turn (agent.turn_start)", None, False
        if piece.matches_output_of is not None:
            return (f"same text as the output of model call {piece.matches_output_of + 1} "
                    "(matched by identical text)",
                    nav_for_call(index, step_map, piece.matches_output_of, end=True), False)
        if piece.content is None or piece.content_is_summary:
            return (f"{piece.role or piece.source or 'message'}; cannot be traced: only a "
                    "summary or nothing of its text was recorded", None, False)
        if piece.role == "assistant" or piece.source == "assistant":
            return ("assistant message; no earlier model call in this scope wrote this text",
                    None, False)
        return f"{piece.source or piece.role or 'message'} message", None, False
    if piece.slot == SYSTEM_PROMPT:
        if piece.source == "skill":
            return f"skill {piece.source_id} (active skill body)", None, False
        return f"source {piece.source}" + (f" {piece.source_id}" if piece.source_id else ""), \
            None, False
    if piece.slot == TOOLS:
        if piece.source == "skill":
            return f"unlocked by skill {piece.source_id}", None, False
        return f"from the tool {piece.source or 'source'}", None, False
    return f"source {piece.source}", None, False


def _facts(index: EvidenceIndex, call: ModelCall) -> tuple[tuple[str, str], ...]:
    def val(value: Any) -> str:
        return "not recorded" if value is None else js_number_text(value)

    facts = [
        ("Model", val(call.model)),
        ("Provider", val(call.provider)),
        ("Scope", "/".join(call.scope) if call.scope else "(root)"),
        ("runtimeStageId", val(call.runtime_stage_id)),
        ("Run", val(call.run_id)),
        ("Iteration", val(call.iteration)),
        ("System prompt chars (llm_start)", val(call.system_prompt_chars)),
        ("Messages (llm_start)", val(call.messages_count)),
        ("Tools offered (llm_start)", val(call.tools_count)),
    ]
    if call.tools_offered is not None:
        names = [t.get("name") if isinstance(t, dict) else t for t in call.tools_offered]
        facts.append(("Tool names (llm_start)", ", ".join(map(str, names)) or "none"))
    if call.turn_index is not None:
        facts.append(("Turn", str(call.turn_index)))
    if call.ended:
        tokens_in, tokens_out = call.tokens
        facts += [
            ("Stop reason (llm_end)", val(call.stop_reason)),
            ("Input tokens (llm_end)", val(tokens_in)),
            ("Output tokens (llm_end)", val(tokens_out)),
            ("Duration ms (llm_end)", val(call.duration_ms)),
            ("Tool calls asked for (llm_end)", val(call.tool_call_count)),
        ]
    else:
        facts.append(("Output", "not recorded: the call did not end"))
    return tuple(facts)


def _count_checks(call: ModelCall) -> list[str]:
    """Where llm_start's counts disagree with the recorded injections."""
    notes: list[str] = []
    checks = ((MESSAGES, call.messages_count, "messages"), (TOOLS, call.tools_count, "tools"))
    for slot, count, noun in checks:
        composition = call.slots.get(slot)
        if count is None or composition is None:
            continue
        if len(composition.pieces) != count:
            notes.append(f"llm_start says {int(count)} {noun} were sent, but "
                         f"{len(composition.pieces)} {noun} injections were recorded for this "
                         "call: the recorded slot may not be exactly what the model saw.")
    system = call.slots.get(SYSTEM_PROMPT)
    if call.system_prompt_chars is not None and system is not None and system.pieces and all(
            p.content is not None and not p.content_is_summary for p in system.pieces):
        total = sum(len(p.content or "") for p in system.pieces)
        if abs(total - call.system_prompt_chars) > 2 * max(len(system.pieces) - 1, 0) + 2:
            notes.append(f"llm_start says the system prompt had {int(call.system_prompt_chars)} "
                         f"characters; the recorded pieces add up to {total}.")
    return notes


def _budget_text(composition: SlotComposition) -> str:
    budget = composition.budget
    parts = []
    if isinstance(budget, dict):
        for key, label in (("cap", "cap"), ("used", "used"), ("headroomChars", "headroom")):
            value = budget.get(key)
            if is_number(value):
                parts.append(f"{label} {grouped(value)}")
            else:
                parts.append(f"{label} not recorded")
    else:
        parts.append("budget not recorded")
    if composition.dropped_count is not None:
        parts.append(f"dropped {composition.dropped_count}")
    else:
        parts.append("drops not recorded")
    return " · ".join(parts)


def _usage_text(call: ModelCall) -> str:
    parts = []
    if call.usage is not None:
        for key, value in zip(("input", "output"), call.tokens):
            parts.append(f"{key} tokens {grouped(value)}" if value is not None
                         else f"{key} tokens not recorded")
    else:
        parts.append("token usage not recorded")
    parts.append("duration " + (f"{grouped(call.duration_ms, 0)} ms" if call.duration_ms is not None
                                else "not recorded"))
    if call.wall_ms is not None:
        parts.append(f"wall {grouped(call.wall_ms, 0)} ms")
    parts.append("stop reason recorded" if call.stop_reason is not None
                 else "stop reason not recorded")
    return " · ".join(parts)


def _skills_text(call: ModelCall) -> str:
    ev = call.evaluated or {}
    lines = [f"active: {json_text(ev.get('activeIds', 'not recorded'))}"]
    if "cursorMove" in ev:
        lines.append(f"cursor move: {json_text(ev.get('cursorMove'))}")
    if "routing" in ev:
        lines.append(f"routing: {json_text(ev.get('routing'))}")
    if ev.get("skippedDetails"):
        lines.append(f"skipped: {json_text(ev.get('skippedDetails'))}")
    return "\n".join(lines)


def _eviction_text(eviction: Eviction) -> str:
    text = (f"slot {eviction.slot} · reason {eviction.reason} · hash {eviction.content_hash}"
            f" · survived {eviction.survival_ms} ms")
    if eviction.pieces:
        piece = eviction.pieces[0]
        text += f"\n{piece.role or piece.source}: {piece.content}"
    return text


def _tool_row(tool: ToolCall) -> ToolRow:
    if not tool.ended:
        status = "did not end"
    elif tool.error:
        status = "error"
    elif "result" in tool.missing:
        status = "not recorded"
    else:
        status = "ok"
    return ToolRow(
        tool_id=tool.id, name=tool.name, tool_call_id=tool.tool_call_id,
        args=None if "args" in tool.missing else display_text(tool.args),
        result=None if (not tool.ended or "result" in tool.missing) else display_text(tool.result),
        status=status, error=bool(tool.error), duration_ms=tool.duration_ms,
        missing=tuple(tool.missing),
        notes=tuple(display_text(f"{n.type}: {json_text(n.payload)}") for n in tool.notes))



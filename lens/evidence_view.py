"""Evidence views: served context, delta, backtrack chain, report, search.

Pure functions from an :class:`recorders.evidence.EvidenceIndex` (and a
:class:`recorders.evidence.StepMap` for the step list on screen) to plain view
models. No streamlit, plotly or pandas here; ``lens_ui/evidence_panel.py``
renders these.

Everything taken from the recording is untrusted. Display strings made here
(:func:`display_text`) are truncated and have control, bidi-override and
invisible characters made visible, but are still *text*: the UI must show them
with ``st.text`` / ``st.code`` / ``st.dataframe`` only. Free-form strings the
view models write themselves (``notices``, ``relation``, ``status``) contain
no recording content and may be shown anywhere. The Markdown report puts every
recording value in a code span or a fenced block whose fence is longer than
any backtick run inside it, so nothing in it can become live Markdown or HTML.
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Sequence

from recorders.evidence import (
    MESSAGES,
    SLOTS,
    SOURCE_BOUNDARY,
    SYSTEM_PROMPT,
    TOOLS,
    EvidenceIndex,
    ModelCall,
    Piece,
    SlotComposition,
    StepMap,
    ToolCall,
)

DISPLAY_LIMIT = 1_500      # characters of a value shown inline
SNIPPET_RADIUS = 80        # characters either side of a search match
REPORT_LIMIT = 4_000       # characters of a value written into the report
MAX_BACKTRACK_LINKS = 400

SLOT_TITLES = {SYSTEM_PROMPT: "System prompt", MESSAGES: "Messages", TOOLS: "Tools"}

# Characters that would hide or reorder text on screen: C0/C1 controls (but
# tab and newline), DEL, bidi embeddings/overrides/isolates/marks, zero-width
# space, BOM, line/paragraph separators. Shown as \uXXXX instead.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028\u2029"
    "\u202a-\u202e\u2066-\u2069\ufeff]")


# ─── Safe display strings ──────────────────────────────────────────────


@dataclass(frozen=True)
class DisplayText:
    """A value prepared for screen: ``text`` is at most ``limit`` characters of
    the value (plus a marker), with invisible characters made visible.
    ``full`` is the untouched value, for a download or an expand."""

    text: str
    truncated: bool
    length: int
    full: str

    @property
    def size_note(self) -> str:
        return f"{self.length:,} characters" + (", truncated on screen" if self.truncated else "")


def make_visible(value: str) -> str:
    """Show control, bidi and zero-width characters as ``\\uXXXX``."""
    return _INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", value)


def as_text(value: Any) -> str:
    """A recorded value (string or JSON) as text."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, indent=None, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(value)[:10_000]


def display_text(value: Any, limit: int = DISPLAY_LIMIT) -> DisplayText:
    full = as_text(value)
    truncated = len(full) > limit
    shown = full[:limit] if truncated else full
    shown = make_visible(shown)
    if truncated:
        shown += f" … [{len(full) - limit:,} more characters not shown]"
    return DisplayText(shown, truncated, len(full), full)


# ─── Served context ────────────────────────────────────────────────────


@dataclass(frozen=True)
class Nav:
    """Where a link leads: a step position (or None, with the reason)."""

    step: int | None
    exact: bool
    call_id: int | None = None
    tool_id: int | None = None
    why_no_step: str | None = None


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


def call_title(call: ModelCall) -> str:
    """Numbers and fixed words only (safe for any label)."""
    title = f"Model call {call.id + 1}"
    if call.scope:
        title += f" · call {call.ordinal_in_scope} of its scope"
    else:
        title += f" · call {call.ordinal_in_scope} at the root"
    if call.iteration is not None:
        title += f" · iteration {call.iteration}"
    return title


def nav_for_call(index: EvidenceIndex, step_map: StepMap | None, call_id: int,
                 end: bool = False) -> Nav:
    if step_map is None:
        return Nav(None, False, call_id=call_id, why_no_step="no step list given")
    exact = step_map.end_step(call_id) if end else step_map.start_step(call_id)
    if exact is not None:
        return Nav(exact, True, call_id=call_id)
    call = index.calls[call_id]
    if call.in_boundary_log is False:
        return Nav(None, False, call_id=call_id,
                   why_no_step="this call is not in the boundary log (an earlier run), "
                               "so no step shows it")
    near = step_map.nearest_step(call_id)
    if near is None:
        return Nav(None, False, call_id=call_id, why_no_step="no step at or before this call")
    return Nav(near, False, call_id=call_id,
               why_no_step="the step list does not show model calls here; nearest step before it")


def nav_for_tool(index: EvidenceIndex, step_map: StepMap | None, tool_id: int) -> Nav:
    if step_map is None:
        return Nav(None, False, tool_id=tool_id, why_no_step="no step list given")
    tool = index.tool_calls[tool_id]
    if tool.requested_by is not None and index.calls[tool.requested_by].in_boundary_log is False:
        return Nav(None, False, tool_id=tool_id, call_id=tool.requested_by,
                   why_no_step="this tool call belongs to an earlier run, which has no steps")
    step, exact = step_map.step_for_tool(tool_id)
    return Nav(step, exact, tool_id=tool_id, call_id=tool.requested_by,
               why_no_step=None if exact else
               ("nearest step before the tool call" if step is not None else
                "no step at or before this tool call"))


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
    if call.in_boundary_log is False:
        notices.append("This call is not in the boundary log (it belongs to an earlier run), so "
                       "no step on the slider shows it.")
    slots: list[SlotPanel] = []
    for slot in _slot_order(call):
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
        pressure=tuple(display_text(as_text(n.payload)) for n in call.notes
                       if n.type == "context.budget_pressure"),
        other_events=tuple(display_text(f"{n.type}: {as_text(n.payload)}") for n in call.notes
                           if n.type != "context.budget_pressure"),
        output=display_text(call.output) if call.output is not None else None,
        output_status=output_status, usage=_usage_text(call), tool_rows=tool_rows,
        route=display_text(as_text(call.route)) if call.route is not None else None,
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


def _slot_order(call: ModelCall) -> list[str]:
    extra = [s for s in call.slots if s not in SLOTS]
    return list(SLOTS) + extra


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
        change = changes.get((slot, _label_key(piece))) if composition.origin == "fresh" else None
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
        if value is None:
            return "not recorded"
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)

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
        usage = call.usage if isinstance(call.usage, dict) else {}
        facts += [
            ("Stop reason (llm_end)", val(call.stop_reason)),
            ("Input tokens (llm_end)", val(usage.get("input"))),
            ("Output tokens (llm_end)", val(usage.get("output"))),
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
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                parts.append(f"{label} {value:,}")
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
    usage = call.usage
    if isinstance(usage, dict):
        for key in ("input", "output"):
            value = usage.get(key)
            parts.append(f"{key} tokens {value:,}" if isinstance(value, (int, float))
                         and not isinstance(value, bool) else f"{key} tokens not recorded")
    else:
        parts.append("token usage not recorded")
    parts.append("duration " + (f"{call.duration_ms:,.0f} ms" if call.duration_ms is not None
                                else "not recorded"))
    if call.ts_start is not None and call.ts_end is not None:
        parts.append(f"wall {call.ts_end - call.ts_start:,.0f} ms")
    parts.append("stop reason recorded" if call.stop_reason is not None
                 else "stop reason not recorded")
    return " · ".join(parts)


def _skills_text(call: ModelCall) -> str:
    ev = call.evaluated or {}
    lines = [f"active: {as_text(ev.get('activeIds', 'not recorded'))}"]
    if "cursorMove" in ev:
        lines.append(f"cursor move: {as_text(ev.get('cursorMove'))}")
    if "routing" in ev:
        lines.append(f"routing: {as_text(ev.get('routing'))}")
    if ev.get("skippedDetails"):
        lines.append(f"skipped: {as_text(ev.get('skippedDetails'))}")
    return "\n".join(lines)


def _eviction_text(eviction) -> str:
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
        notes=tuple(display_text(f"{n.type}: {as_text(n.payload)}") for n in tool.notes))


# ─── Delta ─────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class DeltaItem:
    slot: str
    change: str               # "added" | "removed" | "changed"
    key: tuple
    what: str                 # our words + ids
    before: DisplayText | None
    after: DisplayText | None


@dataclass(frozen=True)
class ContextDelta:
    call_id: int
    previous_call_id: int | None
    items: tuple[DeltaItem, ...]
    summary: str              # our words and numbers only
    skills_added: tuple[str, ...] = ()
    skills_removed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def in_slot(self, slot: str, change: str | None = None) -> list[DeltaItem]:
        return [i for i in self.items if i.slot == slot and (change is None or i.change == change)]


def _label_key(piece: Piece) -> tuple:
    return piece.key


def _keyed(pieces: Sequence[Piece]) -> dict[tuple, Piece]:
    seen: dict[tuple, int] = {}
    out: dict[tuple, Piece] = {}
    for piece in pieces:
        key = piece.key
        n = seen.get(key, 0)
        seen[key] = n + 1
        out[key if n == 0 else key + (f"#{n + 1}",)] = piece
    return out


def _what(piece: Piece) -> str:
    if piece.slot == TOOLS:
        return f"tool {piece.key[1]}" + (
            f" (unlocked by skill {piece.source_id})" if piece.source == "skill" else "")
    if piece.is_tool_result:
        return f"tool result {piece.source_id}"
    if piece.slot == SYSTEM_PROMPT:
        return f"system prompt piece from {piece.source}" + (
            f" {piece.source_id}" if piece.source_id else "")
    return f"{piece.role or piece.source or 'message'} message"


def context_delta(index: EvidenceIndex, call_id: int) -> ContextDelta:
    """Pieces added, removed and changed against the previous call in the scope."""
    call = index.calls[call_id]
    prev = index.previous_call(call_id)
    if prev is None:
        return ContextDelta(call_id, None, (), "First model call in its scope: nothing to "
                            "compare with.")
    items: list[DeltaItem] = []
    notes: list[str] = []
    for slot in _slot_order(call):
        now, before = call.slots.get(slot), prev.slots.get(slot)
        if now is None and before is None:
            continue
        if now is not None and now.origin == "carried":
            notes.append(f"{SLOT_TITLES.get(slot, 'Another slot')}: not recomposed, unchanged.")
            continue
        cur = _keyed(now.pieces) if now is not None else {}
        old = _keyed(before.pieces) if before is not None else {}
        for key, piece in cur.items():
            if key not in old:
                items.append(DeltaItem(slot, "added", piece.key, _what(piece), None,
                                       _dt(piece)))
            elif (old[key].content or "") != (piece.content or ""):
                items.append(DeltaItem(slot, "changed", piece.key, _what(piece),
                                       _dt(old[key]), _dt(piece)))
        for key, piece in old.items():
            if key not in cur:
                items.append(DeltaItem(slot, "removed", piece.key, _what(piece), _dt(piece),
                                       None))
    skills_now = _active_skills(call)
    skills_before = _active_skills(prev)
    added = tuple(s for s in skills_now if s not in skills_before) if skills_now is not None \
        and skills_before is not None else ()
    removed = tuple(s for s in skills_before if s not in skills_now) if skills_now is not None \
        and skills_before is not None else ()
    if call.model != prev.model and call.model is not None and prev.model is not None:
        notes.append("The model changed since the previous call.")
    counts = {c: sum(1 for i in items if i.change == c) for c in ("added", "removed", "changed")}
    summary = (f"Against model call {prev.id + 1} (the previous call in this scope): "
               f"{counts['added']} added, {counts['removed']} removed, "
               f"{counts['changed']} changed")
    if added or removed:
        summary += f"; active skills: +{len(added)} −{len(removed)}"
    return ContextDelta(call_id, prev.id, tuple(items), summary + ".", added, removed,
                        tuple(notes))


def _dt(piece: Piece) -> DisplayText | None:
    return display_text(piece.content) if piece.content is not None else None


def _active_skills(call: ModelCall) -> tuple[str, ...] | None:
    ev = call.evaluated
    if not isinstance(ev, dict) or not isinstance(ev.get("activeIds"), list):
        return None
    return tuple(str(s) for s in ev["activeIds"])


# ─── Backtrack ─────────────────────────────────────────────────────────


@dataclass(frozen=True)
class BacktrackLink:
    number: int
    depth: int
    relation: str             # our words: "final answer", "tool result", "asked for by", ...
    kind: str                 # "output" | "system" | "message" | "tool" | "call" | "tools" |
                              # "evicted" | "context" (a call's own context follows) | "note"
    title: str                # may hold recording ids/names: show as text
    text: DisplayText | None
    call_id: int | None
    tool_id: int | None
    error: bool
    inferred: str | None      # how a link was inferred when the recording has no id for it
    nav: Nav | None


@dataclass(frozen=True)
class BacktrackChain:
    target_call_id: int | None
    links: tuple[BacktrackLink, ...]
    truncated: bool
    notes: tuple[str, ...]

    def tools(self) -> list[BacktrackLink]:
        return [link for link in self.links if link.kind == "tool"]


def backtrack(index: EvidenceIndex, call_id: int | None = None,
              step_map: StepMap | None = None,
              max_links: int = MAX_BACKTRACK_LINKS) -> BacktrackChain:
    """From a model output (the final answer by default) back through the
    context that fed it: tool results to their tool calls and the model calls
    that asked for them, assistant messages to the calls that wrote them,
    recursively, down to the user's message and the system prompt. Each piece
    is listed once, where it is first met."""
    target = index.calls[call_id] if call_id is not None else index.final_call()
    notes = list(index.notices)
    if target is None:
        return BacktrackChain(None, (), False, tuple(notes + ["No model call was recorded."]))
    links: list[BacktrackLink] = []
    seen_calls = {target.id}
    seen_pieces: set[tuple] = set()
    seen_tools: set[tuple] = set()

    def make(depth: int, relation: str, kind: str, title: str, text: Any = None,
             call: int | None = None, tool: int | None = None, error: bool = False,
             inferred: str | None = None, nav: Nav | None = None) -> BacktrackLink:
        return BacktrackLink(0, depth, relation, kind, title,
                             display_text(text) if text is not None else None, call, tool,
                             error, inferred, nav)

    final = index.final_call()
    relation = "final answer" if final is not None and target.id == final.id \
        and target.is_final_answer else "model output"
    first = make(0, relation, "output", call_title(target),
                 target.output if target.output is not None else None, call=target.id,
                 nav=nav_for_call(index, step_map, target.id, end=True))
    if target.output is None:
        notes.append("The chosen call's output is not recorded.")

    def expand(call: ModelCall, depth: int) -> Iterator[tuple[BacktrackLink, ModelCall | None]]:
        served_nav = nav_for_call(index, step_map, call.id)
        if not call.slots:
            yield make(depth, "no context recorded", "note",
                       f"{call_title(call)}: no injections were recorded", call=call.id,
                       nav=served_nav), None
            return
        scope_key = (call.run_id, call.scope)
        system = call.slots.get(SYSTEM_PROMPT)
        for piece in system.pieces if system else ():
            key = (scope_key, SYSTEM_PROMPT, piece.key, piece.content)
            if key in seen_pieces:
                continue
            seen_pieces.add(key)
            label = f"{piece.source or 'source not recorded'}" + (
                f" {piece.source_id}" if piece.source_id else "")
            yield make(depth, "system prompt", "system", label, piece.content, call=call.id,
                       nav=served_nav), None
        tools = call.slots.get(TOOLS)
        if tools is not None and tools.pieces:
            names = tuple(str(p.key[1]) for p in tools.pieces)
            if (scope_key, names) not in seen_tools:
                seen_tools.add((scope_key, names))
                yield make(depth, "tools offered", "tools", ", ".join(names), call=call.id,
                           nav=served_nav), None
        messages = call.slots.get(MESSAGES)
        for piece in messages.pieces if messages else ():
            key = (scope_key, MESSAGES, piece.key)
            if key in seen_pieces:
                continue
            seen_pieces.add(key)
            yield from _expand_message(piece, call, depth, served_nav)
        for eviction in call.evictions:
            for piece in eviction.pieces:
                key = (scope_key, piece.slot, piece.key)
                if key in seen_pieces:
                    continue
                seen_pieces.add(key)
                links = _expand_message(piece, call, depth, served_nav)
                link, child = next(links)
                yield replace(link, kind="evicted",
                              relation=f"evicted before this call ({link.relation})"), child
                yield from links

    def _expand_message(piece: Piece, call: ModelCall, depth: int, served_nav: Nav):
        role = piece.role or piece.source or "message"
        if piece.tool_call is not None:
            tool = index.tool_calls[piece.tool_call]
            yield make(depth, "tool result (ERROR)" if tool.error else "tool result",
                       "message", f"{tool.name} {tool.tool_call_id}", piece.content,
                       call=call.id, tool=tool.id, error=bool(tool.error), nav=served_nav), None
            yield make(depth + 1, "returned by tool call", "tool",
                       f"{tool.name} {tool.tool_call_id}",
                       f"arguments: {as_text(tool.args)}", tool=tool.id,
                       call=tool.requested_by, error=bool(tool.error),
                       nav=nav_for_tool(index, step_map, tool.id)), None
            if tool.requested_by is not None:
                asker = index.calls[tool.requested_by]
                yield make(depth + 2, "asked for by", "call", call_title(asker), asker.output,
                           call=asker.id, nav=nav_for_call(index, step_map, asker.id, end=True)
                           ), asker
            else:
                yield make(depth + 2, "asking call not recorded", "note",
                           "no model call before this tool call in its scope"), None
            return
        if piece.is_tool_result:
            yield make(depth, "tool result (tool call not recorded)", "message",
                       str(piece.source_id), piece.content, call=call.id,
                       nav=served_nav), None
            return
        if piece.written_by is not None:
            writer = index.calls[piece.written_by]
            yield make(depth, "assistant message", "message", role, piece.content,
                       call=call.id, nav=served_nav), None
            yield make(depth + 1, "written by", "call", call_title(writer), None,
                       call=writer.id, inferred="matched by identical text",
                       nav=nav_for_call(index, step_map, writer.id, end=True)), writer
            return
        if piece.matches_output_of is not None:
            source = index.calls[piece.matches_output_of]
            yield make(depth, "user message", "message", role, piece.content, call=call.id,
                       nav=served_nav), None
            yield make(depth + 1, "same text as the output of", "call", call_title(source),
                       None, call=source.id, inferred="matched by identical text",
                       nav=nav_for_call(index, step_map, source.id, end=True)), source
            return
        relation = "user message" if role == "user" else f"{role} message"
        if piece.from_user_prompt:
            relation = "user message (the turn's prompt)"
        inferred = None
        if piece.content is None or piece.content_is_summary:
            inferred = "cannot be traced further: only a summary or nothing was recorded"
        yield make(depth, relation, "message", role, piece.content, call=call.id,
                   inferred=inferred, nav=served_nav), None

    links.append(first)
    truncated = False
    # Breadth first: the target's whole context, with each piece's immediate
    # source, comes before the context of the calls those sources lead to; a
    # long history is cut at its far end, never at the answer's own context.
    queue: deque[tuple[ModelCall, int, BacktrackLink | None]] = deque([(target, 1, None)])
    while queue and not truncated:
        call, depth, via = queue.popleft()
        header_due = via is not None
        for link, child in expand(call, depth):
            if len(links) >= max_links - (1 if header_due else 0):
                truncated = True
                break
            if header_due:
                links.append(make(depth - 1, "context served to", "context",
                                  call_title(call), call=call.id,
                                  nav=nav_for_call(index, step_map, call.id)))
                header_due = False
            links.append(link)
            if child is not None and child.id not in seen_calls:
                seen_calls.add(child.id)
                queue.append((child, link.depth + 1, link))
    numbered = tuple(BacktrackLink(n + 1, *_fields(link)[1:]) for n, link in enumerate(links))
    if truncated:
        notes.append(f"The chain was cut at {max_links} links.")
    return BacktrackChain(target.id, numbered, truncated, tuple(notes))


def _fields(link: BacktrackLink) -> tuple:
    return (link.number, link.depth, link.relation, link.kind, link.title, link.text,
            link.call_id, link.tool_id, link.error, link.inferred, link.nav)


# ─── Markdown report ───────────────────────────────────────────────────


def md_code_span(value: Any) -> str:
    """Inline recording text as a code span no content can break out of."""
    text = make_visible(as_text(value)).replace("\r", "\\r").replace("\n", " ⏎ ")
    if not text:
        return "(empty)"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {text} {fence}"


def md_fenced(value: Any, limit: int = REPORT_LIMIT) -> str:
    """A fenced block (``text``) with a fence longer than any backtick run inside."""
    full = as_text(value)
    text = make_visible(full[:limit])
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    block = f"{fence}text\n{text}\n{fence}"
    if len(full) > limit:
        block += f"\n\n_({len(full):,} characters; the first {limit:,} are shown.)_"
    return block


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>\"'=:])")


def md_escape(value: Any) -> str:
    """Escape text for a Markdown paragraph: HTML made inert, every Markdown
    punctuation backslash-escaped, lines joined."""
    text = make_visible(as_text(value)).replace("\r", "\\r").replace("\n", " ⏎ ")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


# Where a step position is shown: (1-based number in its scope, steps in that
# scope, the scope's name). The name is recording text; the report quotes it.
StepPlaceOf = Callable[[int], "tuple[int, int, str] | None"]


def _step_cite(nav: Nav | None, steps: Sequence[Any] | None,
               step_place: StepPlaceOf | None = None) -> str:
    if nav is None:
        return ""
    if nav.step is None:
        return f"no step ({nav.why_no_step})" if nav.why_no_step else "no step"
    seq = nav.step
    kind = label = None
    if steps is not None and 0 <= nav.step < len(steps):
        step = steps[nav.step]
        seq = getattr(step, "seq", nav.step)
        kind, label = getattr(step, "kind", None), getattr(step, "label", None)
    place = step_place(nav.step) if step_place is not None else None
    if place is not None:
        number, count, scope = place
        text = f"step {number} of {count} in scope {md_code_span(scope) if scope else 'root'}"
    else:
        text = f"step {seq}"
    if kind is not None:
        text += f" ({kind} {md_code_span(label)})"
    if not nav.exact:
        text += " — nearest step; the step list does not show this call"
    return text


def backtrack_report(index: EvidenceIndex, chain: BacktrackChain, *, recording_id: str,
                     steps: Sequence[Any] | None = None, profile: str | None = None,
                     step_place: StepPlaceOf | None = None) -> str:
    """The chain as Markdown: every recording value escaped, steps cited (as
    ``step_place`` names them when given: number, count and scope)."""
    out: list[str] = ["# Backtrack report", ""]
    out.append(f"- Recording: {md_code_span(recording_id)}")
    if profile:
        out.append(f"- Step projection: {md_code_span(profile)}")
    if chain.target_call_id is not None:
        target = index.calls[chain.target_call_id]
        out.append(f"- Target: {call_title(target)}, runtimeStageId "
                   f"{md_code_span(target.runtime_stage_id)}")
    out.append(f"- Links: {len(chain.links)}" + (" (cut short)" if chain.truncated else ""))
    out.append("- Each link cites the step where it can be seen. Links marked *inferred* are "
               "matched by identical text because the recording carries no id for them.")
    out.append("")
    if chain.notes:
        out.append("## What the recording does not carry")
        out.append("")
        for note in chain.notes:
            out.append(f"- {md_escape(note)}")
        out.append("")
    out.append("## Chain")
    out.append("")
    for link in chain.links:
        arrows = "↳ " * min(link.depth, 8) + (f"(depth {link.depth}) " if link.depth > 8 else "")
        line = f"**{link.number}.** {arrows}{md_escape(link.relation)}: {md_code_span(link.title)}"
        if link.error:
            line += " — **ERROR**"
        cite = _step_cite(link.nav, steps, step_place)
        if cite:
            line += f" — {cite}"
        if link.inferred:
            line += f" — *inferred: {md_escape(link.inferred)}*"
        out.append(line)
        out.append("")
        if link.text is not None:
            out.append(md_fenced(link.text.full))
            out.append("")
    return "\n".join(out).rstrip() + "\n"


# ─── Search ────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class SearchHit:
    kind: str                 # our words: "tool result", "model output", ...
    label: str                # recording text (role, source, tool name): show as text
    snippet: str              # the match with SNIPPET_RADIUS around it, made visible
    preview: DisplayText      # the whole value, truncated for screen
    match_start: int
    value_length: int
    call_id: int | None
    tool_id: int | None
    served_in: tuple[int, ...]
    nav: Nav | None
    _full: str = field(repr=False, default="")

    @property
    def full_value(self) -> str:
        return self._full


@dataclass(frozen=True)
class SearchResults:
    query: str
    hits: tuple[SearchHit, ...]
    total: int
    truncated: bool


def search(index: EvidenceIndex, query: str, step_map: StepMap | None = None, *,
           limit: int = 200, case_sensitive: bool = False) -> SearchResults:
    """Find text anywhere in the run. Each stored text is matched once."""
    if not isinstance(query, str) or not query.strip():
        return SearchResults(query or "", (), 0, False)
    pattern = re.compile(re.escape(query), 0 if case_sensitive else re.IGNORECASE)
    hits: list[SearchHit] = []
    total = 0
    for entry in index.search_entries:
        match = pattern.search(entry.text)
        if match is None:
            continue
        total += 1
        if len(hits) >= limit:
            continue
        hits.append(_hit(index, entry, match.start(), match.end(), step_map))
    return SearchResults(query, tuple(hits), total, total > len(hits))


def _hit(index: EvidenceIndex, entry, start: int, end: int,
         step_map: StepMap | None) -> SearchHit:
    text = entry.text
    lo, hi = max(0, start - SNIPPET_RADIUS), min(len(text), end + SNIPPET_RADIUS)
    snippet = ("…" if lo > 0 else "") + make_visible(text[lo:hi]) + ("…" if hi < len(text) else "")
    if entry.tool is not None:
        nav = nav_for_tool(index, step_map, entry.tool)
    elif entry.call is not None:
        nav = nav_for_call(index, step_map, entry.call, end=entry.kind == "model output")
    elif step_map is not None:
        step = step_map.step_at_time(entry.ts)
        nav = Nav(step, False, why_no_step="nearest step at the time of this event"
                  if step is not None else "no step at or before this event")
    else:
        nav = None
    return SearchHit(kind=entry.kind, label=entry.label, snippet=snippet,
                     preview=display_text(text), match_start=start, value_length=len(text),
                     call_id=entry.call, tool_id=entry.tool,
                     served_in=tuple(entry.served_in), nav=nav, _full=text)

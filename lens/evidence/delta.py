"""What changed in the served context since the previous call in the same scope.

:func:`context_delta` compares each slot's pieces (by their identity,
``Piece.key``) with the previous model call in the scope: added, removed and
changed pieces, the active skills that came and went, and a model change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from recorders.evidence import (MESSAGES, SLOTS, SYSTEM_PROMPT, TOOLS, EvidenceIndex,
                                ModelCall, Piece)
from lens.text import DisplayText, display_text

SLOT_TITLES = {SYSTEM_PROMPT: "System prompt", MESSAGES: "Messages", TOOLS: "Tools"}


def slot_order(call: ModelCall) -> list[str]:
    """The three known slots first, then any other slot the call was served."""
    return list(SLOTS) + [s for s in call.slots if s not in SLOTS]


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
    for slot in slot_order(call):
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



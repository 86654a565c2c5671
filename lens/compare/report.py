"""A comparison as JSON (the command line's contract) and as a short text report.

JSON field names follow the project's wire style (camelCase). Every value
taken from a recording is passed through as data; the text report is plain
text, meant for a terminal, never for markup.
"""

from __future__ import annotations

from typing import Any

from lens.compare.alignment import AlignedRow
from lens.compare.comparison import EventSide, RunComparison
from lens.compare.evidence_adapter import ServedPiece
from lens.compare.outcome import RunEnding
from lens.compare.words import comparison_sentences
from lens.placement import StepRow


def _step_wire(step: tuple[tuple[str, ...], int] | None) -> dict[str, Any] | None:
    return None if step is None else {"path": list(step[0]), "index": step[1]}


def _side_wire(side: EventSide) -> dict[str, Any]:
    return {"typedIndex": side.typed_index, "type": side.type,
            "runtimeStageId": side.runtime_stage_id,
            "subflowPath": None if side.subflow_path is None else list(side.subflow_path),
            "step": _step_wire(side.step)}


def _piece_wire(piece: ServedPiece) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": piece.role, "source": piece.source, "content": piece.content}
    if piece.content_is_summary:
        wire["contentIsSummary"] = True
    return wire


def _ending_wire(ending: RunEnding) -> dict[str, Any]:
    return {"status": ending.status, "sentence": ending.sentence}


def _row_wire(row: StepRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"path": list(row.path), "index": row.index, "kind": row.kind, "label": row.label}


def _aligned_wire(row: AlignedRow) -> dict[str, Any]:
    return {"status": row.status, "a": _row_wire(row.a), "b": _row_wire(row.b)}


def comparison_to_wire(result: RunComparison) -> dict[str, Any]:
    first = result.first_difference
    served = result.served_difference
    # The rows before the first difference are the same in both runs; they are counted.
    start = result.first_difference_row
    if start is None:
        start = len(result.alignment) if first is None else 0
    wire: dict[str, Any] = {
        "identical": result.identical,
        "summary": list(comparison_sentences(result)),
        "firstDifference": None if first is None else {
            "field": first.field, "a": _side_wire(first.a), "b": _side_wire(first.b)},
        "servedDifference": None if served is None else {
            "callIndexA": served.call_index_a,
            "callIndexB": served.call_index_b,
            "slots": list(served.slots),
            "typedIndexA": served.start_index_a,
            "typedIndexB": served.start_index_b,
            "stepA": _step_wire(served.step_a),
            "stepB": _step_wire(served.step_b),
            "pieces": {slot.slot: {
                "added": [_piece_wire(p) for p in slot.added],
                "removed": [_piece_wire(p) for p in slot.removed],
                "changed": [{"a": _piece_wire(c.a), "b": _piece_wire(c.b),
                             "diff": "\n".join(c.diff)} for c in slot.changed],
                "unchanged": slot.unchanged,
            } for slot in served.pieces},
        },
        "finalAnswer": {"a": result.ending_a.answer, "b": result.ending_b.answer},
        "ending": {"a": _ending_wire(result.ending_a), "b": _ending_wire(result.ending_b)},
        "routePath": {"a": list(result.route_a), "b": list(result.route_b)},
        "counts": {"typedEvents": {"a": result.typed_events[0], "b": result.typed_events[1]},
                   "modelCalls": {"a": result.model_calls[0], "b": result.model_calls[1]}},
        "alignment": {"sameBefore": start,
                      "rows": [_aligned_wire(row) for row in result.alignment[start:]]},
    }
    fallback = result.alignment_fallback
    if fallback is not None:
        wire["alignment"]["pairedByPosition"] = {
            "reason": fallback.reason, "firstRow": fallback.first_row, "rowCount": fallback.rows,
            "stepsA": fallback.steps_a, "stepsB": fallback.steps_b,
            "note": fallback.sentence()}
    if result.notes:
        wire["notes"] = list(result.notes)
    return wire


def _one_line(text: str | None, limit: int = 160) -> str:
    if text is None:
        return "(none)"
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _step_text(step: tuple[tuple[str, ...], int] | None) -> str:
    if step is None:
        return "no step"
    return f"step {step[1] + 1} of scope {'/'.join(step[0])}"


def _side_text(name: str, side: EventSide) -> str:
    if side.typed_index is None:
        return f"  {name}: no event (its stream ended)"
    return (f"  {name}: event #{side.typed_index} {side.type} at "
            f"{'/'.join(side.subflow_path or ()) or '(root)'} · {_step_text(side.step)}")


def _ending_text(ending: RunEnding) -> str:
    # The run page's sentence, which quotes the answer's start or the error.
    return _one_line(ending.sentence, 400)


def comparison_text(result: RunComparison) -> str:
    lines = [_one_line(sentence, 400) for sentence in comparison_sentences(result)]
    lines.append(f"identical: {'yes' if result.identical else 'no'}")
    lines += [f"note: {note}" for note in result.notes]
    first = result.first_difference
    if first is not None:
        lines.append(f"first difference, in detail ({first.field}):")
        lines += [_side_text("A", first.a), _side_text("B", first.b)]
    served = result.served_difference
    if served is not None:
        calls = " / ".join("–" if i is None else str(i + 1)
                           for i in (served.call_index_a, served.call_index_b))
        lines.append(f"first model call served differently (A / B): {calls}; "
                     f"slots: {', '.join(served.slots)}")
        for slot in served.pieces:
            lines.append(f"  {slot.slot}: {len(slot.added)} added, {len(slot.removed)} "
                         f"removed, {len(slot.changed)} changed, {slot.unchanged} unchanged")
            for changed in slot.changed[:3]:
                lines += ["    " + line for line in changed.diff[:12]]
    if result.route_a or result.route_b:
        lines.append(f"route A: {' → '.join(result.route_a) or '(none)'}")
        lines.append(f"route B: {' → '.join(result.route_b) or '(none)'}")
    extra = sum(row.status != "same" for row in result.alignment)
    lines.append(f"steps: {len(result.alignment)} aligned rows, {extra} differ in shape")
    if result.alignment_fallback is not None:
        lines.append(f"  {result.alignment_fallback.sentence()}")
    lines.append(f"A ended: {_ending_text(result.ending_a)}")
    lines.append(f"B ended: {_ending_text(result.ending_b)}")
    return "\n".join(lines)

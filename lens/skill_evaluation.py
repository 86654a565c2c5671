"""The skill evaluation before a model call, in words and rows instead of JSON.

Owns: reading one ``context.evaluated`` payload (which skills and injections
were judged, which are active, which were skipped and why, how the skill
graph's cursor moved) into a :class:`SkillEvaluation` a panel draws as a
summary line, a table and a few plain lines. Does not own: finding the
payload (the evidence index keeps it on the model call) or drawing it.

Every value here that came from the recording is recorded text; a panel
shows it with ``st.text``/``st.dataframe`` only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from recorders.values import is_number, js_number_text
from lens.text import clipped_json, one_line

REASON_CHARS = 300  # a skip reason longer than this is clipped (the raw event has it whole)


@dataclass(frozen=True)
class SkillRow:
    skill: str
    status: str   # "active" | "skipped" | "not active"
    why: str      # how it became active (routing's via) or why it was skipped; "" when unsaid
    tools: str    # tools its routing brought, comma-separated; "" when none recorded
    description: str


@dataclass(frozen=True)
class SkillEvaluation:
    summary: str                   # app words and counts
    rows: tuple[SkillRow, ...]
    cursor: str | None             # "cursor moved to … by …; reachable next: …"
    superseded: tuple[str, ...]


def skill_evaluation(payload: Mapping[str, Any]) -> SkillEvaluation:
    """The evaluation one ``context.evaluated`` payload records."""
    active = [_text(i) for i in _list(payload.get("activeIds"))]
    skipped = {_text(d.get("id")): _skip_reason(d)
               for d in _list(payload.get("skippedDetails")) if isinstance(d, Mapping)}
    routing = {_text(r.get("injectionId")): r
               for r in _list(payload.get("routing")) if isinstance(r, Mapping)}
    catalog = {_text(s.get("id")): _text(s.get("description"))
               for s in _list(payload.get("skillCatalog")) if isinstance(s, Mapping)}
    rows = []
    for name in dict.fromkeys([*active, *skipped, *catalog]):
        route = routing.get(name, {})
        if name in active:
            status, why = "active", _text(route.get("via")) and f"via {_text(route.get('via'))}"
        elif name in skipped:
            status, why = "skipped", skipped[name]
        else:
            status, why = "not active", ""
        tools = ", ".join(_text(t) for t in _list(route.get("tools")))
        rows.append(SkillRow(name, status, why, tools, catalog.get(name, "")))
    return SkillEvaluation(_summary(payload, len(active), len(skipped)), tuple(rows),
                           _cursor(payload.get("cursorMove")),
                           tuple(_text(i) for i in _list(payload.get("supersededIds"))))


def _summary(payload: Mapping[str, Any], active: int, skipped: int) -> str:
    total = payload.get("evaluatedTotal")
    judged = (f" of {js_number_text(total)} judged" if is_number(total) else "")
    return f"{active} active{judged}, {skipped} skipped."


def _skip_reason(detail: Mapping[str, Any]) -> str:
    parts = [_text(detail.get(key)) for key in ("reason", "error") if detail.get(key)]
    return one_line(": ".join(parts), REASON_CHARS)


def _cursor(move: Any) -> str | None:
    if not isinstance(move, Mapping):
        return None
    line = "The skill graph's cursor moved"
    if move.get("to"):
        line += f" to {_text(move.get('to'))}"
    if move.get("by"):
        line += f" by {_text(move.get('by'))}"
    reachable = [_text(r) for r in _list(move.get("reachable"))]
    if reachable:
        line += "; reachable next: " + ", ".join(reachable)
    return line + "."


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if is_number(value):
        return js_number_text(value)
    return clipped_json(value, REASON_CHARS)

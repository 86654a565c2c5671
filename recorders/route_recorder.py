"""RouteRecorder: the skill-graph route a run took, hop by hop, and why.

A faithful port of agentfootprint's route recorder. It composes three typed
events: ``context.evaluated`` (its ``routing[]`` names the active skill and
how it became active, and ``cursorMove.by`` the resolver's own cause),
``skill.rejected`` (an out-of-reach ``read_skill``) and ``stream.tool_start``
(the tool that drove the next hop). Two governors label misbehaving routes:
ping-pong between two skills, and a run of rejected jumps.

Each event costs O(1) apart from the ping-pong check, which looks at a fixed
window of recent moves.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any, Iterable

from recorders.catalogue import CONTEXT_EVALUATED, SKILL_REJECTED, TOOL_START
from recorders.sequence_store import SequenceStore
from recorders.values import js_number_text

# The typed events a route recorder reads.
_ROUTE_EVENTS = frozenset({TOOL_START, CONTEXT_EVALUATED, SKILL_REJECTED})
# Causes the graph's resolver may report in cursorMove.by; "none" is not one.
_REPORTED_CAUSES = frozenset({
    "entry", "route", "model-pick", "tool-proposal", "intent", "continuity", "decider", "stay",
})
# routing[] entries that can name the cursor, in the reference's order of preference.
_CURSOR_VIA_ORDER = ("route", "entry", "tree", "model")


@dataclass(frozen=True, slots=True)
class RouteHop:
    """The skill the graph was in at one iteration, and how it got there."""

    runtime_stage_id: str
    iteration: float
    outcome: str
    why: str
    from_skill: str | None = None
    to_skill: str | None = None
    edge_label: str | None = None
    last_tool: str | None = None
    requested_skill: Any = None  # a string when the event carried one
    reachable: tuple | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"runtimeStageId": self.runtime_stage_id,
                                "iteration": _wire_number(self.iteration)}
        if self.from_skill is not None:
            wire["fromSkill"] = self.from_skill
        if self.to_skill is not None:
            wire["toSkill"] = self.to_skill
        wire["outcome"] = self.outcome
        wire["why"] = self.why
        if self.edge_label is not None:
            wire["edgeLabel"] = self.edge_label
        if self.last_tool is not None:
            wire["lastTool"] = self.last_tool
        if self.requested_skill is not None:
            wire["requestedSkill"] = self.requested_skill
        if self.reachable is not None:
            wire["reachable"] = list(self.reachable)
        return wire


@dataclass(frozen=True, slots=True)
class RouteTrip:
    """A governor trip: the route oscillates, or rejected jumps pile up."""

    kind: str  # "ping-pong" | "rejected-cap"
    iteration: float
    skills: tuple[str, ...]
    detail: str

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "iteration": _wire_number(self.iteration),
                "skills": list(self.skills), "detail": self.detail}


def format_route_hop(hop: RouteHop) -> str:
    """A one-line, human-readable reason for a hop, as the reference words it."""
    to, frm = _js_text(hop.to_skill), hop.from_skill
    outcome = hop.outcome
    if outcome == "entry":
        return f'entered "{to}"'
    if outcome == "route":
        caption = f" ({hop.edge_label})" if hop.edge_label else ""
        tool = f" on {hop.last_tool}" if hop.last_tool else ""
        return f'"{_js_text(frm)}" → "{to}"{caption}{tool}'
    if outcome == "model-pick":
        # No edge caption: no declared edge fired on a model pick.
        if frm is None:
            return f'read_skill("{to}") accepted at cold start'
        return f'read_skill("{to}") accepted from "{frm}"'
    if outcome == "tool-proposal":
        if frm is None:
            return f"a tool's transition proposal accepted at cold start → \"{to}\""
        return f"a tool's transition proposal moved \"{frm}\" → \"{to}\""
    if outcome == "intent":
        if frm is None:
            return f'the message decisively matched "{to}" (turn-start classifier)'
        return f'"{frm}" → "{to}" (the message decisively matched it)'
    if outcome == "continuity":
        return f'carried from last turn — still in "{to}"'
    if outcome == "decider":
        return f'the routing decider read the menu and chose "{to}"'
    if outcome == "stay":
        return f'stayed in "{to}"'
    if outcome == "rejected":
        reachable = ", ".join(_js_text(s, join_item=True) for s in (hop.reachable or ()))
        return (f'read_skill("{_js_text(hop.requested_skill)}") rejected from '
                f'"{frm if frm is not None else "cold start"}" — reachable: {reachable or "(none)"}')
    return ""


class RouteRecorder:
    """Owns the hops, the trips, the current skill cursor and the governors' counters.

    Owns: every hop in order (a SequenceStore), the route path kept as hops
    arrive, the last tool started, the recent moves for ping-pong detection,
    and the run of consecutive rejections. Resets when ``on_run_start`` names
    a new run id.

    Does not own: which events reach it (the caller feeds the typed stream in
    order) or anything about steps.
    """

    def __init__(self, ping_pong_window: int = 4, max_rejected_retries: int = 3,
                 follow_cursor_move: bool = False) -> None:
        self.ping_pong_window = ping_pong_window
        # Lens correction: land each hop where cursorMove.to says the cursor
        # went, instead of the first routing[] entry by via preference.
        self.follow_cursor_move = follow_cursor_move
        self.max_rejected_retries = max_rejected_retries
        self._hops: SequenceStore[RouteHop] = SequenceStore()
        self._rejections: list[RouteHop] = []
        self._trips: list[RouteTrip] = []
        self._moves: list[str] = []
        self._path: list[str] = []
        self._last_run_id: str | None = None
        self._cursor: str | None = None
        self._last_tool: str | None = None
        self._consecutive_rejected = 0
        self._rejected_cap_tripped = False

    def clear(self) -> None:
        self._hops.clear()
        self._rejections.clear()
        self._trips.clear()
        self._moves.clear()
        self._path.clear()
        self._cursor = None
        self._last_tool = None
        self._consecutive_rejected = 0
        self._rejected_cap_tripped = False

    def on_run_start(self, run_id: str | None) -> None:
        if run_id is not None and run_id != self._last_run_id:
            self.clear()
            self._last_run_id = run_id

    def on_emit(self, name: str, payload: Any, runtime_stage_id: str) -> None:
        if not isinstance(payload, dict):
            return
        if name == TOOL_START:
            if isinstance(payload.get("toolName"), str):
                self._last_tool = payload["toolName"]
        elif name == CONTEXT_EVALUATED:
            self._on_evaluated(payload, runtime_stage_id)
        elif name == SKILL_REJECTED:
            self._on_rejected(payload, runtime_stage_id)

    def _on_evaluated(self, payload: dict, runtime_stage_id: str) -> None:
        routing = payload.get("routing")
        routing = routing if isinstance(routing, list) else []
        cursor = None
        if self.follow_cursor_move:
            cursor = _cursor_from_move(payload.get("cursorMove"), routing)
        if cursor is None:
            cursor = _cursor_from_routing(routing)
        if cursor is None:
            return  # no skill-graph routing this iteration
        skill, label = cursor
        iteration = js_to_number(payload.get("iteration"))
        previous = self._cursor
        cause = _reported_cause(payload.get("cursorMove"))
        if cause is not None:
            outcome = cause
        elif previous is None:
            outcome = "entry"
        else:
            outcome = "route" if skill != previous else "stay"
        # An edge caption belongs only to a hop that a declared edge drove.
        wears_caption = outcome in ("route", "entry")
        hop = RouteHop(
            runtime_stage_id=runtime_stage_id,
            iteration=iteration,
            outcome=outcome,
            why="",
            from_skill=previous,
            to_skill=skill,
            edge_label=label if wears_caption else None,
            last_tool=self._last_tool if outcome == "route" else None,
        )
        self._record(_with_why(hop))
        moved = outcome != "stay"
        if moved:
            self._moves.append(skill)
            self._detect_ping_pong(iteration)
            self._consecutive_rejected = 0
            self._rejected_cap_tripped = False
        self._cursor = skill

    def _on_rejected(self, payload: dict, runtime_stage_id: str) -> None:
        iteration = js_to_number(payload.get("iteration"))
        current = payload.get("currentSkillId")
        requested = payload.get("requestedId")
        allowed = payload.get("allowed")
        hop = RouteHop(
            runtime_stage_id=runtime_stage_id,
            iteration=iteration,
            outcome="rejected",
            why="",
            from_skill=current if isinstance(current, str) else None,
            requested_skill=requested if isinstance(requested, str) else None,
            reachable=tuple(allowed) if isinstance(allowed, list) else (),
        )
        self._record(_with_why(hop))
        self._consecutive_rejected += 1
        # One trip per run of rejections, re-armed when the cursor next moves.
        if self._consecutive_rejected >= self.max_rejected_retries and not self._rejected_cap_tripped:
            self._rejected_cap_tripped = True
            self._trips.append(RouteTrip(
                "rejected-cap",
                iteration,
                (current,) if isinstance(current, str) else (),
                f"{self._consecutive_rejected} consecutive out-of-reach read_skill jumps",
            ))

    def _record(self, hop: RouteHop) -> None:
        self._hops.push(hop, hop.runtime_stage_id)
        if hop.outcome == "rejected":
            self._rejections.append(hop)
        if hop.to_skill is not None and (not self._path or self._path[-1] != hop.to_skill):
            self._path.append(hop.to_skill)

    def _detect_ping_pong(self, iteration: float) -> None:
        window = self.ping_pong_window
        if len(self._moves) < window:
            return
        recent = self._moves[-window:] if window > 0 else []
        distinct = list(dict.fromkeys(recent))
        if len(distinct) == 2 and all(s == recent[i % 2] for i, s in enumerate(recent)):
            if not any(t.kind == "ping-pong" and t.iteration == iteration for t in self._trips):
                self._trips.append(RouteTrip(
                    "ping-pong",
                    iteration,
                    tuple(distinct),
                    f'oscillating between "{distinct[0]}" and "{distinct[1]}" '
                    f"over the last {window} hops",
                ))

    # ── query ────────────────────────────────────────────────────────

    def get_path(self) -> list[str]:
        """The distinct skill sequence the run moved through."""
        return list(self._path)

    def get_hops(self) -> list[RouteHop]:
        return list(self._hops.get_all())

    def get_rejections(self) -> list[RouteHop]:
        return list(self._rejections)

    def get_trips(self) -> list[RouteTrip]:
        return list(self._trips)

    def to_wire(self) -> dict[str, Any]:
        return {
            "path": self.get_path(),
            "hops": [h.to_wire() for h in self._hops],
            "rejections": [h.to_wire() for h in self._rejections],
            "trips": [t.to_wire() for t in self._trips],
        }


def replay_route(typed_events: Iterable[dict], ping_pong_window: int = 4,
                 max_rejected_retries: int = 3, follow_cursor_move: bool = False) -> RouteRecorder:
    """Feed a saved typed stream in order, starting a run at each new run id."""
    recorder = RouteRecorder(ping_pong_window, max_rejected_retries, follow_cursor_move)
    last_run_id: object = object()
    for event in typed_events:
        meta = event.get("meta")
        meta = meta if isinstance(meta, dict) else {}
        run_id = meta.get("runId")
        if run_id != last_run_id:
            recorder.on_run_start(run_id if isinstance(run_id, str) else None)
            last_run_id = run_id
        name = event.get("type")
        if name not in _ROUTE_EVENTS:
            continue  # on_emit ignores it: most of a typed stream is other events
        stage = meta.get("runtimeStageId")
        recorder.on_emit(name, event.get("payload"), stage if isinstance(stage, str) else "")
    return recorder


# ─── Helpers ───────────────────────────────────────────────────────────


def _with_why(hop: RouteHop) -> RouteHop:
    return replace(hop, why=format_route_hop(hop))


def _reported_cause(cursor_move: Any) -> str | None:
    if not isinstance(cursor_move, dict):
        return None
    by = cursor_move.get("by")
    return by if isinstance(by, str) and by in _REPORTED_CAUSES else None


def _cursor_from_move(cursor_move: Any, routing: list) -> tuple[str, str | None] | None:
    """The destination the resolver reported, with the caption of its routing entry."""
    if not isinstance(cursor_move, dict) or not isinstance(cursor_move.get("to"), str):
        return None
    skill = cursor_move["to"]
    for entry in routing:
        if isinstance(entry, dict) and entry.get("injectionId") == skill:
            label = entry.get("label")
            return skill, label if isinstance(label, str) else None
    return skill, None


def _cursor_from_routing(routing: list) -> tuple[str, str | None] | None:
    """The current skill and its edge caption, preferring route, entry, tree, model."""
    first_by_via: dict[str, dict] = {}
    for entry in routing:
        if isinstance(entry, dict) and isinstance(entry.get("injectionId"), str):
            via = entry.get("via")
            if isinstance(via, str) and via not in first_by_via:
                first_by_via[via] = entry
    for via in _CURSOR_VIA_ORDER:
        entry = first_by_via.get(via)
        if entry is not None:
            label = entry.get("label")
            return entry["injectionId"], label if isinstance(label, str) else None
    return None


def js_to_number(value: Any) -> float:
    """``Number(value ?? 0)`` as JavaScript computes it, NaN included."""
    if value is None:
        return 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        return _js_string_to_number(value)
    if isinstance(value, list):
        if not value:
            return 0
        if len(value) == 1 and not isinstance(value[0], (list, dict)):
            return js_to_number("" if value[0] is None else _js_text(value[0]))
    return math.nan


_JS_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_JS_RADIX = re.compile(r"0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+")


def _js_string_to_number(text: str) -> float:
    text = text.strip()
    if not text:
        return 0
    if text in ("Infinity", "+Infinity"):
        return math.inf
    if text == "-Infinity":
        return -math.inf
    if _JS_RADIX.fullmatch(text):
        return int(text, 0)
    if _JS_DECIMAL.fullmatch(text):
        number = float(text)
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    return math.nan


def _wire_number(value: float) -> Any:
    """JSON.stringify writes NaN and the infinities as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _js_text(value: Any, join_item: bool = False) -> str:
    """A value as a JS template or Array.join would print it.

    Nested lists are joined with an explicit stack, not recursion, so a
    hostile ``allowed`` list nested thousands of levels deep cannot exhaust
    the interpreter's recursion limit.
    """
    if not isinstance(value, list):
        return _js_scalar_text(value, join_item)
    out: list[str] = []
    stack: list[list[Any]] = [[iter(value), True]]  # [items, nothing written yet]
    while stack:
        frame = stack[-1]
        item = next(frame[0], _END)
        if item is _END:
            stack.pop()
            continue
        if not frame[1]:
            out.append(",")
        frame[1] = False
        if isinstance(item, list):
            stack.append([iter(item), True])
        else:
            out.append(_js_scalar_text(item, join_item=True))
    return "".join(out)


_END = object()


def _js_scalar_text(value: Any, join_item: bool) -> str:
    if value is None:
        return "" if join_item else "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return js_number_text(value)
    return "[object Object]"

"""The "Why this skill?" view model: hops as table rows, trips marked, and
which slider step each hop belongs to."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from recorders.evidence import EvidenceIndex, ModelCall
from recorders.route_recorder import RouteHop, RouteTrip
from recorders.run_step import RunStep
from recorders.values import js_number_text, nearest_known_prefix

# How each outcome reads in the table's "cause" column.
CAUSES = {
    "entry": "entry",
    "route": "route (declared edge)",
    "model-pick": "model pick (read_skill)",
    "tool-proposal": "tool proposal",
    "intent": "intent (classifier)",
    "continuity": "continuity (last turn)",
    "decider": "routing decider",
    "stay": "stay",
    "rejected": "rejected (out of reach)",
}
# What each governor trip means, for someone who does not know the framework.
TRIP_MEANING = {
    "ping-pong": "the route bounced back and forth between the same two skills",
    "rejected-cap": "too many jumps to skills out of reach in one iteration",
}
GOVERNOR_HELP = ("A governor is the skill graph's guard against a route gone wrong; it trips "
                 "on ping-pong (bouncing between two skills) and on rejected-cap (too many "
                 "refused jumps to skills out of reach).")
MOVES = frozenset({"entry", "route", "model-pick", "tool-proposal", "intent", "decider"})

HOP_COLUMNS = ["hop", "iteration", "cause", "mark", "from", "to", "caption", "tool",
               "reachable", "reason"]


@dataclass(frozen=True)
class HopRow:
    hop: int  # 1-based, for people
    iteration: str
    cause: str
    source: str
    target: str
    caption: str
    tool: str
    reachable: str
    reason: str
    mark: str

    def as_record(self) -> dict[str, object]:
        return dict(zip(HOP_COLUMNS, (self.hop, self.iteration, self.cause, self.mark,
                                      self.source, self.target, self.caption, self.tool,
                                      self.reachable, self.reason)))


def no_route_message(nested_skill_graphs: Sequence[str], has_typed_stream: bool,
                     procedure_skills: Sequence[str] = ()) -> str:
    """One true sentence for a run with no route to show: why there is none.
    ``procedure_skills`` are the skills whose declared procedure the run
    walked (:mod:`lens.procedure_view`): a skill the model read itself has
    no route, yet the run did use it."""
    if procedure_skills:
        names = ", ".join(procedure_skills)
        return (f"No route between skills to explain: the run used the skill {names} without "
                "a skill graph moving it from skill to skill (no routing in its context "
                "evaluations, no rejected skills). The skill's declared procedure, step by "
                "step, is below.")
    if nested_skill_graphs:
        return ("This run has a skill graph nested in a composition ("
                + ", ".join(nested_skill_graphs) + "): the recording shows its agent was "
                "given skills, but a composition's saved typed stream does not carry that "
                "agent's routing events, so which skills it visited, and why, is not in the "
                "recording.")
    if not has_typed_stream:
        return ("This file has no typed event stream, so no skill route can be rebuilt; "
                "whether the run used a skill graph is not recorded.")
    return ("No skill graph in this run: its typed stream has no skill routing (no routing "
            "in context evaluations, no rejected skills), so there is no route to explain.")


def skills_visited_text(skills_visited: Sequence[str], nested_skill_graphs: Sequence[str],
                        procedure_skills: Sequence[str] = ()) -> str:
    """The "Skills visited" figure: a count, or "not recorded" when a skill graph
    ran whose route the file does not carry (never a false 0). With no route,
    the skills whose procedure the run walked are the skills it visited."""
    if skills_visited:
        return str(len(skills_visited))
    if procedure_skills:
        return str(len(procedure_skills))
    return "not recorded" if nested_skill_graphs else "0"


def hop_rows(hops: Sequence[RouteHop], trips: Sequence[RouteTrip]) -> list[HopRow]:
    marks = trip_marks(hops, trips)
    rows = []
    for number, hop in enumerate(hops):
        target = hop.to_skill if hop.to_skill is not None else _text(hop.requested_skill)
        mark = ["✕ rejected"] if hop.outcome == "rejected" else []
        mark += [f"⚠ {kind}" for kind in marks.get(number, [])]
        rows.append(HopRow(
            hop=number + 1,
            iteration=_iteration_text(hop.iteration),
            cause=CAUSES.get(hop.outcome, hop.outcome),
            source=_text(hop.from_skill),
            target=target,
            caption=_text(hop.edge_label),
            tool=_text(hop.last_tool),
            reachable=", ".join(map(_text, hop.reachable)) if hop.reachable else "",
            reason=hop.why,
            mark=" · ".join(mark),
        ))
    return rows


def trip_line(kind: str, iteration: float, detail: str) -> str:
    """``⚠ rejected-cap at iteration 2 (what that means): <recorded detail>``."""
    meaning = TRIP_MEANING.get(kind)
    said = f" ({meaning})" if meaning else ""
    return f"⚠ {kind} at iteration {_iteration_text(iteration)}{said}: {detail}"


def full_reasons(rows: Sequence[HopRow]) -> str:
    """Every hop's reason whole, one line each: the table clips long cells."""
    return "\n".join(f"hop {row.hop}: {row.reason}" for row in rows if row.reason)


def trip_marks(hops: Sequence[RouteHop], trips: Sequence[RouteTrip]) -> dict[int, list[str]]:
    """Which hop tripped each governor: the last hop of the trip's iteration that
    could trip it (a rejection for rejected-cap, a move for ping-pong)."""
    marks: dict[int, list[str]] = {}
    for trip in trips:
        wanted = {"rejected"} if trip.kind == "rejected-cap" else MOVES
        candidates = [i for i, hop in enumerate(hops)
                      if hop.outcome in wanted and _same_number(hop.iteration, trip.iteration)]
        if candidates:
            marks.setdefault(candidates[-1], []).append(trip.kind)
    return marks


def hop_step_index(hop: RouteHop, steps: Sequence[RunStep], evidence: EvidenceIndex) -> int | None:
    """The slider step a hop belongs to, or None when the scope has no steps.

    In order of preference: a step anchored at the hop's own stage; for a
    rejection, the last step of the model call whose tool call was refused;
    otherwise the first step of the model call of the hop's iteration; failing
    those, the first step at or after the hop's event time, else the last step.
    """
    if not steps:
        return None
    first_at: dict[str, int] = {}
    last_at: dict[str, int] = {}
    for index, step in enumerate(steps):
        first_at.setdefault(step.runtime_stage_id, index)
        last_at[step.runtime_stage_id] = index
    if hop.runtime_stage_id in first_at:
        return first_at[hop.runtime_stage_id]
    if hop.outcome == "rejected":
        owner = _asker_at_stage(evidence, hop.runtime_stage_id)
        if owner is not None and owner.runtime_stage_id in last_at:
            return last_at[owner.runtime_stage_id]
    call = _call_at_iteration(evidence, hop)
    if call is not None and call.runtime_stage_id in first_at:
        return first_at[call.runtime_stage_id]
    at = evidence.stages.first_ts.get(hop.runtime_stage_id)
    if at is not None:
        for index, step in enumerate(steps):
            if step.ts_ms >= at:
                return index
    return len(steps) - 1


def _asker_at_stage(evidence: EvidenceIndex, runtime_stage_id: str) -> ModelCall | None:
    """The model call that asked for the first tool call at this stage (in the shown run)."""
    for tool_id in evidence.tools_by_stage.get(runtime_stage_id, ()):
        if evidence.in_shown_run(evidence.tool_calls[tool_id].run_id):
            return evidence.asked_by(tool_id)
    return None


def _call_at_iteration(evidence: EvidenceIndex, hop: RouteHop) -> ModelCall | None:
    """The first model call of the hop's iteration in the nearest agent enclosing
    the hop's stage (``a/b/c#3`` may belong to the agent ``a/b``, ``a`` or the root)."""
    first: dict[tuple[tuple[str, ...], float], ModelCall] = {}
    for call in evidence.shown_calls():
        if call.runtime_stage_id is not None and call.iteration is not None:
            first.setdefault((_agent_of(call.runtime_stage_id), call.iteration), call)
    agents = {agent for agent, iteration in first if iteration == hop.iteration}
    agent = nearest_known_prefix(_agent_of(hop.runtime_stage_id), agents, shortest=0)
    return None if agent is None else first[(agent, hop.iteration)]


def _agent_of(runtime_stage_id: str) -> tuple[str, ...]:
    """``a/b/call-llm#58`` → ``("a", "b")``: the agent path a stage id sits in."""
    return tuple(runtime_stage_id.split("/")[:-1])


def _same_number(a: float, b: float) -> bool:
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b


def _iteration_text(value: float) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return js_number_text(value)


def _text(value: object) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)

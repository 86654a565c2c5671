"""What fed a composition's child from outside it.

A model call that is the first of its scope inside a composition was not fed
by an earlier call of its own scope: its input came through the composition.
From the step list (its decide and fork steps say which scopes are
Conditionals and Parallels) and the evidence index's calls by scope, this
finds, from the innermost enclosing composition outwards:

- a Conditional: the decision step that chose this branch (and its rationale
  when recorded); the walk goes on outwards, since the Conditional's own input
  came from further out;
- a Parallel: a branch is fed by the Parallel's input, so the walk goes on
  outwards;
- a Sequence (any other composition): the sibling that ended last before this
  child started; its answer was forwarded. When that sibling is a Parallel,
  the answers of each of its branches were merged, so each is a source.

Order is by typed-event index (a call's ``llm_end`` before the next child's
``llm_start``), which the engine writes in the order things happen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from recorders.catalogue import COMPOSITION_ROUTE_DECIDED, short_name
from recorders.evidence import EvidenceIndex, ModelCall
from recorders.run_step import RunStep

ROOT_SEGMENT = "__root__"
DECIDED, FORWARDED, MERGED = ("chosen by a decision", "forwarded answer of the previous step",
                              "merged answer of a branch")


@dataclass(frozen=True)
class Feed:
    """One source of a composition child's input."""

    relation: str               # DECIDED | FORWARDED | MERGED
    call_id: int | None         # the source model call (FORWARDED, MERGED)
    step: int | None            # the decision's step position (DECIDED)
    chosen: Any = None          # recording text: the branch the decision chose
    rationale: Any = None       # recording text: why, when recorded


def feeds_of(index: EvidenceIndex, steps: Sequence[RunStep], call: ModelCall
             ) -> tuple[Feed, ...]:
    """Where ``call``'s input came from through its compositions; empty when it
    is not the first call of a scope inside a composition."""
    if call.previous_in_scope is not None or not call.scope:
        return ()
    parallels = {_scope(step) for step in steps if step.kind == "fork"}
    decisions = [(position, step) for position, step in enumerate(steps)
                 if step.kind == "decide" and isinstance(step.meta, dict)]
    found: list[Feed] = []
    path = call.scope
    for depth in range(len(path) - 1, -1, -1):
        parent, child = path[:depth], path[depth]
        decision = _decision(index, decisions, parent, child, call)
        if decision is not None:
            found.append(decision)
            continue
        if parent in parallels:
            continue
        before = _previous_sibling(index, call, parent, child)
        if before is not None:
            found += _answers_of(index, call, parent + (before,), parallels)
            break
    return tuple(found)


def _scope(step: RunStep) -> tuple[str, ...]:
    path = tuple(step.anchor.subflow_path)
    return path[1:] if path[:1] == (ROOT_SEGMENT,) else path


def _decision(index: EvidenceIndex, decisions: list[tuple[int, RunStep]],
              parent: tuple[str, ...], child: str, call: ModelCall) -> Feed | None:
    """The last decision of the Conditional at ``parent`` that chose ``child``
    at or before ``call`` started."""
    found = None
    for position, step in decisions:
        if _scope(step) != parent or step.meta.get("chosen") != child:
            continue
        if call.ts_start is not None and step.ts_ms > call.ts_start:
            break
        found = (position, step)
    if found is None:
        return None
    position, step = found
    rationale = step.meta.get("rationale")
    if rationale is None:
        rationale = _typed_rationale(index, step)
    return Feed(DECIDED, None, position, child, rationale)


# Matched as a suffix, as the type may be written with or without its prefix.
_ROUTE_DECIDED = short_name(COMPOSITION_ROUTE_DECIDED)


def _typed_rationale(index: EvidenceIndex, step: RunStep) -> Any:
    """The rationale of the typed ``composition.route_decided`` event at the
    decision's stage (the boundary log does not always carry it)."""
    events = index.stages.typed_events
    for event_index in index.stages.typed_indexes(step.runtime_stage_id):
        event = events[event_index]
        payload = event.get("payload") if isinstance(event, dict) else None
        if (isinstance(event.get("type"), str)
                and event["type"].endswith(_ROUTE_DECIDED)
                and isinstance(payload, dict) and payload.get("chosen") == step.meta.get("chosen")
                and payload.get("rationale") is not None):
            return payload["rationale"]
    return None


def _previous_sibling(index: EvidenceIndex, call: ModelCall, parent: tuple[str, ...],
                      child: str) -> str | None:
    """The child of ``parent`` (in ``call``'s run) whose last call ended last
    before ``call`` started."""
    ended: dict[str, int] = {}
    for other in index.calls:
        if (other.run_id != call.run_id or len(other.scope) <= len(parent)
                or other.scope[:len(parent)] != parent or other.scope[len(parent)] == child
                or other.end_event_index is None
                or other.end_event_index > call.start_event_index):
            continue
        sibling = other.scope[len(parent)]
        ended[sibling] = max(ended.get(sibling, -1), other.end_event_index)
    return max(ended, key=ended.__getitem__) if ended else None


def _answers_of(index: EvidenceIndex, call: ModelCall, sibling: tuple[str, ...],
                parallels: set[tuple[str, ...]]) -> list[Feed]:
    """The answer(s) ``sibling`` passed on: the last call of each of its
    branches when it is a Parallel, else its last call."""
    last_by_scope: dict[tuple[str, ...], ModelCall] = {}
    for other in index.calls:
        if (other.run_id == call.run_id and other.scope[:len(sibling)] == sibling
                and other.end_event_index is not None
                and other.end_event_index < call.start_event_index):
            last_by_scope[other.scope] = other
    if not last_by_scope:
        return []
    if sibling in parallels:
        branches: dict[str, ModelCall] = {}
        for scope, other in last_by_scope.items():
            branch = scope[len(sibling)] if len(scope) > len(sibling) else ""
            if branch not in branches or other.end_event_index > branches[branch].end_event_index:
                branches[branch] = other
        return [Feed(MERGED, other.id, None) for other in
                sorted(branches.values(), key=lambda c: c.end_event_index)]
    last = max(last_by_scope.values(), key=lambda c: c.end_event_index)
    return [Feed(FORWARDED, last.id, None)]

"""Actors: the nodes of the arrow diagram, named from transition endpoints.

Transition endpoints are ids of several kinds: ``actor:user``,
``stage:llm:<runtimeStageId>`` / ``stage:tool:<runtimeStageId>`` for a model
call and the tools it asked for, subflow ids (``legal``, ``step-reviewers/style``)
for composition children, and stage ids (``route#1``) or names (``ToolCalls``)
for deciders and loop targets. Each model call has its own runtime stage id;
the diagram shows one *model* node per calling stage (``call-llm``), not one
per call, so an Agent reads as user ⇄ model ⇄ tools however many turns it took.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Container

from recorders.run_step import ACTOR_USER
from recorders.values import ROOT_SUBFLOW_ID

USER = "user"
MODEL = "model"
TOOLS = "tools"
CHILD = "child"  # a subflow of the composition being viewed
STAGE = "stage"  # a decider, loop target or other named stage

LLM_PREFIX = "stage:llm:"
TOOL_PREFIX = "stage:tool:"
_INSTANCE_SUFFIX = re.compile(r"#\d+$")


@dataclass(frozen=True)
class Actor:
    key: str  # identity in the diagram: endpoints of one actor share it
    label: str  # short display name, relative to the scope being viewed
    role: str
    detail: str  # the full endpoint id, for hover text
    drill_path: tuple[str, ...] | None = None  # set when the actor is an enterable scope


def stage_base(runtime_stage_id: str) -> str:
    """``array/call-llm#30`` → ``array/call-llm``: the stage, not the execution."""
    return _INSTANCE_SUFFIX.sub("", runtime_stage_id)


def relative_to_scope(name: str, scope: tuple[str, ...]) -> str:
    """Drop the scope's own subflow prefix: ``step-reviewers/style`` in ``step-reviewers`` → ``style``."""
    inner = "/".join(segment for segment in scope if segment != ROOT_SUBFLOW_ID)
    if inner and name.startswith(inner + "/"):
        return name[len(inner) + 1:]
    return name


def actor_for(endpoint: str, scope: tuple[str, ...], scopes: Container[tuple[str, ...]],
              is_branch: bool = False) -> Actor:
    """Name the actor behind one transition endpoint, as seen from ``scope``.

    ``is_branch`` says the transition treats the endpoint as a subflow (a fork
    branch, a handoff target, a merged branch), so it is drawn as a child even
    when this projection has no steps inside it to drill into.
    """
    if endpoint == ACTOR_USER:
        return Actor(ACTOR_USER, input_sender(scope), USER, endpoint)
    if endpoint.startswith(LLM_PREFIX):
        base = stage_base(endpoint[len(LLM_PREFIX):])
        return Actor(f"model:{base}", _qualified("model", base, scope), MODEL, endpoint)
    if endpoint.startswith(TOOL_PREFIX):
        # A tool endpoint carries the runtime stage id of the model call that asked.
        base = stage_base(endpoint[len(TOOL_PREFIX):])
        return Actor(f"tools:{base}", _qualified("tools", base, scope), TOOLS, endpoint)
    as_path = _subflow_scope(endpoint, scope, scopes) if "#" not in endpoint else None
    if as_path is not None:
        return Actor(f"subflow:{endpoint}", relative_to_scope(endpoint, scope), CHILD, endpoint,
                     drill_path=as_path)
    if is_branch and "#" not in endpoint:
        return Actor(f"subflow:{endpoint}", relative_to_scope(endpoint, scope), CHILD, endpoint)
    base = stage_base(endpoint)
    return Actor(f"stage:{base}", relative_to_scope(base, scope), STAGE, endpoint)


def input_sender(scope: tuple[str, ...]) -> str:
    """Who hands a scope its input: the user at the root; inside a composition,
    the composition around it (a nested agent's "user" message is what its
    parent passed on, not what a person typed)."""
    inner = [segment for segment in scope if segment != ROOT_SUBFLOW_ID]
    if not inner:
        return "user"
    return "from " + (inner[-2] if len(inner) > 1 else "root")


# Beyond this many "/" in one id, only the two plain readings are tried.
_MAX_SPLIT_SLASHES = 8


def _subflow_scope(endpoint: str, scope: tuple[str, ...],
                   scopes: Container[tuple[str, ...]]) -> tuple[str, ...] | None:
    """The drillable scope a subflow id names, seen from ``scope``, or None.

    A subflow id is its path below the root joined with ``/``, and a segment
    may itself contain ``/``, so ``a/b`` may be the child ``("a", "b")`` or
    the one subflow ``"a/b"``. Of the scopes the id can name, one inside the
    scope being viewed wins, then the one with the fewest segments (the
    nearest): a composition's transitions name its own children.
    """
    readings = [path for path in _readings(endpoint)
                if len(path) > len(scope) and path in scopes]
    if not readings:
        return None
    inside = [path for path in readings if path[:len(scope)] == scope]
    return min(inside or readings, key=len)


def _readings(endpoint: str) -> list[tuple[str, ...]]:
    """Every path whose segments joined with ``/`` give ``endpoint``."""
    parts = endpoint.split("/")
    if len(parts) - 1 > _MAX_SPLIT_SLASHES:
        return [(ROOT_SUBFLOW_ID, endpoint), (ROOT_SUBFLOW_ID, *parts)]
    readings: list[tuple[str, ...]] = []
    for cuts in range(1 << (len(parts) - 1)):  # bit i set: a segment ends after part i
        segments, current = [], parts[0]
        for index, part in enumerate(parts[1:]):
            if cuts >> index & 1:
                segments.append(current)
                current = part
            else:
                current += "/" + part
        segments.append(current)
        readings.append((ROOT_SUBFLOW_ID, *segments))
    return readings


def _qualified(word: str, stage: str, scope: tuple[str, ...]) -> str:
    """``model`` for a call stage directly in the scope, ``model · <where>`` for a deeper one."""
    where = relative_to_scope(stage, scope).rpartition("/")[0]
    return f"{word} · {where}" if where else word

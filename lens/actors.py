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

from recorders.run_step import ACTOR_USER, ROOT_SUBFLOW_ID

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
        return Actor(ACTOR_USER, "user", USER, endpoint)
    if endpoint.startswith(LLM_PREFIX):
        base = stage_base(endpoint[len(LLM_PREFIX):])
        return Actor(f"model:{base}", _qualified("model", base, scope), MODEL, endpoint)
    if endpoint.startswith(TOOL_PREFIX):
        # A tool endpoint carries the runtime stage id of the model call that asked.
        base = stage_base(endpoint[len(TOOL_PREFIX):])
        return Actor(f"tools:{base}", _qualified("tools", base, scope), TOOLS, endpoint)
    as_path = (ROOT_SUBFLOW_ID, *endpoint.split("/"))
    if "#" not in endpoint and as_path in scopes and len(as_path) > len(scope):
        return Actor(f"subflow:{endpoint}", relative_to_scope(endpoint, scope), CHILD, endpoint,
                     drill_path=as_path)
    if is_branch and "#" not in endpoint:
        return Actor(f"subflow:{endpoint}", relative_to_scope(endpoint, scope), CHILD, endpoint)
    base = stage_base(endpoint)
    return Actor(f"stage:{base}", relative_to_scope(base, scope), STAGE, endpoint)


def _qualified(word: str, stage: str, scope: tuple[str, ...]) -> str:
    """``model`` for a call stage directly in the scope, ``model · <where>`` for a deeper one."""
    where = relative_to_scope(stage, scope).rpartition("/")[0]
    return f"{word} · {where}" if where else word

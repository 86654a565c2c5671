"""The arrow diagram of one scope: its actors, and which arrows each step lights.

Built once per scope from that scope's steps. For slider position ``i``,
:meth:`ArrowDiagram.lit` is every transition of step ``i`` (a fork or merge
lights all its branches at once) and :meth:`ArrowDiagram.faint` every other
actor pair that an earlier step already connected. Later steps are not drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Container, Sequence

from recorders.run_step import ACTOR_USER, RunStep, Transition
from lens.actors import MODEL, TOOLS, Actor, actor_for

Edge = tuple[str, str]  # (source actor key, target actor key)

# Transition vias whose endpoints (other than the user) are subflows.
_BRANCH_VIAS = frozenset({"fork-branch", "next", "decision-branch"})


@dataclass(frozen=True)
class Arrow:
    source: str  # actor key
    target: str  # actor key
    label: str
    via: str

    @property
    def edge(self) -> Edge:
        return (self.source, self.target)

    @property
    def is_loop(self) -> bool:
        return self.source == self.target


@dataclass(frozen=True)
class ArrowDiagram:
    scope: tuple[str, ...]
    actors: tuple[Actor, ...]  # in order of first appearance
    step_arrows: tuple[tuple[Arrow, ...], ...]  # one entry per step of the scope
    first_seen: dict[Edge, int]  # the step index where each actor pair first connects

    def __len__(self) -> int:
        return len(self.step_arrows)

    def lit(self, index: int) -> tuple[Arrow, ...]:
        return self.step_arrows[index]

    def faint(self, index: int) -> list[Edge]:
        lit = {arrow.edge for arrow in self.step_arrows[index]}
        return [edge for edge, first in self.first_seen.items() if first < index and edge not in lit]

    def active_actor_keys(self, index: int) -> set[str]:
        return {key for arrow in self.step_arrows[index] for key in arrow.edge}


def build_arrow_diagram(steps: Sequence[RunStep], scope: tuple[str, ...],
                        scopes: Container[tuple[str, ...]]) -> ArrowDiagram:
    actors: dict[str, Actor] = {}
    first_seen: dict[Edge, int] = {}
    per_step: list[tuple[Arrow, ...]] = []
    for index, step in enumerate(steps):
        arrows = []
        for transition in step.transitions:
            source = _actor(transition.source, transition, scope, scopes, actors)
            target = _actor(transition.target, transition, scope, scopes, actors)
            arrow = Arrow(source.key, target.key, transition.label or transition.via, transition.via)
            arrows.append(arrow)
            first_seen.setdefault(arrow.edge, index)
        per_step.append(tuple(arrows))
    return ArrowDiagram(scope, _plain_names(list(actors.values())), tuple(per_step), first_seen)


def _plain_names(actors: list[Actor]) -> tuple[Actor, ...]:
    """A scope with one model (or one tools node) calls it just that; the
    qualified ``model · <where>`` label is kept only to tell several apart."""
    counts: dict[str, int] = {}
    for actor in actors:
        counts[actor.role] = counts.get(actor.role, 0) + 1
    return tuple(replace(a, label=a.role) if a.role in (MODEL, TOOLS) and counts[a.role] == 1
                 else a for a in actors)


def _actor(endpoint: str, transition: Transition, scope: tuple[str, ...],
           scopes: Container[tuple[str, ...]], actors: dict[str, Actor]) -> Actor:
    is_branch = transition.via in _BRANCH_VIAS and endpoint != ACTOR_USER
    if transition.via == "decision-branch" and endpoint == transition.source:
        is_branch = False  # the decider itself is a stage, its chosen target the branch
    actor = actor_for(endpoint, scope, scopes, is_branch=is_branch)
    # The first sighting names the actor; later endpoints of the same actor reuse it.
    return actors.setdefault(actor.key, actor)

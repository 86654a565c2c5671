"""The arrow diagram of one scope: its actors, and which arrows each step lights.

Built once per scope from that scope's steps. For slider position ``i``,
:meth:`ArrowDiagram.lit` is every transition of step ``i`` (a fork or merge
lights all its branches at once) and :meth:`ArrowDiagram.faint` every other
actor pair that an earlier step already connected. Later steps are not drawn.

Two things the steps alone do not show:

- :attr:`ArrowDiagram.options`: the branches a decider could have taken, as the
  recording's structure names them. A branch no decision of the scope chose is
  marked not taken; when a decision names a branch the structure does not
  list, nothing is inferred and every branch is shown as an ordinary one.
- :attr:`ArrowDiagram.passes`: a Loop root (every step an iteration of one
  body) is drawn as its passes rather than one box (see :class:`LoopPasses`).
- :attr:`ArrowDiagram.marks`: what the framework's verdicts say happened to
  the call a step's arrow shows: a tool call halted or refused by a permission
  check, a model call answered by a fallback provider or retried (see
  :class:`CallMark`). Findings are tied to steps by :class:`StepMap`, as the
  evidence panels tie calls to steps; one it cannot place exactly marks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Container, Sequence

from recorders import catalogue
from recorders.evidence import EvidenceIndex, Finding, StepMap
from recorders.run_step import ACTOR_USER, DECIDE, ITERATION, RunStep, Transition
from lens.actors import MODEL, TOOLS, Actor, actor_for, stage_base
from lens.decider_branches import decider_branches
from lens.text import one_line

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
class BranchOption:
    """A branch of a decider in this scope that no step reaches."""

    actor: Actor
    decider: str  # the decider's actor key
    chosen: str | None  # what the decider chose instead; None when the recording does not say

    @property
    def not_taken(self) -> bool:
        return self.chosen is not None


# Passes drawn at most at once around the current one. At 1280×720 the diagram
# has about 390 px: five columns still keep a pass's number and the start of
# its output readable.
# With more passes, the current one and its two neighbours are shown (what fed
# this pass, and what it fed), with a "+N" marker for each run of passes left
# out; the first and last pass are one button away on the step controls.
ALL_PASSES_UP_TO = 5
PASSES_AROUND = 1


@dataclass(frozen=True)
class LoopPasses:
    """A Loop root as its passes: step ``i`` is pass ``numbers[i]``."""

    body: Actor  # the loop body the passes run
    numbers: tuple[str, ...]  # the pass number of each step, as recorded
    outputs: tuple[str | None, ...]  # each pass's output text, where the step carries it

    def window(self, index: int) -> list[int | tuple[int, int]]:
        """What to draw at step ``index``, left to right: a pass (its step
        index) or a ``(first, last)`` run of passes left out."""
        count = len(self.numbers)
        if count <= ALL_PASSES_UP_TO:
            return list(range(count))
        first = min(max(index - PASSES_AROUND, 0), count - 1 - 2 * PASSES_AROUND)
        last = first + 2 * PASSES_AROUND
        shown: list[int | tuple[int, int]] = [(0, first - 1)] if first > 0 else []
        shown += range(first, last + 1)
        if last < count - 1:
            shown.append((last + 1, count - 1))
        return shown


# What happened to a call, most telling first: the order marks are drawn in.
HALTED, REFUSED, FALLBACK, RETRIED = "halted", "refused", "fallback", "retried"
MARK_ORDER = (HALTED, REFUSED, FALLBACK, RETRIED)
_TOOL_MARKS = frozenset({HALTED, REFUSED})  # drawn on the arrow that asks for the tool


@dataclass(frozen=True)
class CallMark:
    """What the framework's verdicts say happened to the call a step shows."""

    what: str  # HALTED | REFUSED | FALLBACK | RETRIED
    words: tuple[str, ...]  # the short words drawn under the arrow's label, a line each
    hover: tuple[str, ...]  # a heading, then each finding in its own words (as recorded)

    @property
    def on_tool_call(self) -> bool:
        """Drawn on the arrow into the tools; a model call's mark on the model's answer."""
        return self.what in _TOOL_MARKS


@dataclass(frozen=True)
class ArrowDiagram:
    scope: tuple[str, ...]
    actors: tuple[Actor, ...]  # in order of first appearance
    step_arrows: tuple[tuple[Arrow, ...], ...]  # one entry per step of the scope
    first_seen: dict[Edge, int]  # the step index where each actor pair first connects
    options: tuple[BranchOption, ...] = ()
    passes: LoopPasses | None = None
    marks: dict[int, tuple[CallMark, ...]] | None = None  # by step index; None: no step marked

    def __len__(self) -> int:
        return len(self.step_arrows)

    def lit(self, index: int) -> tuple[Arrow, ...]:
        return self.step_arrows[index]

    def faint(self, index: int) -> list[Edge]:
        lit = {arrow.edge for arrow in self.step_arrows[index]}
        return [edge for edge, first in self.first_seen.items() if first < index and edge not in lit]

    def active_actor_keys(self, index: int) -> set[str]:
        return {key for arrow in self.step_arrows[index] for key in arrow.edge}

    def marks_of(self, index: int, arrow: Arrow) -> tuple[CallMark, ...]:
        """The marks step ``index`` draws on ``arrow``: a tool call's on the
        arrow into the tools, a model call's on the arrow out of the model; a
        step with no such arrow draws them on every arrow it lights."""
        marks = (self.marks or {}).get(index, ())
        if not marks:
            return ()
        roles = {actor.key: actor.role for actor in self.actors}
        lit = self.step_arrows[index]

        def lands_on(mark: CallMark, candidate: Arrow) -> bool:
            return (roles.get(candidate.target) == TOOLS if mark.on_tool_call
                    else roles.get(candidate.source) == MODEL)
        return tuple(mark for mark in marks
                     if lands_on(mark, arrow) or not any(lands_on(mark, a) for a in lit))


def build_arrow_diagram(steps: Sequence[RunStep], scope: tuple[str, ...],
                        scopes: Container[tuple[str, ...]], structure: Any = None,
                        pass_output: Callable[[RunStep], str | None] | None = None,
                        evidence: EvidenceIndex | None = None) -> ArrowDiagram:
    """The diagram of ``steps`` seen from ``scope``; ``structure`` (the
    recording's) names deciders' branches, ``pass_output`` reads a loop pass's
    output from its step, ``evidence`` (the run's index) marks what happened
    to the calls the steps show."""
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
    options = _branch_options(steps, scope, scopes, structure, actors)
    passes = _loop_passes(steps, per_step, actors, pass_output)
    marks = call_marks(evidence, steps) if evidence is not None else None
    return ArrowDiagram(scope, _plain_names(list(actors.values())), tuple(per_step), first_seen,
                        options, passes, marks or None)


def call_marks(evidence: EvidenceIndex, steps: Sequence[RunStep]) -> dict[int, tuple[CallMark, ...]]:
    """Each step's marks, by step index (a step with none is left out)."""
    marked = [(what, finding) for finding in evidence.findings
              if (what := _mark_kind(finding)) is not None]
    if not marked:
        return {}  # most runs: no step map to build
    step_map = StepMap(evidence, steps)
    by_step: dict[int, dict[str, list[Finding]]] = {}
    for what, finding in marked:
        step = _step_of(finding, what, step_map)
        if step is not None:
            by_step.setdefault(step, {}).setdefault(what, []).append(finding)
    return {step: tuple(_mark(what, found[what], evidence) for what in MARK_ORDER if what in found)
            for step, found in sorted(by_step.items())}


def _mark_kind(finding: Finding) -> str | None:
    payload = finding.payload if isinstance(finding.payload, dict) else {}
    if finding.type == catalogue.PERMISSION_HALT:
        return HALTED
    if finding.type == catalogue.PERMISSION_CHECK and finding.tool is not None:
        return {"halt": HALTED, "deny": REFUSED}.get(payload.get("result"))
    if finding.type == catalogue.TOOLS_RESULT_REFUSED and finding.tool is not None:
        return REFUSED
    if finding.type == catalogue.TOOL_END and payload.get("status") == "denied":
        return REFUSED if finding.tool is not None else None
    if finding.type == catalogue.FALLBACK_TRIGGERED and payload.get("kind") == "provider":
        return FALLBACK if finding.call is not None else None
    if finding.type in (catalogue.ERROR_RETRIED, catalogue.RELIABILITY_RETRIED):
        return RETRIED if finding.call is not None else None
    return None


def _step_of(finding: Finding, what: str, step_map: StepMap) -> int | None:
    """A tool call's finding: the step whose arrow asks for that tool; a model
    call's: the step that shows the call's answer. Only where the map is exact."""
    if what in _TOOL_MARKS and finding.tool is not None:
        step, exact = step_map.step_for_tool(finding.tool)
        return step if exact else None
    return step_map.end_step(finding.call) if finding.call is not None else None


def _mark(what: str, findings: list[Finding], evidence: EvidenceIndex) -> CallMark:
    if what == FALLBACK:
        fallbacks = dict.fromkeys(one_line(str(f.payload.get("fallback") or "?"), 24)
                                  for f in findings)
        words = ("via fallback", ", ".join(fallbacks))
        heading = "answered by a fallback provider: " + ", ".join(fallbacks)
    elif what == RETRIED:
        words = (f"retried ×{len(findings)}",)
        heading = f"the model call was retried {len(findings)} time{'s' * (len(findings) != 1)}"
    else:
        words = (what,)
        tools = dict.fromkeys(_tool_name(f, evidence) for f in findings)
        heading = f"tool call {', '.join(t for t in tools if t) or '(unnamed)'} {what}"
    return CallMark(what, words, (heading, *(_finding_words(f) for f in findings)))


def _tool_name(finding: Finding, evidence: EvidenceIndex) -> str:
    if finding.tool is not None:
        name = evidence.tool_calls[finding.tool].name
        if name:
            return one_line(name, 60)
    target = finding.payload.get("target") if isinstance(finding.payload, dict) else None
    return one_line(target, 60) if isinstance(target, str) else ""


def _finding_words(finding: Finding) -> str:
    """``permission.check: result deny · target … · rationale …`` as recorded."""
    words = " · ".join(f"{name} {text}" for name, text in finding.words)
    return one_line(f"{finding.short}: {words or finding.meaning}", 200)


def _branch_options(steps: Sequence[RunStep], scope: tuple[str, ...],
                    scopes: Container[tuple[str, ...]], structure: Any,
                    actors: dict[str, Actor]) -> tuple[BranchOption, ...]:
    decisions = [(t.source, t.target) for step in steps if step.kind == DECIDE
                 for t in step.transitions if t.via == "decision-branch"]
    if not decisions or structure is None:
        return ()
    branches_of = decider_branches(structure)
    options: dict[str, BranchOption] = {}
    for decider, chosen in decisions:
        branches = branches_of.get(stage_base(decider))
        if not branches:
            continue
        taken = next((b for b in branches if chosen in b.aliases), None)
        kind = taken.kind_of(chosen) if taken else None
        decider_key = actor_for(decider, scope, scopes).key
        for branch in branches:
            if branch is taken:
                continue
            actor = actor_for(branch.named_like(kind), scope, scopes, is_branch=True)
            if actor.key in actors:
                continue  # a step reaches it
            known = options.get(actor.key)
            if known is None or (known.not_taken and taken is None):
                # One decision that does not say what it chose is enough not to guess.
                options[actor.key] = BranchOption(actor, decider_key, chosen if taken else None)
    return tuple(options.values())


def _loop_passes(steps: Sequence[RunStep], per_step: list[tuple[Arrow, ...]],
                 actors: dict[str, Actor],
                 pass_output: Callable[[RunStep], str | None] | None) -> LoopPasses | None:
    # The lens projection's Loop row: every step one pass of the same body. The
    # reference projection interleaves its iteration marks (often an Agent's
    # own loop) with handoffs; those keep the one node and its loop mark.
    if not steps or any(step.kind != ITERATION for step in steps):
        return None
    bodies = {arrow.source for arrows in per_step for arrow in arrows if arrow.is_loop}
    if len(bodies) != 1 or any(len(arrows) != 1 or not arrows[0].is_loop for arrows in per_step):
        return None
    numbers = tuple(_pass_number(step, number) for number, step in enumerate(steps))
    outputs = tuple(pass_output(step) if pass_output else None for step in steps)
    return LoopPasses(actors[bodies.pop()], numbers, outputs)


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


def _pass_number(step: RunStep, position: int) -> str:
    index = (step.meta or {}).get("index")
    if isinstance(index, int) and not isinstance(index, bool):
        return str(index)
    return str(position + 1)

"""Where a step lives: the step list a link can reach from the scope on screen.

The evidence panels (served context, backtrack, search) link to *positions in
one step list*. In a composition-rooted run the model calls they link to live
in child scopes, not in the scope being viewed, so that list must reach every
scope. For the scope at ``path`` it is:

- the scope's own steps first, so a position below ``local_count`` is exactly
  the slider position in the scope on screen;
- then every other scope's steps that are not already listed, scope by scope
  in :meth:`lens.scopes.ScopeIndex.paths` order (a parent before its
  children), each step once, in the first scope that shows it. A step shown
  by several scopes is renumbered in each (``seq`` differs), so "the same
  step" means the same kind, arrows, anchor, label and time.

:meth:`ScopedSteps.place` turns a position back into ``(scope path, index)``,
which is what the app needs to drill and set the slider.

Built once per projection (:class:`StepPlaces`, one pass over every scope's
steps); :meth:`StepPlaces.for_scope` builds one scope's list on each call and
keeps nothing, so a caller that asks per slider move (the app) keeps the
result. This module knows nothing about widgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from recorders.run_step import RunStep
from lens.scopes import ROOT, ScopeIndex


@dataclass(frozen=True)
class StepPlace:
    """A step's scope, its index in that scope's steps, and how many there are."""

    path: tuple[str, ...]
    index: int
    count: int

    @property
    def scope_name(self) -> str:
        """The scope's path below the root (``"a/b"``), ``""`` for the root. Recording text."""
        return "/".join(self.path[1:]) if self.path[:1] == ROOT else "/".join(self.path)


@dataclass(frozen=True)
class ScopedSteps:
    """The step list the evidence panels get while ``path`` is on screen."""

    path: tuple[str, ...]
    steps: tuple[RunStep, ...]
    places: tuple[StepPlace, ...]
    local_count: int

    def place(self, position: int) -> StepPlace | None:
        if isinstance(position, bool) or not isinstance(position, int):
            return None
        return self.places[position] if 0 <= position < len(self.places) else None

    def is_local(self, position: int) -> bool:
        return 0 <= position < self.local_count


def step_words(place: StepPlace, exact: bool = True, before: bool = False) -> str:
    """Where something is, in the words every surface uses: ``step 4 of 9``;
    for what no step shows exactly (a link leads to the last step at or before
    it), which two steps it happened between, or that it came after the last;
    ``before``: that it came before this step (the first, for what happened
    before every step). Numbers and fixed words only: the scope is named by
    the caller, which knows whether it is the one on screen."""
    number = place.index + 1
    if exact:
        return f"step {number} of {place.count}"
    if before:
        return f"before step {number} of {place.count}"
    if number < place.count:
        return f"between steps {number} and {number + 1} of {place.count}"
    return f"after step {number} of {place.count}, the last"


def step_identity(step: RunStep) -> tuple:
    """What makes two scopes' copies of a step the same step (all but ``seq``/``meta``)."""
    return (step.kind, step.transitions, step.anchor, step.label, step.ts_ms)


class StepPlaces:
    """Every scope's steps, each step placed once: built once per projection,
    then only read."""

    def __init__(self, scopes: ScopeIndex) -> None:
        self._scopes = scopes
        entries: list[tuple[tuple, RunStep, StepPlace]] = []
        seen: set[tuple] = set()
        for path in scopes.paths():
            steps = scopes.get(path).steps
            count = len(steps)
            for index, step in enumerate(steps):
                identity = step_identity(step)
                known = len(seen)
                seen.add(identity)  # hashes the identity once, where "in" then add would twice
                if len(seen) == known:
                    continue
                entries.append((identity, step, StepPlace(path, index, count)))
        self._entries = tuple(entries)

    def __len__(self) -> int:
        return len(self._entries)

    def for_scope(self, path: tuple[str, ...]) -> ScopedSteps:
        """The list for the scope at ``path`` (the root for a path that is no scope)."""
        scope = self._scopes.get(path) or self._scopes.root()
        return self._build(scope.path, scope.steps)

    def _build(self, path: tuple[str, ...], own: tuple[RunStep, ...]) -> ScopedSteps:
        own_ids = {step_identity(step) for step in own}
        steps = list(own)
        places = [StepPlace(path, index, len(own)) for index in range(len(own))]
        for identity, step, place in self._entries:
            if identity not in own_ids:
                steps.append(step)
                places.append(place)
        return ScopedSteps(path, tuple(steps), tuple(places), len(own))

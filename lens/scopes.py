"""Drill scopes: which subflow paths hold steps, and what each one contains.

A scope is a subflow path starting at ``__root__``: a tuple of segments, kept
as a tuple everywhere. A segment may itself contain ``/`` (a subflow named
``step-reviewers/style``), so where a path becomes text (a link, chart data, a
widget key) it goes through :func:`encode_path`, which escapes ``%`` and ``/``
inside segments, and comes back through :func:`decode_path`. The index is
built once per projection: every prefix of every step anchor, each with its
slider steps (``projection.get_steps(path)``), so moving the slider or
drilling is a dict lookup, never a pass over the steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Container, Iterable, Protocol

from recorders.run_step import RunStep
from recorders.values import ROOT_PATH as ROOT
from recorders.values import PATH_SEPARATOR, decode_path, encode_path  # noqa: F401 (public here too)
from recorders.values import nearest_known_prefix


class StepProjection(Protocol):
    def get_steps(self, drill_path: tuple[str, ...] | None = None) -> list[RunStep]: ...


@dataclass(frozen=True)
class Scope:
    path: tuple[str, ...]
    steps: tuple[RunStep, ...]
    children: tuple[tuple[str, ...], ...]  # enterable children (nearest scope below), by first step

    @property
    def name(self) -> str:
        return self.path[-1]


class ScopeIndex:
    """Owns the scopes of one projection; answers lookups in O(1)."""

    def __init__(self, scopes: dict[tuple[str, ...], Scope]) -> None:
        self._scopes = scopes
        # What a link written before segments were escaped says for each scope:
        # its segments joined with "/" as they are. Kept only where one scope
        # has that text, so an old link is honoured only when it is unambiguous.
        legacy: dict[str, list[tuple[str, ...]]] = {}
        for path in scopes:
            legacy.setdefault(PATH_SEPARATOR.join(path), []).append(path)
        self._by_legacy_text = {text: paths[0] for text, paths in legacy.items()
                                if len(paths) == 1}

    @classmethod
    def build(cls, projection: StepProjection, raw_steps: Iterable[RunStep]) -> ScopeIndex:
        prefixes: dict[tuple[str, ...], None] = {ROOT: None}
        # Each distinct anchor path once, in order of first use: prefixes keep
        # the order in which the steps first reach them.
        for path in dict.fromkeys(step.anchor.subflow_path for step in raw_steps):
            for end in range(1, len(path) + 1):
                prefixes.setdefault(tuple(path[:end]))
        steps_at = {p: tuple(projection.get_steps(p)) for p in prefixes}
        # A prefix whose steps were all filtered out is not a place to go, and
        # neither is one that shows exactly its parent's steps (a wrapper such
        # as an LLMCall's own ``sf-llm-call``): drilling there would change nothing.
        live: dict[tuple[str, ...], None] = {}
        for path in prefixes:  # a parent is always listed before its children
            parent = _nearest_ancestor(path, live)
            if path == ROOT or (steps_at[path] and (parent is None
                                                    or steps_at[path] != steps_at[parent])):
                live[path] = None
        children: dict[tuple[str, ...], list[tuple[str, ...]]] = {p: [] for p in live}
        for path in sorted(live, key=lambda p: _first_ts(steps_at[p])):
            parent = _nearest_ancestor(path, children)
            if parent is not None:
                children[parent].append(path)
        return cls({p: Scope(p, steps_at[p], tuple(children[p])) for p in live})

    def __contains__(self, path: object) -> bool:
        return path in self._scopes

    def get(self, path: tuple[str, ...]) -> Scope | None:
        return self._scopes.get(tuple(path))

    def root(self) -> Scope:
        return self._scopes[ROOT]

    def paths(self) -> list[tuple[str, ...]]:
        return list(self._scopes)

    def lookup(self, text: str) -> tuple[str, ...] | None:
        """The scope a link's ``drill=`` (or a chart point's data) names, or
        None when it names none.

        The text is read as :func:`encode_path` writes it; failing that, as an
        older link wrote it (segments joined unescaped), when exactly one
        scope reads that way.
        """
        path = decode_path(text)
        if path in self._scopes:
            return path
        return self._by_legacy_text.get(text)

    def breadcrumb(self, path: tuple[str, ...]) -> list[tuple[str, ...]]:
        """Root to ``path``, every ancestor that is itself a scope."""
        return [path[:end] for end in range(1, len(path) + 1) if path[:end] in self._scopes]


def _first_ts(steps: tuple[RunStep, ...]) -> float:
    return steps[0].ts_ms if steps else float("inf")


def _nearest_ancestor(path: tuple[str, ...], scopes: Container) -> tuple[str, ...] | None:
    """The closest proper prefix that is a scope (an empty middle level is skipped)."""
    return nearest_known_prefix(path, scopes, proper=True)

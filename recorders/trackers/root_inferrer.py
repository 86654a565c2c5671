"""RootInferrer: is the run's root a single leaf or a composition?"""

from __future__ import annotations

KNOWN_PRIMITIVES = frozenset({"Agent", "LLMCall", "Sequence", "Parallel", "Conditional", "Loop"})
LEAF_PRIMITIVES = frozenset({"Agent", "LLMCall"})
COMPOSITION_PRIMITIVES = frozenset({"Sequence", "Parallel", "Conditional", "Loop"})
_DECISIVE = frozenset({"parallel", "conditional", "loop"})


class RootInferrer:
    """Owns the verdict on the run's root kind and the evidence for it.

    Verdicts: ``leaf``, ``sequence``, ``parallel``, ``conditional``, ``loop``
    or None (no signal yet, treated as a leaf). A fork, decision or loop seen
    at depth 0 locks the verdict when none exists yet. Otherwise the shallowest
    primitive subflow decides: a composition kind names the root, two or more
    primitives at that depth make an implicit Sequence, a single leaf makes a
    leaf root.

    Does not own: depth computation or primitive-kind parsing (the recorder
    passes them in), nor the step filter that uses the verdict.
    """

    def __init__(self) -> None:
        self._kind: str | None = None
        self._shallowest_depth = float("inf")
        self._siblings_at_shallowest = 0

    @property
    def kind(self) -> str | None:
        return self._kind

    def is_leaf_root(self) -> bool:
        return self._kind in (None, "leaf")

    def observe_subflow_entry(self, depth: int, primitive_kind: str | None) -> None:
        if primitive_kind not in KNOWN_PRIMITIVES:
            return
        if depth < self._shallowest_depth:
            self._shallowest_depth = depth
            self._siblings_at_shallowest = 1
            self._infer(primitive_kind)
        elif depth == self._shallowest_depth:
            self._siblings_at_shallowest += 1
            self._infer(None)

    def observe_fork(self, depth: int) -> None:
        self._lock_at_root(depth, "parallel")

    def observe_decision(self, depth: int) -> None:
        self._lock_at_root(depth, "conditional")

    def observe_loop(self, depth: int) -> None:
        self._lock_at_root(depth, "loop")

    def clear(self) -> None:
        self._kind = None
        self._shallowest_depth = float("inf")
        self._siblings_at_shallowest = 0

    def _lock_at_root(self, depth: int, kind: str) -> None:
        if depth == 0 and self._kind is None:
            self._kind = kind

    def _infer(self, primitive_kind: str | None) -> None:
        if self._kind in _DECISIVE:
            return
        if primitive_kind in COMPOSITION_PRIMITIVES:
            self._kind = primitive_kind.lower()
        elif self._siblings_at_shallowest >= 2:
            self._kind = "sequence"
        elif primitive_kind in LEAF_PRIMITIVES:
            self._kind = "leaf"

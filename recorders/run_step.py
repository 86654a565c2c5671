"""RunStep: one slider position, and its wire form.

Python names are snake_case; :meth:`RunStep.to_wire` gives the reference JSON
field names (``from``, ``to``, ``tsMs``, ``runtimeStageId``...) with optional
fields absent rather than null, so output compares with the JS recorders.

The three records are immutable named tuples rather than frozen dataclasses:
opening a run builds one per step and copies each step once per scope that
shows it (``with_seq``), and the views hash and compare them in bulk; a named
tuple is built, hashed and compared in C, several times faster. Read them by
field name; that they are also tuples is not part of their meaning.
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple


ACTOR_USER = "actor:user"

# Step kinds.
SEQUENTIAL = "sequential"
FORK = "fork"
MERGE = "merge"
DECIDE = "decide"
ITERATION = "iteration"
REACT = "react"


class Transition(NamedTuple):
    """One lit arrow: ``source`` hands to ``target`` by ``via``."""

    source: str
    target: str
    via: str
    label: str | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"from": self.source, "to": self.target, "via": self.via}
        if self.label is not None:
            wire["label"] = self.label
        return wire


class Anchor(NamedTuple):
    """Where a step happened: the stage execution and its subflow path."""

    runtime_stage_id: str
    subflow_path: tuple[str, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"runtimeStageId": self.runtime_stage_id, "subflowPath": list(self.subflow_path)}


class RunStep(NamedTuple):
    """One slider position: what kind of move, which arrows it lights, where.

    ``meta`` is the kind-specific decoration in wire form (``kind``,
    ``actorArrow``, ``chosen``, ``rationale``, ``mergedCount``...), or None.
    """

    seq: int
    kind: str
    transitions: tuple[Transition, ...]
    anchor: Anchor
    label: str
    ts_ms: float
    meta: Mapping[str, Any] | None = None

    @property
    def runtime_stage_id(self) -> str:
        return self.anchor.runtime_stage_id

    def with_seq(self, seq: int) -> RunStep:
        if seq == self.seq:
            return self
        # Built straight from the tuple, not by _replace or the constructor: this
        # runs once per step per scope when a run opens, and they cost 2-4x as much.
        return _new_tuple(RunStep, (seq,) + self[1:])

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "seq": self.seq,
            "kind": self.kind,
            "transitions": [t.to_wire() for t in self.transitions],
            "anchor": self.anchor.to_wire(),
            "label": self.label,
            "tsMs": self.ts_ms,
        }
        if self.meta is not None:
            wire["meta"] = dict(self.meta)
        wire["runtimeStageId"] = self.anchor.runtime_stage_id
        return wire


def is_path_prefix(prefix: tuple[str, ...] | list[str], path: tuple[str, ...]) -> bool:
    if len(prefix) > len(path):
        return False
    if type(prefix) is type(path):  # both tuples (or both lists): compare as they are
        return path[: len(prefix)] == prefix
    return tuple(path[: len(prefix)]) == tuple(prefix)


def renumber(steps: list[RunStep]) -> list[RunStep]:
    """Give filtered steps contiguous 0-based ``seq`` numbers."""
    return [step if step.seq == i else step.with_seq(i) for i, step in enumerate(steps)]


_new_tuple = tuple.__new__

"""Which keys each execution step read, from the snapshot's execution tree.

Owns: the one walk of ``executionTree`` (``stageReads`` per node with a
``runtimeStageId``) and the coverage it saw. Reads are not in the commit log,
so every lineage query asks this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from recorders.lineage.js_semantics import object_keys, truthy

KIND = "execution-tree"  # the strategy name footprintjs reports for these reads


@dataclass
class StepReads:
    """Keys read per ``runtimeStageId``, and how many steps the tree held."""

    by_step: dict[str, list[str]] = field(default_factory=dict)
    steps: int = 0
    kind: str = KIND

    def of(self, runtime_stage_id: Any) -> list[str]:
        return self.by_step.get(runtime_stage_id, []) if isinstance(runtime_stage_id, str) else []

    @property
    def coverage(self) -> dict[str, int]:
        return {"steps": self.steps, "stepsWithReads": len(self.by_step)}


def reads_from_tree(tree: Any) -> StepReads:
    """Walk ``tree`` (a node, a list of nodes, or None for none) without
    recursion: the tree of a long run is a chain over a thousand deep. The
    walk order (a stack: ``next`` pushed before ``children``) decides which
    node wins when two carry the same step id, as in footprintjs."""
    reads = StepReads()
    stack = list(tree) if isinstance(tree, list) else ([] if tree is None else [tree])
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        step = node.get("runtimeStageId")
        if truthy(step):
            reads.steps += 1
            stage_reads = node.get("stageReads")
            if truthy(stage_reads):
                keys = (object_keys(stage_reads) if isinstance(stage_reads, dict)
                        else [str(i) for i in range(len(stage_reads))]
                        if isinstance(stage_reads, list) else [])
                if keys:
                    reads.by_step[step] = keys
        following = node.get("next")
        if truthy(following):
            stack.append(following)
        children = node.get("children")
        if isinstance(children, list):
            stack.extend(children)
    return reads

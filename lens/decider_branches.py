"""The branches each decider may take, as the recording's build-time structure names them.

The structure (``recording.structure``) is a tree of stages: ``next`` chains,
``children`` (a decider's branches, a fork's branches) and
``subflowStructure`` (a subflow's own chart, whose stage ids the runtime
prefixes with the subflow's id and ``/``). A decider is a node with
``type: "decider"`` or ``hasDecider``; each child is one branch, known at
run time by its subflow id, its id or its name.

What this owns: reading the structure into decider → branches. What it does
not: which branch ran (a decision step says that) or drawing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


_NAME_KINDS = ("subflowId", "name", "id")


@dataclass(frozen=True)
class Branch:
    names: tuple[tuple[str, str], ...]  # (kind, prefixed name) for subflowId, name, id as present

    @property
    def aliases(self) -> frozenset[str]:
        """Every name a decision may use for this branch."""
        return frozenset(name for _, name in self.names)

    def kind_of(self, name: str) -> str | None:
        return next((kind for kind, known in self.names if known == name), None)

    def named_like(self, kind: str | None) -> str:
        """This branch's name of ``kind`` (how the decision named the branch it
        chose), else its first: a transition names a branch the way its decision did."""
        return next((known for k, known in self.names if k == kind), self.names[0][1])


def decider_branches(structure: Any) -> dict[str, tuple[Branch, ...]]:
    """Decider stage id (prefixed as the runtime names it) → its branches in chart order.

    Anything malformed is skipped: a structure this cannot read names no branches.
    """
    found: dict[str, tuple[Branch, ...]] = {}
    stack: list[tuple[Any, str]] = [(structure, "")]
    seen = 0
    while stack and seen < 200_000:  # a bound against a hostile, enormous chart
        node, prefix = stack.pop()
        seen += 1
        if isinstance(node, list):
            stack.extend((item, prefix) for item in node)
            continue
        if not isinstance(node, dict):
            continue
        children = node.get("children")
        node_id = node.get("id")
        if (node.get("type") == "decider" or node.get("hasDecider") is True) \
                and isinstance(node_id, str) and isinstance(children, list):
            branches = tuple(b for b in (_branch(child, prefix) for child in children) if b)
            if len(branches) > 1:
                found.setdefault(prefix + node_id, branches)
        for key in ("next", "children"):
            if isinstance(node.get(key), (dict, list)):
                stack.append((node[key], prefix))
        inner = node.get("subflowStructure")
        subflow = node.get("subflowId")
        if isinstance(inner, (dict, list)) and isinstance(subflow, str):
            stack.append((inner, f"{prefix}{subflow}/"))
    return found


def _branch(child: Any, prefix: str) -> Branch | None:
    if not isinstance(child, dict):
        return None
    names = tuple((kind, prefix + child[kind]) for kind in _NAME_KINDS
                  if isinstance(child.get(kind), str) and child[kind])
    return Branch(names) if names else None

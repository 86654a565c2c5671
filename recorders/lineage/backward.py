"""The backward slice of a key: which stages' writes made it what it is.

Owns: anchoring at the key's last writer and walking read -> writer links
breadth first (thin slicing, as footprintjs's ``sliceForKey`` over
``causalChain`` with per-write attribution), and the flat, id-keyed JSON of
the result (``sliceToJSON``'s shape). Budgets: depth 20, 100 nodes, a cut is
stated as ``truncated``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from recorders.lineage.js_semantics import MISSING, truthy, without_missing
from recorders.lineage.log import CommitLog, step_key

MAX_DEPTH = 20
MAX_NODES = 100


@dataclass
class _Node:
    step: Any
    position: int  # the commit the node's fields were read from
    depth: int
    parents: list["_Node"] = field(default_factory=list)
    edges: list[tuple["_Node", str]] = field(default_factory=list)  # (parent, key)


def _incomplete(bundle: dict) -> Any:
    """The commit's untracked sources, or MISSING when it consumed none."""
    sources = bundle.get("untrackedSources", MISSING)
    if not truthy(sources) or (isinstance(sources, (list, str)) and len(sources) == 0):
        return MISSING
    return sources


class _Walk:
    """One backward walk; state lives only for its length."""

    def __init__(self, log: CommitLog) -> None:
        self.log = log
        self.nodes: dict[Any, _Node] = {}
        self.expanded: dict[Any, set[str]] = {}
        self.fully_expanded: set[Any] = set()
        self.queue: deque = deque()
        self.by_depth = False
        self.by_nodes = False

    def reads_for_links(self, position: int, link_keys: list[str] | None
                        ) -> tuple[list[str], bool]:
        """The reads a node expands through: the union of its linking writes'
        recorded read prefixes, or (when any lacks one) all the step read."""
        bundle = self.log.bundles[position]
        if not link_keys:
            return self.log.reads.of(bundle.get("runtimeStageId")), True
        union: dict[str, None] = {}
        for link in link_keys:
            entry = self.log.first_entry(position, link)
            if entry is None or "readKeys" not in entry:
                return self.log.reads.of(bundle.get("runtimeStageId")), True
            for key in entry["readKeys"]:
                union[key] = None
        return list(union), False

    def link(self, node: _Node, parent_position: int, key: str) -> None:
        bundle = self.log.bundles[parent_position]
        parent_step = bundle.get("runtimeStageId", MISSING)
        identity = step_key(parent_step)
        parent = self.nodes.get(identity)
        if parent is None:
            if len(self.nodes) >= MAX_NODES:
                self.by_nodes = True
                return
            parent = _Node(parent_step, parent_position, node.depth + 1)
            self.nodes[identity] = parent
            reads, full = self.reads_for_links(parent_position, [key])
            self.expanded[identity] = set(reads)
            if full:
                self.fully_expanded.add(identity)
            self.queue.append((parent, self.log.last_position[identity], parent.depth, reads))
        elif identity not in self.fully_expanded:
            # Linked again through another key: expand only what it did not yet.
            reads, full = self.reads_for_links(parent_position, [key])
            done = self.expanded[identity]
            delta = [k for k in reads if k not in done]
            if full:
                self.fully_expanded.add(identity)
            if delta:
                done.update(delta)
                self.queue.append((parent, self.log.last_position[identity], parent.depth, delta))
        if not any(p is parent for p in node.parents):
            node.parents.append(parent)
        if not any(p is parent and k == key for p, k in node.edges):
            node.edges.append((parent, key))

    def run(self, writer_position: int, key: str) -> _Node:
        step = self.log.bundles[writer_position].get("runtimeStageId", MISSING)
        identity = step_key(step)
        # The walk starts at the step's LAST commit, as causalChain indexes steps.
        start = self.log.last_position[identity]
        root = _Node(step, start, 0)
        self.nodes[identity] = root
        reads, full = self.reads_for_links(start, [key])
        self.expanded[identity] = set(reads)
        if full:
            self.fully_expanded.add(identity)
        self.queue.append((root, start, 0, reads))
        while self.queue:
            node, position, depth, keys = self.queue.popleft()
            if depth >= MAX_DEPTH:
                if keys:
                    self.by_depth = True
                continue
            for read in keys:
                writer = self.log.last_writer_before(read, position)
                if writer is not None:
                    self.link(node, writer, read)
        return root


def slice_for_key(log: CommitLog, key: str) -> dict[str, Any]:
    """The backward slice of ``key`` (a normalised key), as ``sliceToJSON`` writes it."""
    out: dict[str, Any] = {"key": key, "keysReadKind": log.reads.kind,
                           "readsCoverage": log.reads.coverage}
    if len(log) == 0:
        return {**out, "missing": "empty-log"}
    writer = log.last_writer_before(key, None)
    if writer is None:  # the value came from initial state, run input or a closure
        return {**out, "missing": "never-written"}
    walk = _Walk(log)
    root = walk.run(writer, key)
    nodes: dict[str, Any] = {}
    edges: list[dict[str, Any]] = []
    for node in _breadth_first(root):
        bundle = log.bundles[node.position]
        nodes[node.step] = without_missing({
            "stageId": bundle.get("stageId", MISSING),
            "stageName": bundle.get("stage", MISSING),
            "keysWritten": list(log.paths[node.position]),
            "depth": node.depth,
            "incompleteSources": _incomplete(bundle),
        })
        for parent, link_key in node.edges:
            edges.append({"from": node.step, "to": parent.step, "kind": "data",
                          "key": link_key, "weight": 1})
    out["writerId"] = root.step
    out["nodes"] = nodes
    out["edges"] = edges
    if walk.by_depth or walk.by_nodes:
        out["truncated"] = {"byDepth": walk.by_depth, "byNodes": walk.by_nodes}
    return out


def _breadth_first(root: _Node) -> list[_Node]:
    """Every node once, breadth first over parents (the serialised order)."""
    order: list[_Node] = []
    seen: set[Any] = set()
    queue = deque([root])
    while queue:
        node = queue.popleft()
        identity = step_key(node.step)
        if identity in seen:
            continue
        seen.add(identity)
        order.append(node)
        queue.extend(p for p in node.parents if step_key(p.step) not in seen)
    return order

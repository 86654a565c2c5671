"""The forward slice of a key: who read its value, and what that fed.

Owns: the walk over a value's life (from its write to the key's next write,
open below and closed above: reads fire before their own stage commits), the
``fed`` edges to what each reader wrote (exact with per-write read
provenance, conservative without), and the JSON of the result in the shape
``forwardSliceToJSON`` writes (opaque ids ``n0``, ``n1``... in breadth-first
order). Budgets as the backward walk: depth 20, 100 nodes.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from recorders.lineage import notes as say
from recorders.lineage.js_semantics import MISSING, without_missing
from recorders.lineage.log import CommitLog, first_after, in_range, last_before

MAX_DEPTH = 20
MAX_NODES = 100


@dataclass
class _Life:
    """One value of one key: from a write (or from before the run) to the next write."""

    key: str
    position: int | None  # None: the value predates every write in the log
    next_write: int | None
    depth: int
    reads: list[dict] = field(default_factory=list)
    fed: list[tuple["_Life", str]] = field(default_factory=list)  # (child, basis)


def _stage_fields(bundle: dict, position: int) -> dict[str, Any]:
    return {"runtimeStageId": bundle.get("runtimeStageId", MISSING),
            "stageId": bundle.get("stageId", MISSING),
            "stageName": bundle.get("stage", MISSING),
            "commitIdx": position}


def _untracked(bundle: dict) -> Any:
    sources = bundle.get("untrackedSources", MISSING)
    if not isinstance(sources, (list, str)) or len(sources) == 0:
        return MISSING
    return sources


def forward_slice_for_key(log: CommitLog, key: str) -> dict[str, Any]:
    """The forward slice of ``key`` (a normalised key), as JSON."""
    out, notes, answered = say.query_head(log, key)
    if answered is not None:
        return answered

    lives: dict[tuple[int | None, str], _Life] = {}
    by_depth = by_nodes = conservative = False

    def life(path: str, position: int | None, depth: int) -> _Life:
        writes = log.writes_by_key.get(path)
        if position is None:
            following = writes[0] if writes else None
        else:
            following = first_after(writes, position)
        return _Life(path, position, following, depth)

    anchor = last_before(log.writes_by_key.get(key), None)
    root = life(key, anchor, 0)
    lives[(anchor, key)] = root
    queue = deque([root])
    while queue:
        node = queue.popleft()
        low = node.position + 1 if node.position is not None else 0
        readers = in_range(log.reads_by_key.get(node.key), low, node.next_write)
        if node.depth >= MAX_DEPTH:
            if readers:
                by_depth = True
            continue
        for reader in readers:
            bundle = log.bundles[reader]
            node.reads.append(without_missing(_stage_fields(bundle, reader)))
            for path in dict.fromkeys(log.paths[reader]):
                entry = log.last_entry(reader, path)
                if entry is not None and "readKeys" in entry:
                    # Recorded provenance is exact both ways: it can exclude.
                    if node.key not in entry["readKeys"]:
                        continue
                    basis = "per-write"
                else:
                    basis = "stage"
                    conservative = True
                child = lives.get((reader, path))
                if child is None:
                    if len(lives) >= MAX_NODES:
                        by_nodes = True
                        continue
                    child = life(path, reader, node.depth + 1)
                    lives[(reader, path)] = child
                    queue.append(child)
                if not any(c is child for c, _ in node.fed):
                    node.fed.append((child, basis))

    if root.position is None:
        notes.append(say.pre_run_origin(key))
    if conservative:
        notes.append(say.conservative_edges(key))
    if by_depth or by_nodes:
        notes.append(say.truncated(by_depth, by_nodes))
    out["notes"] = notes
    order = _breadth_first(root)
    ids = {id(node): f"n{number}" for number, node in enumerate(order)}
    out["rootId"] = ids[id(root)]
    out["nodes"] = [_node_json(log, node, ids[id(node)]) for node in order]
    out["edges"] = [{"from": ids[id(node)], "to": ids[id(child)], "basis": basis}
                    for node in order for child, basis in node.fed]
    if by_depth or by_nodes:
        out["truncated"] = {"byDepth": by_depth, "byNodes": by_nodes}
    return out


def _node_json(log: CommitLog, node: _Life, node_id: str) -> dict[str, Any]:
    fields: dict[str, Any] = {"id": node_id, "key": node.key}
    if node.position is None:
        fields["origin"] = "pre-run"
    else:
        bundle = log.bundles[node.position]
        entry = log.last_entry(node.position, node.key)
        fields.update(origin="write", **_stage_fields(bundle, node.position),
                      verb=entry.get("verb", MISSING) if entry is not None else MISSING)
    fields["nextWriteIdx"] = node.next_write if node.next_write is not None else MISSING
    fields["depth"] = node.depth
    fields["reads"] = node.reads
    if node.position is not None:
        fields["incompleteSources"] = _untracked(log.bundles[node.position])
    return without_missing(fields)


def _breadth_first(root: _Life) -> list[_Life]:
    order: list[_Life] = []
    seen: set[int] = set()
    queue = deque([root])
    while queue:
        node = queue.popleft()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        queue.extend(child for child, _ in node.fed if id(child) not in seen)
    return order

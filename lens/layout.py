"""Where each actor sits in the arrow diagram.

Columns are hops from the user along the scope's arrows (breadth-first), so
a Sequence reads left to right, a Parallel fans out and back, and an Agent
reads user → model → tools. Actors no arrow from the user reaches start a
column to the right of the user. Within a column, actors keep their order of
first appearance, top to bottom.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable, Sequence

from recorders.run_step import ACTOR_USER

Point = tuple[float, float]


def column_layout(actor_keys: Sequence[str], edges: Iterable[tuple[str, str]]) -> dict[str, Point]:
    following: dict[str, list[str]] = {key: [] for key in actor_keys}
    for source, target in edges:
        if source in following and target not in following[source]:
            following[source].append(target)
    column: dict[str, int] = {}
    starts = [ACTOR_USER] if ACTOR_USER in following else []
    for start in [*starts, *actor_keys]:
        if start in column:
            continue
        column[start] = 0 if start == ACTOR_USER else 1
        queue = deque([start])
        while queue:
            key = queue.popleft()
            for nxt in following[key]:
                if nxt not in column:
                    column[nxt] = column[key] + 1
                    queue.append(nxt)
    by_column: dict[int, list[str]] = {}
    for key in actor_keys:
        by_column.setdefault(column[key], []).append(key)
    positions: dict[str, Point] = {}
    for col, keys in by_column.items():
        top = (len(keys) - 1) / 2
        for row, key in enumerate(keys):
            positions[key] = (float(col), top - row)
    return positions

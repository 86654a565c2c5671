"""The timeline of a key: every write and every recorded read, in commit order.

Owns: merging the key's write and read positions (a read first at the same
position: it fired before its stage committed), which write each read saw,
and the ``keyTimeline`` JSON shape with its notes.
"""

from __future__ import annotations

from typing import Any

from recorders.lineage import notes as say
from recorders.lineage.js_semantics import MISSING, without_missing
from recorders.lineage.log import CommitLog, last_before


def key_timeline(log: CommitLog, key: str) -> dict[str, Any]:
    out, notes, answered = say.query_head(log, key)
    if answered is not None:
        return answered
    writes = log.writes_by_key.get(key, [])
    reads = log.reads_by_key.get(key, [])
    moments: list[dict[str, Any]] = []
    w = r = 0
    pre_run_read = False
    while w < len(writes) or r < len(reads):
        if r < len(reads) and (w >= len(writes) or reads[r] <= writes[w]):
            position = reads[r]
            r += 1
            seen = last_before(writes, position)  # the last write strictly before
            pre_run_read = pre_run_read or seen is None
            moments.append(_moment(log, "read", position,
                                   fromWriteIdx=MISSING if seen is None else seen))
        else:
            position = writes[w]
            w += 1
            entry = log.last_entry(position, key)
            moments.append(_moment(log, "write", position,
                                   verb=entry.get("verb", MISSING) if entry else MISSING))
    if pre_run_read:
        notes.append(say.pre_run_origin(key))
    out["moments"] = moments
    out["notes"] = notes
    return out


def _moment(log: CommitLog, kind: str, position: int, **extra: Any) -> dict[str, Any]:
    bundle = log.bundles[position]
    return without_missing({"kind": kind, "commitIdx": position,
                            "runtimeStageId": bundle.get("runtimeStageId", MISSING),
                            "stageId": bundle.get("stageId", MISSING),
                            "stageName": bundle.get("stage", MISSING), **extra})

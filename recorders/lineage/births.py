"""Which commit put each element of an array key where it is.

Owns: folding the key's writes from its first touch (set replaces, append
concatenates, merge unions, delete clears) while keeping one birth record per
element, labelled with how it was determined: ``append-verb`` (the engine
recorded the tail), ``prefix-inference`` (a full write kept the old array as
its prefix), ``whole-value`` (replaced wholesale). The ``arrayProvenance``
JSON shape.
"""

from __future__ import annotations

from typing import Any

from recorders.lineage.js_semantics import MISSING, deep_equal, own_get, smart_merge, without_missing
from recorders.lineage.log import DELIM, CommitLog


def array_provenance(log: CommitLog, key: str) -> dict[str, Any]:
    if len(log) == 0:
        return {"key": key, "missing": "empty-log"}
    touches = log.touches_by_key.get(key)
    if not touches:
        return {"key": key, "missing": "never-written"}
    segments = key.split(DELIM)
    value: Any = None  # None stands for undefined too: neither is an array
    births: list[dict[str, Any]] = []
    for position, entry in touches:
        bundle = log.bundles[position]
        verb = entry.get("verb", MISSING)
        if verb == "set":
            following = own_get(bundle.get("overwrite"), segments)
            births = _rebase(value, following, births, bundle, position, verb)
            value = following
        elif verb == "delete":
            value, births = None, []
        elif verb == "append":
            tail = own_get(bundle.get("overwrite"), segments)
            if isinstance(value, list) and isinstance(tail, list):
                births.extend(_birth(len(value) + j, bundle, position, verb, "append-verb", item)
                              for j, item in enumerate(tail))
                value = [*value, *tail]
            else:  # an append onto a non-array, or a tail that is not one: it becomes the value
                value = tail
                births = ([_birth(j, bundle, position, verb, "append-verb", item)
                           for j, item in enumerate(tail)] if isinstance(tail, list) else [])
        else:  # any other verb folds as a merge, as the engine's fold does
            following = smart_merge(value, own_get(bundle.get("updates"), segments))
            births = _rebase(value, following, births, bundle, position, verb)
            value = following
    if not isinstance(value, list):
        return {"key": key, "missing": "not-an-array"}
    return {"key": key, "atIdx": len(log) - 1, "length": len(value), "births": births}


def _rebase(before: Any, after: Any, births: list, bundle: dict, position: int,
            verb: Any) -> list:
    """Births after a full-value write: the old ones kept when the old array
    is a prefix of the new, the tail born here; otherwise all reborn here."""
    if not isinstance(after, list):
        return []
    if isinstance(before, list) and len(before) <= len(after) and all(
            deep_equal(old, new) for old, new in zip(before, after)):
        kept = births[:len(before)]
        kept.extend(_birth(i, bundle, position, verb, "prefix-inference", after[i])
                    for i in range(len(before), len(after)))
        return kept
    return [_birth(i, bundle, position, verb, "whole-value", item) for i, item in enumerate(after)]


def _birth(index: int, bundle: dict, position: int, verb: Any, basis: str,
           value: Any) -> dict[str, Any]:
    return without_missing({"index": index, "commitIdx": position,
                            "runtimeStageId": bundle.get("runtimeStageId", MISSING),
                            "stageId": bundle.get("stageId", MISSING),
                            "stageName": bundle.get("stage", MISSING),
                            "verb": verb, "basis": basis, "value": value})

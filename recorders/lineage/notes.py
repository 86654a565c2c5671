"""The honesty notes the forward slice and the timeline attach, worded as
footprintjs 9.24.0 words them (consumers compare them as text).

Owns: one sentence per code, and the start the two queries share
(:func:`query_head`). The wording is the library's contract, restated
here so that a slice printed by Lens equals the one footprintjs serialises.
"""

from __future__ import annotations

from typing import Any

from recorders.lineage.js_semantics import utf16_order

KNOWN_KEYS_LISTED = 10  # how many known keys an unknown-key note names


def unknown_key(known_keys: set[str], key: str) -> dict[str, str]:
    ordered = sorted(known_keys, key=utf16_order)
    shown = ordered[:KNOWN_KEYS_LISTED]
    more = len(ordered) - len(shown)
    known = (", ".join(shown) + (f" (+{more} more)" if more > 0 else "")) if shown else "(none)"
    return {"code": "unknown-key",
            "detail": f"unknown key '{key}' \u2014 this commit log has no write and no recorded "
                      f"read of it. Known keys: {known}. If the key is real, check that the "
                      "commit log and the reads provider come from the SAME scope (a subflow "
                      "has its own)."}


def reads_not_recorded() -> dict[str, str]:
    return {"code": "reads-not-recorded",
            "detail": "reads were not recorded (readTracking may be 'off') \u2014 'nothing read "
                      "this value' is UNKNOWABLE here, not true."}


def pre_run_origin(key: str) -> dict[str, str]:
    return {"code": "pre-run-origin",
            "detail": f"'{key}' has no write before this point \u2014 the value came from initial "
                      "state, frozen run input (args), or a closure. The reads listed did see "
                      "it; who put it there is outside the commit log."}


def conservative_edges(key: str) -> dict[str, str]:
    return {"code": "conservative-fed-edges",
            "detail": "some 'fed' edges are CONSERVATIVE (stage-level): those writes carry no "
                      f"per-write read provenance, so a stage that read '{key}' and wrote another "
                      "key may not actually have used it. Run with writeProvenance: "
                      "'reads-prefix' to get exact edges."}


def truncated(by_depth: bool, by_nodes: bool) -> dict[str, str]:
    causes = ", ".join(cause for cause, cut in (("maxDepth reached", by_depth),
                                                ("maxNodes reached", by_nodes)) if cut)
    return {"code": "truncated",
            "detail": f"walk truncated ({causes}) \u2014 more consumers of this value exist "
                      "beyond this horizon."}


def query_head(log: Any, key: str) -> tuple[dict[str, Any], list[dict[str, str]],
                                          dict[str, Any] | None]:
    """What the forward slice and the timeline of ``key`` start with alike: the
    identity fields, the notes so far, and the whole answer when the log can say
    no more (an empty log; a key never written in a log that records its reads)."""
    out: dict[str, Any] = {"key": key, "keysReadKind": log.reads.kind,
                           "readsCoverage": log.reads.coverage}
    if len(log) == 0:
        return out, [], {**out, "missing": "empty-log", "notes": []}
    reads_recorded = log.has_recorded_reads()
    notes: list[dict[str, str]] = []
    if key not in log.known_keys:
        notes.append(unknown_key(log.known_keys, key))
        if reads_recorded:  # the log sees readers and this key has none: a finding
            return out, notes, {**out, "missing": "never-written", "notes": notes}
    if not reads_recorded:
        notes.append(reads_not_recorded())
    return out, notes, None

"""The honesty notes the forward slice and the timeline attach, worded as
footprintjs 9.24.0 words them (consumers compare them as text).

Owns: one sentence per code. The wording is the library's contract, restated
here so that a slice printed by Lens equals the one footprintjs serialises.
"""

from __future__ import annotations

from recorders.lineage._js import utf16_order

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

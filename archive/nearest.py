"""The nearest good run: the run to compare a failing run with.

From a failing run and one of its causes (by default its most likely
error), the nearest good run is a run of the same agent that does not have
that cause: one with the very same user message first, else the one whose
user message reads closest (a word-overlap score, then the most recent).
Among equals, fewer error causes win, then the newer run. Compare then opens
the two side by side at their first difference.

What this owns: choosing the run. What it does not: comparing (lens.compare)
or opening it (the app's Compare page, ``compare`` command).
"""

from __future__ import annotations

import re
from typing import Any

import duckdb

from archive.errors import ArchiveError
from archive.query import DEFAULT_LIMITS, QueryLimits, select

# The candidates scored by text are the most recent this many runs of the agent.
MAX_CANDIDATES = 5000
_WORD = re.compile(r"\w+", re.UNICODE)

_RUN = 'SELECT file, run_id, agent, user_message, started_at FROM "runs" WHERE file = ?'
_CAUSES = ('SELECT kind, subject, signature, severity, headline, rank FROM "causes" '
           'WHERE file = ? ORDER BY rank')
_CANDIDATES = """
SELECT r.file, r.run_id, r.user_message, r.started_at,
       (SELECT count(*) FROM "causes" e WHERE e.file = r.file AND e.severity = 'error') AS errors
FROM "runs" r
WHERE r.agent IS NOT DISTINCT FROM ? AND r.file <> ?
  AND NOT EXISTS (SELECT 1 FROM "causes" c WHERE c.file = r.file AND c.kind = ?
                  AND c.subject IS NOT DISTINCT FROM ? AND c.signature = ?)
ORDER BY r.started_at DESC NULLS LAST, r.file
LIMIT ?
"""


def nearest_good_run(con: duckdb.DuckDBPyConnection, file: str, cause_rank: int | None = None,
                     limits: QueryLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """``{"file", "runId", "userMessage", "why", "cause": {...}, "nearest": {...} | None}``:
    the nearest run of ``file``'s agent without the cause at ``cause_rank`` in
    ``file``'s list (default: its first error, else its first cause)."""
    found = select(con, _RUN, [file], limits=limits)
    if not found:
        raise ArchiveError(f"{file!r} is not a run of this index (re-index, or check the path)")
    run = found[0]
    causes = select(con, _CAUSES, [file], limits=limits)
    if not causes:
        raise ArchiveError(f"{file!r} has no likely cause to look for a run without")
    if cause_rank is None:
        cause = next((c for c in causes if c["severity"] == "error"), causes[0])
    else:
        cause = next((c for c in causes if c["rank"] == cause_rank), None)
        if cause is None:
            raise ArchiveError(f"{file!r} has no cause number {cause_rank} "
                               f"(it has {len(causes)}, numbered from 0)")
    candidates = select(con, _CANDIDATES, [run["agent"], file, cause["kind"], cause["subject"],
                                           cause["signature"], MAX_CANDIDATES], limits=limits)
    answer: dict[str, Any] = {
        "file": file, "runId": run["run_id"], "agent": run["agent"],
        "userMessage": run["user_message"],
        "cause": {"kind": cause["kind"], "subject": cause["subject"],
                  "text": cause["signature"], "headline": cause["headline"]},
        "nearest": None,
    }
    best = _closest(run["user_message"], candidates)
    if best is not None:
        chosen, why = best
        answer["nearest"] = {"file": chosen["file"], "runId": chosen["run_id"],
                             "userMessage": chosen["user_message"],
                             "startedAt": chosen["started_at"], "why": why}
    return answer


def _closest(message: str | None, candidates: list[dict[str, Any]]
             ) -> tuple[dict[str, Any], str] | None:
    if not candidates:
        return None
    same = [c for c in candidates if message is not None and c["user_message"] == message]
    if same:
        return min(same, key=_better), "the same user message"
    words = _words(message)
    scored = [(_overlap(words, _words(c["user_message"])), c) for c in candidates]
    top = max(score for score, _ in scored)
    best = min((c for score, c in scored if score == top), key=_better)
    if top == 0:
        return best, "no run of this agent asked anything alike; the most recent without the cause"
    return best, f"the closest user message ({top:.0%} of words shared)"


def _better(candidate: dict[str, Any]) -> tuple:
    """Fewer error causes first, then the newer run (candidates come newest first)."""
    stamp = candidate["started_at"] or ""
    return candidate["errors"], _negated(stamp), candidate["file"]


def _negated(stamp: str) -> tuple[int, ...]:
    return tuple(-ord(ch) for ch in stamp)


def _words(text: str | None) -> frozenset[str]:
    return frozenset(word.lower() for word in _WORD.findall(text or ""))


def _overlap(one: frozenset[str], other: frozenset[str]) -> float:
    if not one or not other:
        return 0.0
    return len(one & other) / len(one | other)

"""Causes across runs: every run's likely causes, grouped by signature.

The index keeps each run's likely causes (the ``causes`` table, written by
:mod:`archive.rows` with the signature of :mod:`lens.evidence.signature`).
:func:`cause_groups` answers "what goes wrong, how often, since when, and
where": one group per (kind, subject, signature), largest first, with the
runs in it, when it was first and last seen, which agents it hit, its runs
per day, and one representative run with the step that shows it. Runs can be
narrowed first by a ``--where`` predicate over ``runs`` (the same safe
parsing as ``archive runs``).

What this owns: the grouping query and its JSON. What it does not: finding
causes (lens), writing rows (archive.rows), widgets.
"""

from __future__ import annotations

from typing import Any

import duckdb

from archive.query import DEFAULT_LIMITS, QueryLimits, json_value, runs_sql, select

# A group lists at most this many files: the count is exact, the list is for
# opening runs (the Archive page pages through a group's runs itself).
MAX_GROUP_FILES = 1000

_GROUPS = """
WITH chosen AS ({runs}),
hits AS (
    SELECT c.kind, c.subject, c.signature, c.severity, c.file, c.rank, c.headline,
           c.step_path, c.step_index, r.agent, r.started_at
    FROM "causes" c JOIN chosen r ON c.file = r.file
)
SELECT kind, subject, signature,
       max(CASE WHEN severity = 'error' THEN 1 ELSE 0 END) AS is_error,
       count(DISTINCT file) AS runs,
       list(DISTINCT file ORDER BY file)[1:{max_files}] AS files,
       min(started_at) AS first_seen, max(started_at) AS last_seen,
       arg_max({{'file': file, 'headline': headline, 'step_path': step_path,
                 'step_index': step_index}}, (started_at, file)) AS example
FROM hits
GROUP BY kind, subject, signature
ORDER BY runs DESC, is_error DESC, kind, subject NULLS LAST, signature
"""

_BY_AGENT = """
WITH chosen AS ({runs})
SELECT c.kind, c.subject, c.signature, coalesce(r.agent, '') AS agent,
       count(DISTINCT c.file) AS runs
FROM "causes" c JOIN chosen r ON c.file = r.file
GROUP BY ALL
"""

_BY_DAY = """
WITH chosen AS ({runs})
SELECT c.kind, c.subject, c.signature, CAST(r.started_at AS DATE) AS day,
       count(DISTINCT c.file) AS runs
FROM "causes" c JOIN chosen r ON c.file = r.file
WHERE r.started_at IS NOT NULL
GROUP BY ALL
ORDER BY day
"""



def cause_groups(con: duckdb.DuckDBPyConnection, where: str | None = None,
                 limits: QueryLimits = DEFAULT_LIMITS) -> list[dict[str, Any]]:
    """The groups, largest first (see the module doc). Each is
    ``{"kind", "subject", "text", "severity", "runs", "files", "firstSeen",
    "lastSeen", "agents": {agent: runs}, "days": {date: runs}, "example":
    {"file", "headline", "step": {"path", "index"} | null}}``."""
    runs = runs_sql(con, where, None, None)
    groups = select(con, _GROUPS.format(runs=runs, max_files=MAX_GROUP_FILES), limits=limits)
    agents = select(con, _BY_AGENT.format(runs=runs), limits=limits)
    days = select(con, _BY_DAY.format(runs=runs), limits=limits)
    by_agent: dict[tuple, dict[str, int]] = {}
    for row in agents:
        by_agent.setdefault(_key(row), {})[row["agent"]] = row["runs"]
    by_day: dict[tuple, dict[str, int]] = {}
    for row in days:
        by_day.setdefault(_key(row), {})[str(row["day"])] = row["runs"]
    answer = []
    for group in groups:
        key = _key(group)
        answer.append({
            "kind": group["kind"], "subject": group["subject"], "text": group["signature"],
            "severity": "error" if group["is_error"] else "warning",
            "runs": group["runs"], "files": group["files"],
            "firstSeen": group["first_seen"], "lastSeen": group["last_seen"],
            "agents": dict(sorted(by_agent.get(key, {}).items(),
                                  key=lambda item: (-item[1], item[0]))),
            "days": by_day.get(key, {}),
            "example": _example(group["example"]),
        })
    return answer


def _key(row: dict[str, Any]) -> tuple:
    return row["kind"], row["subject"], row["signature"]


def _example(row: dict[str, Any] | None) -> dict[str, Any] | None:
    """The group's newest run, and the step that shows the cause there."""
    if not row:
        return None
    step = None
    if row["step_path"] is not None and row["step_index"] is not None:
        step = {"path": json_value(row["step_path"]), "index": row["step_index"]}
    return {"file": row["file"], "headline": row["headline"], "step": step}


def group_files(con: duckdb.DuckDBPyConnection, kind: str, subject: str | None, text: str,
                where: str | None = None,
                limits: QueryLimits = DEFAULT_LIMITS) -> list[dict[str, Any]]:
    """Every run of one group (runs' rows, newest first), each with the step
    that shows its first cause of the group."""
    runs = runs_sql(con, where, None, None)
    sql = (f'WITH chosen AS ({runs}) '
           'SELECT r.*, c.step_path AS cause_step_path, c.step_index AS cause_step_index, '
           'c.headline AS cause_headline '
           'FROM chosen r JOIN (SELECT file, step_path, step_index, headline, '
           'row_number() OVER (PARTITION BY file ORDER BY rank) AS n FROM "causes" '
           'WHERE kind = ? AND subject IS NOT DISTINCT FROM ? AND signature = ?) c '
           'ON c.file = r.file AND c.n = 1 '
           'ORDER BY r.started_at DESC NULLS LAST, r.file')
    return select(con, sql, [kind, subject, text], limits=limits)


def chosen_run_count(con: duckdb.DuckDBPyConnection, where: str | None = None,
                     limits: QueryLimits = DEFAULT_LIMITS) -> int:
    """How many runs ``where`` chooses (what a group's share is of)."""
    runs = runs_sql(con, where, None, None)
    return select(con, f"SELECT count(*) AS n FROM ({runs})", limits=limits)[0]["n"]

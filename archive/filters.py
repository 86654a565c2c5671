"""The Archive page's filters as one parameterised query over ``runs``.

Everything a person types or picks is a bound parameter, never SQL text; the
column to sort by is one of :data:`SORTS`. Text search looks in the user's
message, the final answer, the run's error and the results of failed tools.
A search's runs can be kept as a table of their own (:func:`text_hits_sql`);
every builder takes the table it reads (``source``), so the filters refining
a search read that table instead of testing every run's text again.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Any

from lens.evidence.outcome import ENDINGS

# Sort label → ORDER BY (fixed text, chosen by label only).
SORTS: dict[str, str] = {
    "newest first": "started_at DESC NULLS LAST, file",
    "oldest first": "started_at ASC NULLS LAST, file",
    "most tokens": "input_tokens + output_tokens DESC, file",
    "longest": "duration_ms DESC NULLS LAST, file",
    "most failed tools": "failed_tool_calls DESC, started_at DESC NULLS LAST, file",
}
# How a run ended (its run facts' word, the `ended` column), or every run.
STATUSES = ("all",) + ENDINGS

LIST_COLUMNS = ("file", "run_id", "agent", "complete", "ended", "outcome", "error",
                "failed_tool_calls", "tool_calls", "model_calls", "input_tokens",
                "output_tokens", "duration_ms", "started_at", "user_message", "final_answer",
                "skills", "lean", "sha256")


@dataclass(frozen=True)
class RunFilter:
    agents: tuple[str, ...] = ()  # empty: every agent
    status: str = "all"  # one of STATUSES
    failed_tools_only: bool = False
    text: str = ""
    since: dt.date | None = None
    until: dt.date | None = None  # inclusive
    sort: str = "newest first"
    label: str = ""  # only runs whose current content carries it (archive.labels)

    def where(self) -> tuple[str, list[Any]]:
        """The WHERE clause (``TRUE`` when nothing is filtered) and its parameters."""
        clauses: list[str] = []
        params: list[Any] = []
        if self.agents:
            clauses.append(f"agent IN ({', '.join('?' for _ in self.agents)})")
            params.extend(self.agents)
        if self.status in ENDINGS:
            clauses.append("ended = ?")
            params.append(self.status)
        if self.failed_tools_only:
            clauses.append("failed_tool_calls > 0")
        if self.text.strip():
            clause, text_params = _text_test(self.text)
            clauses.append(clause)
            params.extend(text_params)
        if self.since is not None:
            clauses.append("started_at >= ?")
            params.append(dt.datetime.combine(self.since, dt.time.min))
        if self.until is not None:
            clauses.append("started_at < ?")
            params.append(dt.datetime.combine(self.until + dt.timedelta(days=1), dt.time.min))
        if self.label:
            # By content digest: a label on an earlier content of a file is not its run's.
            clauses.append("sha256 IN (SELECT sha256 FROM labels WHERE label = ?)")
            params.append(self.label)
        return (" AND ".join(clauses) or "TRUE"), params

    def order_by(self) -> str:
        return SORTS.get(self.sort, SORTS["newest first"])

    def without_text(self) -> RunFilter:
        """The same filter over runs that match its text already (a search's hits)."""
        return replace(self, text="")


def _text_test(text: str) -> tuple[str, list[Any]]:
    """Whether a run's user message, final answer, error or a failed tool's
    result holds ``text``, ignoring case."""
    # A plain substring test of lowered text: no pattern characters to escape,
    # and several times faster than ILIKE with ESCAPE.
    return ("(contains(lower(user_message), ?) OR contains(lower(final_answer), ?) "
            "OR contains(lower(error), ?) OR file IN (SELECT file FROM tool_calls "
            "WHERE error AND contains(lower(result_text), ?)))",
            [text.strip().lower()] * 4)


def text_hits_sql(text: str, most: int) -> tuple[str, list[Any]]:
    """The runs ``text`` matches, with :data:`LIST_COLUMNS`, at most ``most + 1``
    of them: more than ``most`` says the text is too common to be worth keeping
    (a scan that finds that many stops there). A table of them is a source the
    other builders read with the filter's :meth:`RunFilter.without_text`."""
    clause, params = _text_test(text)
    return (f"SELECT {', '.join(LIST_COLUMNS)} FROM runs WHERE {clause} "
            f"LIMIT {int(most) + 1}", params)


def page_sql(run_filter: RunFilter, limit: int, offset: int = 0,
             source: str = "runs") -> tuple[str, list[Any]]:
    """``limit`` matching runs after the first ``offset``, in the filter's order."""
    return _page(run_filter, ", ".join(LIST_COLUMNS), limit, offset, source)


def page_and_count_sql(run_filter: RunFilter, limit: int, offset: int = 0,
                       source: str = "runs") -> tuple[str, list[Any]]:
    """:func:`page_sql` with every row also carrying ``matching``, the count of
    all the filter's runs: one scan instead of two. It pays when the filter's
    own test is what costs (a text search reads every run's text); otherwise
    counting the runs to number them costs more than a second, cheap scan."""
    return _page(run_filter, ", ".join(LIST_COLUMNS) + ", count(*) OVER () AS matching",
                 limit, offset, source)


def _page(run_filter: RunFilter, columns: str, limit: int, offset: int,
          source: str) -> tuple[str, list[Any]]:
    where, params = run_filter.where()
    return (f"SELECT {columns} FROM {_table(source)} WHERE {where} "
            f"ORDER BY {run_filter.order_by()} "
            f"LIMIT {int(limit)} OFFSET {max(int(offset), 0)}", params)


def count_sql(run_filter: RunFilter, source: str = "runs") -> tuple[str, list[Any]]:
    where, params = run_filter.where()
    return f"SELECT count(*) FROM {_table(source)} WHERE {where}", params


# The columns the charts read, for a table of one filter's runs (see chosen_runs_sql).
CHART_COLUMNS = ("file", "agent", "started_at", "ended", "input_tokens", "output_tokens")


def chosen_runs_sql(run_filter: RunFilter, name: str) -> tuple[str, list[Any]]:
    """A temporary table ``name`` of the filter's runs with :data:`CHART_COLUMNS`:
    the charts' queries read it (``source=name``) instead of each evaluating the
    filter again over every run."""
    where, params = run_filter.where()
    return (f"CREATE TEMP TABLE {_table(name)} AS SELECT {', '.join(CHART_COLUMNS)} "
            f"FROM runs WHERE {where}", params)


def _table(name: str) -> str:
    """A table name chosen by the code, never by a person; checked all the same."""
    if not name.isidentifier():
        raise ValueError(f"not a table name: {name!r}")
    return f'"{name}"'


def runs_over_time_sql(run_filter: RunFilter, source: str = "runs") -> tuple[str, list[Any]]:
    """Runs per minute, hour, day or week (by how long the runs span: a year
    of days would be hundreds of bars for the browser to draw), by how the
    runs ended (``outcome``: the ``ended`` word), for the chart of runs over
    time; ``unit`` names the bucket's width."""
    where, params = run_filter.where()
    return (f"""
        WITH chosen AS (SELECT started_at, ended FROM {_table(source)}
                        WHERE {where} AND started_at IS NOT NULL),
             span AS (SELECT CASE WHEN max(started_at) - min(started_at) > INTERVAL 90 DAY
                                      THEN 'week'
                                  WHEN max(started_at) - min(started_at) > INTERVAL 3 DAY
                                      THEN 'day'
                                  WHEN max(started_at) - min(started_at) > INTERVAL 6 HOUR
                                      THEN 'hour'
                                  ELSE 'minute' END AS unit FROM chosen)
        SELECT date_trunc((SELECT unit FROM span), started_at) AS bucket,
               (SELECT unit FROM span) AS unit,
               coalesce(ended, 'unfinished') AS outcome,
               count(*) AS runs
        FROM chosen GROUP BY ALL ORDER BY bucket, outcome""", params)


def failures_by_tool_sql(run_filter: RunFilter, top: int = 15,
                         source: str = "runs") -> tuple[str, list[Any]]:
    where, params = run_filter.where()
    return (f"SELECT tool_name, count(*) AS failures FROM tool_calls WHERE error AND file IN "
            f"(SELECT file FROM {_table(source)} WHERE {where}) GROUP BY tool_name "
            f"ORDER BY failures DESC, tool_name LIMIT {int(top)}", params)


def tokens_by_agent_sql(run_filter: RunFilter, source: str = "runs") -> tuple[str, list[Any]]:
    where, params = run_filter.where()
    return (f"SELECT agent, sum(input_tokens) AS input_tokens, "
            f"sum(output_tokens) AS output_tokens, count(*) AS runs FROM {_table(source)} "
            f"WHERE {where} GROUP BY agent ORDER BY sum(input_tokens) + sum(output_tokens) DESC, agent", params)

"""The Archive page's Causes view: what goes wrong, how often, since when.

Every run's likely causes grouped by signature (:mod:`archive.causes`),
largest first, for the agents the page's filter names. Choosing a group
shows its runs per day and its runs; from there one click opens a run at the
step that shows the cause, or its nearest good run (:mod:`archive.nearest`)
beside it in Compare, both at their first difference. Thin glue: the groups,
the nearest run and the chart are built in archive/ and lens/.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from archive.causes import cause_groups, chosen_run_count, group_files
from archive.errors import ArchiveError
from archive.nearest import nearest_good_run
from lens import archive_charts
from lens.text import markdown_literal
from lens.wording import plural
from lens_ui import navigation, session
from lens_ui.archive_jobs import reader
from lens_ui.archive_source import archive_choice
from lens_ui.compare_state import open_compare

GROUPS = "lens.archive.cause_groups"    # the groups table (and ".pick", the group chosen)
RUNS = "lens.archive.cause_runs"        # the chosen group's runs (and ".pick", the run chosen)
CAUSES_PROFILE = "lens"                 # the projection the index links causes to
GROUP_ROWS = 500                        # groups listed (the largest); the rest are counted


Days = tuple[dt.date, dt.date] | None  # the span of start days chosen (inclusive)


@st.cache_resource(max_entries=16, show_spinner=False)
def _groups(db: Path, generation: tuple, agents: tuple[str, ...],
            days: Days) -> tuple[list[dict[str, Any]], int]:
    """The groups, and how many runs they were found among."""
    con = reader(db).cursor()
    try:
        where = runs_where(agents, days)
        return cause_groups(con, where), chosen_run_count(con, where)
    finally:
        con.close()


@st.cache_resource(max_entries=32, show_spinner=False)
def _group_runs(db: Path, generation: tuple, agents: tuple[str, ...], days: Days,
                key: tuple) -> pd.DataFrame:
    con = reader(db).cursor()
    try:
        rows = group_files(con, *key, where=runs_where(agents, days))
    finally:
        con.close()
    return pd.DataFrame({
        "started_at": _times([r["started_at"] for r in rows]), "agent": [r["agent"] for r in rows],
        "step": [_step_text(r["cause_step_path"], r["cause_step_index"]) for r in rows],
        "user_message": [r["user_message"] for r in rows],
        "final_answer": [r["final_answer"] for r in rows], "file": [r["file"] for r in rows],
        "_path": [r["cause_step_path"] for r in rows],
        "_index": [r["cause_step_index"] for r in rows],
    })


def _times(stamps: list[Any]) -> pd.Series:
    """ISO times (UTC, as the queries give them) as naive UTC datetimes for the table."""
    return pd.to_datetime(pd.Series(stamps, dtype="object"), utc=True,
                          errors="coerce").dt.tz_localize(None)


def runs_where(agents: tuple[str, ...], days: Days) -> str | None:
    """The agents and days as a predicate over ``runs`` (agent names from the
    index quoted as SQL literals, days as ISO dates; the predicate is then
    parsed, not pasted, by archive.query)."""
    clauses = []
    if agents:
        clauses.append("agent IN (" + ", ".join("'" + a.replace("'", "''") + "'"
                                                for a in agents) + ")")
    if days is not None:
        since, until = days
        clauses.append(f"started_at >= DATE '{since.isoformat()}' AND "
                       f"started_at < DATE '{(until + dt.timedelta(days=1)).isoformat()}'")
    return " AND ".join(clauses) or None


def _step_text(path: Any, index: Any) -> str:
    if path is None or index is None:
        return "no step shows it"
    scope = "/".join(str(p) for p in path[1:]) if len(path) > 1 else "root"
    return f"step {index + 1} ({scope})"


def causes_view(db: Path, generation: tuple, label: str, agents: tuple[str, ...],
                days: Days) -> None:
    groups, among = _groups(db, generation, agents, days)
    if not groups:
        st.info("No likely causes among these runs: no failed tool, provider error, rejected "
                "route, cut context or framework verdict was recorded.")
        return
    runs_with = len({f for g in groups for f in g["files"]})
    capped = any(g["runs"] > len(g["files"]) for g in groups)  # a group lists 1,000 at most
    kinds = "1 kind of cause" if len(groups) == 1 else f"{len(groups):,} kinds of cause"
    st.caption(f"{kinds} in {runs_with:,}{'+' if capped else ''} of "
               f"{plural(among, 'run')}; the largest first. Choose one to see its runs.")
    shown = groups[:GROUP_ROWS]
    frame = pd.DataFrame({
        "runs": [g["runs"] for g in shown],
        "share": [g["runs"] / among * 100 if among else 0.0 for g in shown],
        "severity": [g["severity"] for g in shown],
        "kind": [g["kind"] for g in shown], "subject": [g["subject"] or "" for g in shown],
        "text": [g["text"] for g in shown],
        "first_seen": _times([g["firstSeen"] for g in shown]),
        "last_seen": _times([g["lastSeen"] for g in shown]),
        "agents": [", ".join(g["agents"]) for g in shown],
    })
    # A select, not a click in the table: it names the group in words and a
    # keyboard reaches it.
    number = st.selectbox("Cause", range(len(shown)), index=None, key=GROUPS + ".pick",
                          placeholder="choose a cause to see its runs",
                          format_func=lambda n: _group_name(shown[n]))
    if number is None:
        st.dataframe(frame, key=GROUPS, hide_index=True, width="stretch",
                     column_config=_GROUP_COLUMNS)
        if len(groups) > GROUP_ROWS:
            st.caption(f"{len(groups) - GROUP_ROWS:,} smaller groups are not listed; choose an "
                       "agent to narrow them.")
        return
    _group(db, generation, label, agents, days, shown[number])


def _group_name(group: dict[str, Any]) -> str:
    subject = f" · {group['subject']}" if group["subject"] else ""
    return f"{_runs(group['runs'])} · {group['kind']}{subject} · {group['text'][:80]}"


def _runs(count: int) -> str:
    return f"{count:,} run{'' if count == 1 else 's'}"


def _group(db: Path, generation: tuple, label: str, agents: tuple[str, ...], days: Days,
           group: dict[str, Any]) -> None:
    st.subheader(f"{group['kind']} · {group['subject'] or 'no subject named'}", anchor=False)
    st.text(group["text"])
    chart = archive_charts.cause_trend(group["days"])
    if chart.rows:
        st.vega_lite_chart(pd.DataFrame(chart.rows, columns=list(chart.columns)), chart.spec,
                           width="stretch", height=archive_charts.HEIGHT)
    example = group["example"]
    if example is not None and st.button(
            "Open the newest run at the step that shows it", key="lens.archive.cause_example",
            type="primary"):
        step = example["step"]
        _open_at(label, example["file"], step["path"] if step else None,
                 step["index"] if step else None)
    runs = _group_runs(db, generation, agents, days,
                       (group["kind"], group["subject"], group["text"]))
    st.caption(f"{_runs(len(runs))} with this cause, newest first.")
    st.dataframe(runs.drop(columns=["_path", "_index"]), key=RUNS, hide_index=True,
                 width="stretch", column_config=_RUN_COLUMNS,
                 height=min(36 + 35 * len(runs), 280))
    number = st.selectbox("Run", range(len(runs)), index=0 if len(runs) == 1 else None,
                          key=RUNS + ".pick", placeholder="choose a run",
                          format_func=lambda n: f"{runs['file'].iloc[n]} · {runs['step'].iloc[n]}")
    if number is None:
        return
    row = runs.iloc[number]
    left, right = st.columns(2)
    if left.button("Open at the step", key="lens.archive.cause_open"):
        _open_at(label, row["file"], row["_path"], row["_index"])
    if right.button("Compare with the nearest good run", key="lens.archive.cause_nearest",
                    help="The run of the same agent without this cause with the same user "
                         "message, else the closest one; Compare opens at the first difference."):
        _nearest(db, label, row["file"], group)


def _open_at(label: str, file: str, path: Any, index: Any) -> None:
    try:
        choice, _ = archive_choice(label, file)
    except (KeyError, OSError):
        st.error("That run file is no longer in the folder; re-index it.")
        return
    st.session_state[session.PROFILE] = CAUSES_PROFILE
    session.choose_run(choice)
    if path is not None and index is not None:
        session.move_to(tuple(path), int(index))
    navigation.switch_to(navigation.RUN)


def _nearest(db: Path, label: str, file: str, group: dict[str, Any]) -> None:
    con = reader(db).cursor()
    try:
        rank = con.execute(
            'SELECT min(rank) FROM "causes" WHERE file = ? AND kind = ? '
            'AND subject IS NOT DISTINCT FROM ? AND signature = ?',
            [file, group["kind"], group["subject"], group["text"]]).fetchone()[0]
        found = nearest_good_run(con, file, rank)
    except ArchiveError as error:
        st.error(markdown_literal(str(error)))
        return
    finally:
        con.close()
    nearest = found["nearest"]
    if nearest is None:
        st.info("No other run of this agent is without this cause.")
        return
    try:
        pair = (archive_choice(label, file)[0], archive_choice(label, nearest["file"])[0])
    except (KeyError, OSError):
        st.error("One of the run files is no longer in the folder; re-index it.")
        return
    open_compare(*pair)


_GROUP_COLUMNS = {
    "runs": st.column_config.NumberColumn("runs", format="%d"),
    "share": st.column_config.NumberColumn("% of runs", format="%.1f %%"),
    "text": st.column_config.TextColumn("what it says", width="large"),
    "first_seen": st.column_config.DatetimeColumn("first seen (UTC)", format="YYYY-MM-DD HH:mm"),
    "last_seen": st.column_config.DatetimeColumn("last seen (UTC)", format="YYYY-MM-DD HH:mm"),
}
_RUN_COLUMNS = {
    "started_at": st.column_config.DatetimeColumn("started (UTC)", format="YYYY-MM-DD HH:mm:ss"),
    "user_message": st.column_config.TextColumn("user message", width="large"),
    "final_answer": st.column_config.TextColumn("final answer"),
}

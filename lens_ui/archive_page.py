"""The Archive page: find the wrong runs in a folder of saved runs, open or compare them.

The folder is one the operator configured (``lens_ui/archive_config.py``). Its
index builds in the background (``lens_ui/archive_jobs.py``) while the page
stays usable: filters, a sortable table of the matching runs, three small
charts, and buttons to open a run in the run page or compare two; or, in the
Causes view (``lens_ui/archive_causes.py``), the runs' likely causes grouped. Recording
text reaches the page only through ``st.dataframe``, ``st.text`` and the
charts' axis labels (drawn as text, never markup).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa
import streamlit as st

from archive.errors import ArchiveError
from archive.filters import (SORTS, STATUSES, RunFilter, chosen_runs_sql, count_sql,
                             failures_by_tool_sql, page_and_count_sql, page_sql,
                             runs_over_time_sql, text_hits_sql, tokens_by_agent_sql)
from lens import archive_charts
from lens.text import markdown_literal
from lens.wording import plural
from lens_ui import navigation, session
from lens_ui.archive_config import ENV_FOLDERS, archive_folders
from lens_ui.archive_jobs import IndexJob, current_job, reader, start_job
from lens_ui.archive_causes import causes_view
from lens_ui.archive_labels import (ANY_LABEL, export_labelled, label_choices, labels_column,
                                    labels_version)
from lens_ui.archive_source import archive_choice
from lens_ui.compare_state import open_compare
from lens_ui.view_switch import view_switch

PAGE_ROWS = 100  # a page of the table; more is paged, not sent
# A search's runs are kept as a table (up to this many, about 5 MB at most)
# that the filters refining it read instead of every run's text. Over 100,000
# runs a refined page and count took 15-68 ms over the runs and takes 4-9 ms
# over a table of 761-10,000 hits; keeping the table costs about what the
# search's first page did (31-68 ms against 52-68). Past this many hits, the
# filters test the text again.
TEXT_HITS_MOST = 10_000
TEXT_HITS = "text_hits"  # the name a connection gives the kept table
FOLDER = "lens.archive.folder"
TABLE = "lens.archive.table"
PAGE = "lens.archive.page"
NOTICE = "lens.archive.notice"
RUNS_VIEW, CAUSES_VIEW = "Runs", "Causes"
ARCHIVE_VIEWS = (RUNS_VIEW, CAUSES_VIEW)
ARCHIVE_VIEW = "lens.archive.view"  # Runs (the table and charts) or Causes (grouped causes)


def archive_page() -> None:
    st.title("Archive", anchor=False)
    folders = archive_folders()
    if not folders:
        st.info("No archive folder is configured. Start Lens with one: "
                "`footprint-lens view DIR`, or from a checkout "
                "`streamlit run lens_app.py -- --archive DIR` (repeatable), or set "
                f"`{ENV_FOLDERS}=DIR`.")
        return
    labels = list(folders)
    if st.session_state.get(FOLDER) not in folders:
        st.session_state[FOLDER] = labels[0]
    if len(labels) > 1:
        label = st.selectbox("Folder", labels, key=FOLDER,
                             help="Folders the server was started with; see docs/archive.md.")
    else:  # nothing to choose: a select of one would be one more widget to draw every rerun
        label = labels[0]
        st.caption(f"Folder: {markdown_literal(label)} (the one the server was started with)")
    folder = folders[label]
    job = current_job(folder) or start_job(folder)
    _index_status(folder)
    notice = st.session_state.pop(NOTICE, None)
    if notice:
        st.info(notice)
    # A fragment: changing a filter, a page or the selection reruns only what
    # they change, not the sidebar and the rest of the app around it.
    st.fragment(_browse_or_say_why)(job, label)


def _browse_or_say_why(job: IndexJob, label: str) -> None:
    try:
        _browse(job, label)
    except ArchiveError as error:  # may quote a file name: text, never markup
        st.error(markdown_literal(str(error)), icon=":material/error:")
    except duckdb.Error as error:
        st.error(markdown_literal(f"The index could not be read: "
                                  f"{' '.join(str(error).split())[:300]}"),
                 icon=":material/error:")


def _index_status(folder: Path) -> None:
    """Progress while a pass runs (redrawn every second, and only then: a
    finished pass leaves nothing to poll); when it ends, the whole page reruns
    once to show every run it added."""
    job = current_job(folder)
    polling = 1.0 if job is not None and job.running else None
    st.fragment(run_every=polling)(_index_status_body)(folder)


def _index_status_body(folder: Path) -> None:
    job = current_job(folder)
    if job is None:
        return
    if job.running:
        total = job.total or 0
        fraction = job.done / total if total else 0.0
        text = (f"Indexing {job.done:,} of {total:,} new or changed files…" if total
                else "Listing the folder…")
        st.progress(fraction, text=text)
        st.session_state[_seen_key(folder)] = False
        return
    if not st.session_state.get(_seen_key(folder)):
        st.session_state[_seen_key(folder)] = True
        st.rerun()  # the table and charts were drawn while the pass was still running
    _finished_line(job)
    if st.button("Re-index now", key="lens.archive.reindex",
                 help="Read new and changed files (unchanged files are not read again)."):
        start_job(folder)
        st.session_state[_seen_key(folder)] = False
        st.rerun()  # the whole page, so that the progress is polled again


def _finished_line(job: IndexJob) -> None:
    if job.error is not None:
        st.error(markdown_literal(f"Indexing failed: {job.error}"), icon=":material/error:")
        return
    report = job.report
    seconds = (job.finished or job.started) - job.started
    st.caption(f"Indexed {plural(report.runs, 'run')} in {seconds:.1f} s: {report.added:,} added, "
               f"{report.updated:,} updated, {report.removed:,} removed, "
               f"{report.unchanged:,} unchanged, {len(report.unreadable):,} unreadable.")


def _seen_key(folder: Path) -> str:
    return f"lens.archive.seen_finish:{folder}"


@dataclass(frozen=True)
class _FilterChoices:
    """What the filters offer: the agents and the span of start times indexed."""

    agents: tuple[str, ...]
    first_start: dt.datetime | None
    last_start: dt.datetime | None
    total: int
    unreadable: pd.DataFrame  # file, problem
    labels: tuple[str, ...] = ()  # the label filter's choices


@dataclass(frozen=True)
class _FilterCharts:
    """The three charts of one filter's runs."""

    runs_over_time: archive_charts.Chart
    failures_by_tool: archive_charts.Chart | None  # None: no failed tool call among the runs
    tokens_by_agent: archive_charts.Chart


@dataclass(frozen=True)
class _ListedRuns:
    offset: int
    runs: pd.DataFrame  # one page of the matching runs, as the table shows them
    matching: int | None  # all the filter's runs, when the page's query counted them


def _generation(job: IndexJob) -> tuple:
    """Changes whenever the index may have: each batch a pass commits, each new pass.
    Only this process writes the index (DuckDB's lock), so nothing else moves it."""
    return (job.started, job.done, job.finished is not None)


# Shared by every session and kept per filter: the queries and figures of a
# filter someone already asked for are not built again while the index stands
# still. Figures and frames are only read by the widgets, never changed.
@st.cache_resource(max_entries=4, show_spinner=False)
def _filter_choices(db: Path, generation: tuple) -> _FilterChoices:
    con = reader(db).cursor()
    try:
        agents = tuple(r[0] for r in con.execute(
            "SELECT DISTINCT agent FROM runs WHERE agent IS NOT NULL ORDER BY agent").fetchall())
        first, last, total = con.execute(
            "SELECT min(started_at), max(started_at), count(*) FROM runs").fetchone()
        unreadable = pd.DataFrame(con.execute(
            "SELECT file, problem FROM files WHERE status = 'unreadable' ORDER BY file"
        ).fetchall(), columns=["file", "problem"])
    finally:
        con.close()
    return _FilterChoices(agents, first, last, total, unreadable, tuple(label_choices(db)))


# At most ~5 MB each: a few searches' worth, shared by every session.
@st.cache_resource(max_entries=16, show_spinner=False)
def _text_hits(db: Path, generation: tuple, text: str) -> pa.Table | None:
    """The runs ``text`` (lowered) matches; None when there are more than
    :data:`TEXT_HITS_MOST`."""
    con = reader(db).cursor()
    try:
        sql, params = text_hits_sql(text, TEXT_HITS_MOST)
        found = con.sql(sql, params=params).to_arrow_table()
    finally:
        con.close()
    return None if found.num_rows > TEXT_HITS_MOST else found


def _source(con, db: Path, generation: tuple, run_filter: RunFilter) -> tuple[RunFilter, str]:
    """What ``con`` reads for ``run_filter``: the table of its search's runs
    (registered on ``con``) with the rest of the filter, when the search's runs
    are few enough to keep; else every run, with the whole filter."""
    text = run_filter.text.strip().lower()
    hits = _text_hits(db, generation, text) if text else None
    if hits is None:
        return run_filter, "runs"
    con.register(TEXT_HITS, hits)
    return run_filter.without_text(), TEXT_HITS


@st.cache_resource(max_entries=64, show_spinner=False)
def _matching(db: Path, generation: tuple, run_filter: RunFilter) -> int:
    con = reader(db).cursor()
    try:
        sql, params = count_sql(*_source(con, db, generation, run_filter))
        return con.execute(sql, params).fetchone()[0]
    finally:
        con.close()


@st.cache_resource(max_entries=64, show_spinner=False)
def _filter_charts(db: Path, generation: tuple, run_filter: RunFilter) -> _FilterCharts:
    con = reader(db).cursor()  # its own connection: the temporary table is its alone
    try:
        run_filter, source = _source(con, db, generation, run_filter)
        if run_filter.text.strip():
            # Text search is the filter that costs: evaluated once into a table of
            # the chosen runs, not once per chart (over 100,000 runs about a third
            # of the time; without text, copying the runs would cost more).
            source = "chosen_runs"
            con.execute(*chosen_runs_sql(run_filter, source))
            run_filter = RunFilter()
        failures = _rows(con, *failures_by_tool_sql(run_filter, source=source))
        return _FilterCharts(
            runs_over_time=archive_charts.runs_over_time(
                _rows(con, *runs_over_time_sql(run_filter, source=source))),
            failures_by_tool=archive_charts.failures_by_tool(failures) if failures else None,
            tokens_by_agent=archive_charts.tokens_by_agent(
                _rows(con, *tokens_by_agent_sql(run_filter, source=source))))
    finally:
        con.close()


@st.cache_resource(max_entries=64, show_spinner=False)
def _listed_runs(db: Path, generation: tuple, run_filter: RunFilter, page: int) -> _ListedRuns:
    con = reader(db).cursor()
    try:
        offset = (page - 1) * PAGE_ROWS
        # A search reads every run's text, or its table of hits: the same scan
        # counts them too.
        counted = bool(run_filter.text.strip())
        build = page_and_count_sql if counted else page_sql
        kept, source = _source(con, db, generation, run_filter)
        frame = con.execute(*build(kept, PAGE_ROWS, offset, source)).df()
        frame["labels"] = labels_column(con, list(frame["sha256"]))
        matching = int(frame["matching"].iloc[0]) if counted and len(frame) else None
        return _ListedRuns(offset, _table(frame), matching)
    finally:
        con.close()


def _browse(job: IndexJob, label: str) -> None:
    # A label put on or taken off (from the run page) is a change the page shows.
    generation = _generation(job) + (labels_version(job.db),)
    choices = _filter_choices(job.db, generation)
    # The answer (count and runs) is sent before the filter widgets that sit
    # above it: the browser draws elements in the order they arrive, and sent
    # first, the six widgets (unchanged but for the one just used) held the
    # table back. Their values are in the session state before they are drawn.
    view = view_switch("Archive view", ARCHIVE_VIEWS, ARCHIVE_VIEW)
    filter_slot, page_slot = st.container(), st.container()
    run_filter = _filter_in_state(choices)
    if view == CAUSES_VIEW and choices.total:
        with filter_slot:
            agents, span = _cause_filters(choices)
        causes_view(job.db, generation, label, agents, span)
        return
    if choices.total == 0:
        _draw_filters(filter_slot, choices, run_filter)
        st.info("No runs indexed yet.")
        _unreadable(choices)
        return
    # The charts come last: the count and the table of a filter asked for the
    # first time reach the browser while its charts are still being queried.
    requested = _requested_page()
    listed = _listed_runs(job.db, generation, run_filter, requested)
    matching = (listed.matching if listed.matching is not None
                else _matching(job.db, generation, run_filter))
    pages = max(1, -(-matching // PAGE_ROWS))
    if requested > pages:  # the filter now matches fewer runs: back to the first page
        st.session_state[PAGE] = 1
        listed = _listed_runs(job.db, generation, run_filter, 1)
    frame = listed.runs
    st.caption(f"{matching:,} of {plural(choices.total, 'run')} "
               f"{'matches' if matching == 1 else 'match'}" +
               (f"; runs {listed.offset + 1:,}–{listed.offset + len(frame):,} in this order "
                "are listed" if matching > len(frame) else ""))
    selection = st.dataframe(frame, key=TABLE, on_select="rerun",
                             selection_mode="multi-row", hide_index=True,
                             width="stretch", column_config=_COLUMNS)
    _draw_filters(filter_slot, choices, run_filter)
    with page_slot:
        _page_number(pages)
    rows = list(getattr(getattr(selection, "selection", None), "rows", []) or [])
    chosen = [frame["file"].iloc[i] for i in rows if 0 <= i < len(frame)]
    _actions(label, chosen)
    if run_filter.label:
        export_labelled(job.db, job.folder, run_filter.label, generation[-1])
    _charts(_filter_charts(job.db, generation, run_filter))
    _unreadable(choices)


def _draw_filters(slot, choices: _FilterChoices, shown: RunFilter) -> None:
    """The filter widgets, in ``slot``. When they report another filter than the
    one shown (a widget dropped a value it no longer offers, such as an agent
    gone from a re-indexed folder), the page is drawn again with theirs, once."""
    with slot:
        drawn = _filters(choices)
    if drawn != shown and st.session_state.get(_REDRAWN_FOR) != drawn:
        st.session_state[_REDRAWN_FOR] = drawn
        st.rerun()


def _requested_page() -> int:
    """The page the reader asked for (its widget's value from the last run; 1 at first)."""
    page = st.session_state.get(PAGE, 1)
    return page if isinstance(page, int) and page >= 1 else 1


def _page_number(pages: int) -> None:
    """The page chooser, when there is more than one page (its value is already in range)."""
    if pages > 1:
        st.number_input(f"Page (of {pages:,})", min_value=1, max_value=pages, step=1, key=PAGE,
                        width=160)


_AGENTS, _STATUS, _SORT = "lens.archive.agents", "lens.archive.status", "lens.archive.sort"
_TEXT, _FAILED, _DATES = "lens.archive.text", "lens.archive.failed", "lens.archive.dates"
_LABEL = "lens.archive.label"
_REDRAWN_FOR = "lens.archive.redrawn_for"  # the filter the widgets last forced a redraw for


def _filters(choices: _FilterChoices) -> RunFilter:
    first, second, third, label = st.columns([2, 3, 2, 2])
    first.multiselect("Agent", choices.agents, key=_AGENTS, placeholder="every agent")
    # Five endings and "all" do not fit a row of buttons in the column: a list.
    second.selectbox("Outcome", STATUSES, key=_STATUS,
                     format_func=lambda status: "any outcome" if status == "all" else status,
                     help="How the run ended, as the run page says it: answered, stopped (a "
                          "limit cut it short), crashed, paused (it waits on a person) or "
                          "unfinished.")
    third.selectbox("Order", list(SORTS), key=_SORT)
    label.selectbox("Label", (ANY_LABEL,) + choices.labels, key=_LABEL,
                    help="Only runs whose current content carries this label (put on from "
                         "the run page's Label button).")
    fourth, fifth, sixth = st.columns([3, 2, 2])
    fourth.text_input("Search", key=_TEXT,
                      placeholder="user messages, answers, errors, failed tools' output")
    fifth.checkbox("Only runs with a failed tool", key=_FAILED)
    span = _start_span(choices)
    if span is not None:
        low, high = span
        sixth.date_input("Started between", value=(low, high), min_value=low,
                         max_value=high, key=_DATES)
    return _filter_in_state(choices)


def _cause_filters(choices: _FilterChoices) -> tuple[tuple[str, ...],
                                                    tuple[dt.date, dt.date] | None]:
    """The Causes view's filters (the same widgets as the runs' agent and date
    filters, so a choice carries over): which agents, and the span of start days."""
    first, second = st.columns([3, 2])
    first.multiselect("Agent", choices.agents, key=_AGENTS, placeholder="every agent")
    span = _start_span(choices)
    if span is not None:
        low, high = span
        second.date_input("Started between", value=(low, high), min_value=low,
                          max_value=high, key=_DATES)
    shown = _filter_in_state(choices)
    days = (shown.since, shown.until) if shown.since and shown.until else None
    return shown.agents, days


def _filter_in_state(choices: _FilterChoices) -> RunFilter:
    """The filter the widgets hold (their values from this rerun's session
    state; each widget's default before it was first drawn)."""
    state = st.session_state
    agents = state.get(_AGENTS) or ()
    sort = state.get(_SORT)
    text = state.get(_TEXT)
    since = until = None
    span = _start_span(choices)
    if span is not None:
        picked = state.get(_DATES, span)
        if isinstance(picked, (tuple, list)) and len(picked) == 2:
            since, until = picked
    label = state.get(_LABEL)
    return RunFilter(agents=tuple(agents), status=state.get(_STATUS) or "all",
                     label=label if label in choices.labels else "",
                     failed_tools_only=bool(state.get(_FAILED, False)),
                     text=text if isinstance(text, str) else "", since=since, until=until,
                     sort=sort if sort in SORTS else next(iter(SORTS)))


def _start_span(choices: _FilterChoices) -> tuple[dt.date, dt.date] | None:
    """The first and last start date indexed, which bound the date filter."""
    if choices.first_start is None:
        return None
    return choices.first_start.date(), choices.last_start.date()


def _charts(shown: _FilterCharts) -> None:
    left, middle, right = st.columns(3)
    _chart(left, shown.runs_over_time)
    if shown.failures_by_tool is not None:
        _chart(middle, shown.failures_by_tool)
    else:
        middle.caption("No failed tool calls among these runs.")
    _chart(right, shown.tokens_by_agent)


def _chart(column, chart: archive_charts.Chart) -> None:
    if not chart.rows:  # no matching runs: nothing to draw, and an empty chart says less
        column.caption(f"{chart.spec['title']['text']}: no runs to chart.")
        return
    # The spec stays the same between filters and the rows go beside it, so the
    # browser keeps the drawn chart and only swaps its data.
    column.vega_lite_chart(pd.DataFrame(chart.rows, columns=list(chart.columns)), chart.spec,
                           width="stretch", height=archive_charts.HEIGHT)


def _rows(con, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cursor = con.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


_COLUMNS = {
    "started_at": st.column_config.DatetimeColumn("started (UTC)", format="YYYY-MM-DD HH:mm:ss"),
    "outcome": st.column_config.TextColumn("outcome"),
    "failed_tool_calls": st.column_config.NumberColumn("failed tools"),
    "tool_calls": st.column_config.NumberColumn("tools"),
    "model_calls": st.column_config.NumberColumn("model calls"),
    "tokens": st.column_config.NumberColumn("tokens"),
    "duration_s": st.column_config.NumberColumn("duration (s)", format="%.2f"),
    "user_message": st.column_config.TextColumn("user message", width="large"),
    "error": st.column_config.TextColumn("error"),
    "final_answer": st.column_config.TextColumn("final answer"),
    "skills": st.column_config.ListColumn("skills"),
    "labels": st.column_config.ListColumn("labels", width="medium"),
}


def _table(frame: pd.DataFrame) -> pd.DataFrame:
    """The listed runs as shown: how each ended in the run page's word, tokens
    summed, seconds."""
    outcome = frame["ended"].fillna("unfinished")
    return pd.DataFrame({
        "started_at": frame["started_at"], "agent": frame["agent"], "outcome": outcome,
        "labels": frame["labels"],
        "failed_tool_calls": frame["failed_tool_calls"], "tool_calls": frame["tool_calls"],
        "model_calls": frame["model_calls"],
        "tokens": frame["input_tokens"] + frame["output_tokens"],
        "duration_s": frame["duration_ms"] / 1000, "user_message": frame["user_message"],
        "error": frame["error"], "final_answer": frame["final_answer"],
        "skills": frame["skills"], "file": frame["file"],
    })


def _actions(label: str, files: list[str]) -> None:
    left, right, note = st.columns([1, 1, 3])
    if left.button("Open in the run page", key="lens.archive.open", disabled=len(files) != 1,
                   help="Select one run in the table."):
        _open(label, files[0])
    if right.button("Compare the two", key="lens.archive.compare", disabled=len(files) != 2,
                    help="Select two runs in the table."):
        _compare(label, files[0], files[1])
    note.caption("Select one run to open it, two to compare them."
                 if len(files) not in (1, 2) else f"{len(files)} selected.")


def _open(label: str, file: str) -> None:
    try:
        choice, _ = archive_choice(label, file)
    except (KeyError, OSError):
        st.session_state[NOTICE] = "That run file is no longer in the folder; re-index it."
        st.rerun()
    session.choose_run(choice)
    navigation.switch_to(navigation.RUN)


def _compare(label: str, file_a: str, file_b: str) -> None:
    try:
        pair = (archive_choice(label, file_a)[0], archive_choice(label, file_b)[0])
    except (KeyError, OSError):
        st.session_state[NOTICE] = "One of the run files is no longer in the folder; re-index it."
        st.rerun()
    open_compare(*pair)


def _unreadable(choices: _FilterChoices) -> None:
    rows = choices.unreadable
    if len(rows):
        with st.expander(f"{plural(len(rows), 'file')} could not be read"):
            st.dataframe(rows, hide_index=True, width="stretch")

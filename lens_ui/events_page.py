"""The raw events page: both streams of the file as tables, filterable by type,
subflow path and text, with any event shown whole."""

from __future__ import annotations

import streamlit as st

from recorders.loading import Recording
from lens.event_tables import EventTable, boundary_table, typed_table
from lens_ui import session
from lens_ui.render import whole_json
from lens_ui.runs import LoadedRun

ANY_PATH = ""


@st.cache_resource(max_entries=4, show_spinner="Tabulating the events…")
def _tables(digest: str, _recording: Recording) -> tuple[EventTable, EventTable]:
    return typed_table(_recording.typed_events), boundary_table(_recording.boundary_events)


def events_page(run: LoadedRun) -> None:
    recording = run.recording
    st.title("Raw events", anchor=False)
    st.text(run.choice.name)
    typed, boundary = _tables(run.choice.digest, recording)
    totals = st.columns(4)
    totals[0].metric("Typed events in the file", len(recording.typed_events))
    totals[1].metric("Boundary events in the file", len(recording.boundary_events))
    totals[2].metric("Typed event types", len(recording.typed_counts))
    totals[3].metric("Boundary event types", len(recording.boundary_counts))
    if not recording.has_typed_stream:
        st.caption("This file has no typed event stream.")
    if not recording.has_boundary_log:
        st.caption("This file has no boundary log.")
    typed_tab, boundary_tab = st.tabs([f"Typed events ({len(recording.typed_events)})",
                                       f"Boundary events ({len(recording.boundary_events)})"])
    with typed_tab:
        _event_table(typed, recording.typed_counts, "lens.events.typed")
    with boundary_tab:
        _event_table(boundary, recording.boundary_counts, "lens.events.boundary")
    session.write_link(run.choice, None, None)


def _event_table(table: EventTable, counts: dict[str, int], key: str) -> None:
    if table.frame.empty:
        st.caption("No events in this stream.")
        return
    types_column, path_column, text_column = st.columns([3, 2, 2])
    chosen = types_column.multiselect(
        "Types", options=table.types(), key=f"{key}.types",
        format_func=lambda t: f"{t} ({counts.get(t, 0)})", placeholder="all types")
    paths = [ANY_PATH, *table.paths()]
    prefix = path_column.selectbox(
        "Subflow path (and below)", options=paths, key=f"{key}.path",
        format_func=lambda p: "any path" if p == ANY_PATH else p or "(no path recorded)")
    text = text_column.text_input("Contains (anywhere in the event)", key=f"{key}.text")
    shown = table.select(chosen, prefix, text)
    st.caption(f"{len(shown):,} of {len(table.frame):,} events shown. Select a row to see the "
               "event whole.")
    picked = st.dataframe(shown, key=f"{key}.rows", hide_index=True, on_select="rerun",
                          selection_mode="single-row", height=420,
                          column_config={"fields": st.column_config.TextColumn("fields", width="large")})
    rows = picked.selection.rows if picked is not None else []
    if rows:
        position = int(shown.iloc[rows[0]]["#"])
        st.caption(f"{table.stream} event #{position}")
        whole_json(table.events[position], f"{key}.whole")

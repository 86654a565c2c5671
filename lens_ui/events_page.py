"""The raw events page: both streams of the file as tables, filterable by
family (typed events), type, subflow path and text, with any event shown whole and a link to the step that
holds it (placed by :mod:`lens.event_places`)."""

from __future__ import annotations

import streamlit as st

from lens.event_places import EventPlaces
from lens.step_places import step_words
from lens.event_tables import EventTable, boundary_table, typed_table
from lens.text import markdown_literal, one_line
from lens.wording import plural
from lens_ui import navigation, session
from lens_ui.render import whole_json
from lens_ui.runs import LoadedRun

ANY_PATH = ""
GO_TO_RUN = "lens.events.go_to_run"  # set by a step link; the next run opens the run page
SCOPE_NAME_CHARS = 48


# What the tables and places hold, per byte of the run's JSON (measured on the
# two large corpus runs): the frames 0.04-0.08 plus the lower-case search text
# 0.26-0.45 (built on the first search, counted from the start); places 0.14-0.29.
TABLES_PER_JSON_BYTE = 0.6
PLACES_PER_JSON_BYTE = 0.3


def _tables(run: LoadedRun) -> tuple[EventTable, EventTable]:
    def build() -> tuple[EventTable, EventTable]:
        with st.spinner("Tabulating the events…"):
            recording = run.recording
            return typed_table(recording.typed_events), boundary_table(recording.boundary_events)
    return run.derived(("event tables",), build, per_json_byte=TABLES_PER_JSON_BYTE)


def event_places(run: LoadedRun, profile: str) -> EventPlaces:
    def build() -> EventPlaces:
        with st.spinner("Placing the events on the steps…"):
            return EventPlaces.for_run(run, profile)
    return run.derived(("event places", profile), build, per_json_byte=PLACES_PER_JSON_BYTE)


def events_page(run: LoadedRun) -> None:
    if st.session_state.pop(GO_TO_RUN, False):
        navigation.switch_to(navigation.RUN)
    recording = run.recording
    st.title("Raw events", anchor=False)
    st.text(run.source.name)
    typed, boundary = _tables(run)
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
        _event_table(run, typed, recording.typed_counts, "lens.events.typed")
    with boundary_tab:
        _event_table(run, boundary, recording.boundary_counts, "lens.events.boundary")
    session.write_link(run.source, None, None)


def _event_table(run: LoadedRun, table: EventTable, counts: dict[str, int], key: str) -> None:
    if table.frame.empty:
        st.caption("No events in this stream.")
        return
    families = dict(table.families())
    if families:  # typed events only: the boundary log's types have no family
        family_column, types_column, path_column, text_column = st.columns([2, 3, 2, 2])
        chosen_families = family_column.multiselect(
            "Families", options=list(families), key=f"{key}.families",
            format_func=lambda f: f"{f} ({families.get(f, 0)})", placeholder="all families",
            help="The framework's families of event types (guard, recovery, memory, "
                 "permission…), each with its count in this file.")
    else:
        types_column, path_column, text_column = st.columns([3, 2, 2])
        chosen_families = []
    chosen = types_column.multiselect(
        "Types", options=table.types(), key=f"{key}.types",
        format_func=lambda t: f"{t} ({counts.get(t, 0)})", placeholder="all types")
    paths = [ANY_PATH, *table.paths()]
    prefix = path_column.selectbox(
        "Subflow path (and below)", options=paths, key=f"{key}.path",
        format_func=lambda p: "any path" if p == ANY_PATH else p or "(no path recorded)")
    text = text_column.text_input("Contains (anywhere in the event)", key=f"{key}.text")
    shown = table.select(chosen, prefix, text, families=chosen_families)
    st.caption(f"{len(shown):,} of {plural(len(table.frame), 'event')} shown. Select a row to see the "
               "event whole.")
    picked = st.dataframe(shown, key=f"{key}.rows", hide_index=True, on_select="rerun",
                          selection_mode="single-row", height=420,
                          column_config={"fields": st.column_config.TextColumn("fields", width="large"),
                                         **({} if families else {"family": None})})
    rows = picked.selection.rows if picked is not None else []
    # A row picked before a filter narrowed the table may no longer be in it.
    if rows and 0 <= rows[0] < len(shown):
        position = int(shown.iloc[rows[0]]["#"])
        st.caption(f"{table.stream} event #{position}")
        _step_link(run, table.stream, position, key)
        whole_json(table.events[position], f"{key}.whole")


def _step_link(run: LoadedRun, stream: str, position: int, key: str) -> None:
    """A button to the step that holds the event, or why no step does."""
    profile = session.current_profile()
    found = event_places(run, profile).step_of(stream, position)
    if found is None:
        st.caption("No step holds this event: it belongs to an earlier run in the file, or "
                   "the projection has no steps.")
        return
    place = found.place
    # The same words as every surface that links to a step (lens.step_places).
    where = step_words(place, found.exact, found.before)
    if len(place.path) > 1:
        where += " in ▸ " + markdown_literal(one_line(place.path[-1], SCOPE_NAME_CHARS))
    label = run.views(profile).scopes.get(place.path).steps[place.index].label
    # No step shows an event between two steps: the link opens the one before it.
    opens = ("Open the step that holds it" if found.exact
             else "Open the step after it" if found.before else "Open the step before it")
    st.button(f"{opens}: {where} · {markdown_literal(one_line(label, 60))}",
              key=f"{key}.go", icon=":material/my_location:", on_click=_go_to_step,
              args=(place.path, place.index))


def _go_to_step(path: tuple[str, ...], index: int) -> None:
    session.move_to(path, index)
    st.session_state[session.TAB] = session.STEPS_TAB
    session.ask_to_scroll_to_step()
    st.session_state[GO_TO_RUN] = True

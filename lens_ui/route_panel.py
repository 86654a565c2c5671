"""The "Why this skill?" panel: the route as a graph and a table of hops, each
one a way back to the slider step of its iteration."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from recorders.values import js_number_text
from lens.figures import route_figure
from lens.route_view import HOP_COLUMNS, hop_rows
from lens_ui.runs import LoadedRun

PLOT_CONFIG = {"displayModeBar": False, "scrollZoom": False}


def route_panel(run: LoadedRun, profile: str, table_key: str) -> None:
    projection = run.projection(profile)
    hops = projection.route.get_hops()
    trips = projection.route.get_trips()
    if not hops:
        st.info("No skill graph in this run: its typed stream has no skill routing "
                "(context.evaluated routing, skill.rejected), so there is no route to explain.",
                icon=":material/route:")
        if not run.recording.has_typed_stream:
            st.caption("This file has no typed event stream at all.")
        if projection.notes:
            st.text("\n".join(f"• {note}" for note in projection.notes))
        return
    st.plotly_chart(route_figure(hops, trips), config=PLOT_CONFIG, key=f"{table_key}.graph")
    if trips:
        st.warning(f"{len(trips)} governor trip(s): the route misbehaved.", icon=":material/warning:")
        st.text("\n".join(f"⚠ {trip.kind} at iteration {js_number_text(trip.iteration)}: {trip.detail}"
                          for trip in trips))
    rejected = sum(1 for hop in hops if hop.outcome == "rejected")
    st.caption(f"{len(hops)} hops, {rejected} rejected. Select a hop to move the slider to "
               "the step of its iteration.")
    table = pd.DataFrame([row.as_record() for row in hop_rows(hops, trips)], columns=HOP_COLUMNS)
    st.dataframe(
        table, key=table_key, on_select="rerun", selection_mode="single-row", hide_index=True,
        column_config={
            "hop": st.column_config.NumberColumn("hop", width="small"),
            "reason": st.column_config.TextColumn("reason", width="large"),
        },
    )


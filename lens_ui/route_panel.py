"""The "Why this skill?" panel: the route as a graph and a table of hops, each
one a way back to the slider step of its iteration."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lens.wording import plural
from lens.figures import route_figure
from lens.route_view import (GOVERNOR_HELP, HOP_COLUMNS, full_reasons, hop_rows,
                             no_route_message, trip_line)
from lens.procedure_view import PROCEDURE_COLUMNS, Procedure, skill_procedures
from lens_ui.runs import LoadedRun

PLOT_CONFIG = {"displayModeBar": False, "scrollZoom": False}


def route_panel(run: LoadedRun, profile: str, table_key: str) -> None:
    projection = run.views(profile).projection
    hops = projection.route.get_hops()
    trips = projection.route.get_trips()
    procedures = skill_procedures(run.evidence, run.facts.run_ids)
    if not hops:
        nested = run.views("lens").projection.nested_skill_graphs
        st.info(no_route_message(nested, run.recording.has_typed_stream,
                                 [p.skill for p in procedures]),
                icon=":material/route:")
        procedure_tables(procedures, table_key)
        return
    st.plotly_chart(route_figure(hops, trips), config=PLOT_CONFIG, key=f"{table_key}.graph")
    if trips:
        st.warning(f"{plural(len(trips), 'governor trip')}: the route misbehaved.", icon=":material/warning:")
        st.text("\n".join(trip_line(trip.kind, trip.iteration, trip.detail) for trip in trips),
                help=GOVERNOR_HELP)
    rejected = sum(1 for hop in hops if hop.outcome == "rejected")
    st.caption(f"{len(hops)} hops, {rejected} rejected. Select a hop to move the slider to "
               "the step of its iteration.")
    rows = hop_rows(hops, trips)
    table = pd.DataFrame([row.as_record() for row in rows], columns=HOP_COLUMNS)
    st.dataframe(
        table, key=table_key, on_select="rerun", selection_mode="single-row", hide_index=True,
        # The reason is what a reader comes for: right after the move, and wide.
        column_order=["hop", "iteration", "cause", "from", "to", "reason", "mark", "tool",
                      "caption", "reachable"],
        column_config={
            "hop": st.column_config.NumberColumn("hop", width="small"),
            "reason": st.column_config.TextColumn("reason", width=420),
            "mark": st.column_config.TextColumn("mark", help=GOVERNOR_HELP),
        },
    )
    reasons = full_reasons(rows)
    if reasons:
        st.caption("Each hop's reason, in full")
        st.text(reasons)
    procedure_tables(procedures, table_key)


def procedure_tables(procedures: tuple[Procedure, ...], table_key: str) -> None:
    """Each skill's declared procedure as the run walked it: a sentence, then its steps."""
    for number, procedure in enumerate(procedures):
        st.text(procedure.summary)
        st.dataframe(pd.DataFrame(procedure.records(), columns=PROCEDURE_COLUMNS),
                     key=f"{table_key}.procedure.{number}", hide_index=True,
                     column_config={"what happened": st.column_config.TextColumn(width=320)})

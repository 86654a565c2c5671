"""The run header: what was loaded, its health, the summary figures, and the
projection switch."""

from __future__ import annotations

import streamlit as st

from recorders.projections import PROFILES, Projection
from lens.summary import format_count, format_duration, run_facts, summarise
from lens_ui import session
from lens_ui.compare_state import compare_with
from lens_ui.render import facts_grid
from lens_ui.runs import ARCHIVE, UPLOAD, LoadedRun

PROFILE_WIDGET = "lens.profile_switch"
PROFILE_HELP = {
    "lens": "lens: the corrected projection (an Agent shows its user/model/tool arrows)",
    "reference": "reference: agentfootprint's own replay, faults included, for comparison",
}


def run_header(run: LoadedRun, projection: Projection) -> None:
    choice = run.choice
    source = {UPLOAD: "uploaded file", ARCHIVE: "archive"}.get(choice.kind, "sample")
    with st.container(border=True):
        st.caption(f"Open run · {source}")
        st.text(choice.label or choice.name)
        if st.button("Compare with…", key="lens.compare_with",
                     help="Open the Compare page with this run as run A"):
            compare_with(choice)
            st.switch_page("pages/compare.py")
        facts_grid(run_facts(run.recording, run.evidence), columns=4)
    health_line(run, projection)
    summary_figures(run, projection)


def health_line(run: LoadedRun, projection: Projection) -> None:
    """Every gap the loader reported and every note of the projection, plainly."""
    gaps = [gap.message for gap in run.recording.gaps] + list(projection.notes)
    if not gaps:
        st.success("Health: nothing missing. The recording carries what these views need.",
                   icon=":material/check_circle:")
        return
    with st.container(border=True, key="lens-health"):
        st.warning(f"Health: {len(gaps)} thing(s) this recording does not carry or this "
                   "projection cannot show.", icon=":material/warning:")
        st.text("\n".join(f"• {message}" for message in gaps))


def summary_figures(run: LoadedRun, projection: Projection) -> None:
    summary = summarise(run.evidence, projection.route.get_path(), run.recording.run_info)
    columns = st.columns(6)
    columns[0].metric("Model calls", summary.model_calls)
    failed = f" · {summary.failed_tool_calls} failed" if summary.failed_tool_calls else ""
    columns[1].metric("Tool calls", f"{summary.tool_calls}{failed}")
    columns[2].metric("Tokens in", format_count(summary.tokens_in))
    columns[3].metric("Tokens out", format_count(summary.tokens_out))
    columns[4].metric("Duration", format_duration(summary))
    columns[5].metric("Skills visited", len(summary.skills_visited))
    if summary.skills_visited:
        st.text("Route: " + " → ".join(summary.skills_visited))


def profile_switch(run: LoadedRun) -> str:
    """Lens or reference projection, each labelled with its step count at the root."""
    counts = run.step_counts()
    current = session.current_profile()
    if st.session_state.get(PROFILE_WIDGET) != current:
        st.session_state[PROFILE_WIDGET] = current
    st.segmented_control(
        "Projection",
        options=list(PROFILES),
        format_func=lambda p: f"{p} · {counts[p]} steps",
        key=PROFILE_WIDGET,
        required=True,
        on_change=_profile_changed,
        help="  \n".join(PROFILE_HELP.get(p, p) for p in PROFILES),
    )
    return session.current_profile()


def _profile_changed() -> None:
    chosen = st.session_state.get(PROFILE_WIDGET)
    if chosen in PROFILES:
        session.choose_profile(chosen)
    else:
        # The control was re-created (its labels carry the new run's step
        # counts) and reported no choice: keep the profile that is shown.
        st.session_state[PROFILE_WIDGET] = session.current_profile()

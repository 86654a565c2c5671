"""A minimal page for AppTest: the three evidence panels on one corpus recording.

Session state in: ``case``, ``start`` (a step position), ``mode`` ("all",
"served", "backtrack", "search"). Out: ``nav``, the position a link asked for.
"""

import streamlit as st

from corpus_files import recording_path
from lens_ui.evidence_panel import render_backtrack, render_search, render_served_context
from recorders.evidence import build_evidence_index, run_id
from recorders.loading import load_path
from recorders.projections import build_projection


@st.cache_resource
def _load(case: str):
    recording = load_path(recording_path(case))
    steps = build_projection(recording, "reference").steps.raw_steps()
    return recording, build_evidence_index(recording), steps


def _go(position: int) -> None:
    st.session_state["nav"] = position


recording, index, steps = _load(st.session_state.get("case", "agent-refund-multi-tools-error"))
mode = st.session_state.get("mode", "all")
position = st.session_state.get("nav", st.session_state.get("start", 0))
if mode in ("all", "served"):
    render_served_context(index, position, _go, steps=steps)
if mode in ("all", "backtrack"):
    render_backtrack(index, _go, steps=steps, recording_id=run_id(recording))
if mode in ("all", "search"):
    render_search(index, _go, steps=steps)

"""Lens: open a recorded agentfootprint run, scrub it step by step, drill into
compositions and ask why a skill was chosen.

Run with ``streamlit run lens_app.py``. This is the run page; ``pages/``
holds the others. Every page opens through ``lens_ui.shell.open_page``, which
sets up the session (reading the link once) and the sidebar that opens a run.
The page is the workspace: one line of run identity and health, then the
slider, the step and its diagram on the first screen.
"""

import streamlit as st

from lens_ui import header
from lens_ui.panel_guard import guarded_panel
from lens_ui.shell import open_page
from lens_ui.share_menu import share_menu
from lens_ui.stepper import run_view

run = open_page("Run")
if run is None:
    st.stop()

with st.sidebar:
    profile = header.profile_switch(run)
    # In the sidebar, not the run bar: the bar keeps to its lines at 1280 px.
    share_menu(run, profile)
with guarded_panel("run header"):
    header.run_bar(run, profile)
run_view(run, profile)

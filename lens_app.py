"""Lens: open a recorded agentfootprint run, scrub it step by step, drill into
compositions and ask why a skill was chosen.

Run with ``streamlit run lens_app.py``. This is the run page; ``pages/``
holds the others. Every page opens through ``lens_ui.shell.open_page``, which
sets up the session (reading the link once) and the sidebar that opens a run.
"""

import streamlit as st

from lens_ui import header
from lens_ui.panel_guard import guarded_panel
from lens_ui.shell import open_page
from lens_ui.stepper import run_view

run = open_page("Run")
if run is None:
    st.stop()

title, switch = st.columns([3, 2], vertical_alignment="bottom")
title.title("Lens", anchor=False)
with switch:
    profile = header.profile_switch(run)
with guarded_panel("run header"):
    header.run_header(run, run.projection(profile))
run_view(run, profile)

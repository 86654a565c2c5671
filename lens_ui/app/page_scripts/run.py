"""The Run page: open a recorded agentfootprint run, scrub it step by step,
drill into compositions and ask why a skill was chosen.

Every page opens through ``lens_ui.shell.open_page``, which
sets up the session (reading the link once) and the sidebar that opens a run.
The page leads with the answer: the run's identity, how it ended and whether
its file is whole, the top likely causes with a button to each one's step;
then the workspace, the slider, the step and its diagram, on the first screen.
"""

import streamlit as st

from lens_ui import header
from lens_ui.chart_warmup import warm_chart_code
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
# The answer first: how the run ended, whether its file is whole, the top causes.
screen = header.first_screen_of(run, profile)
with guarded_panel("run header"):
    header.run_bar(run, profile, screen)
with guarded_panel("answer"):
    header.answer_first(screen)
run_view(run, profile)
# Last, so the first screen is sent before it: the chart code loads while it is read.
warm_chart_code()

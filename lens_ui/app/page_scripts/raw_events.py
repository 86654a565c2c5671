"""The raw events page: every typed and boundary event of the file, filterable."""

import streamlit as st

from lens_ui.events_page import events_page
from lens_ui.panel_guard import guarded_panel
from lens_ui.shell import open_page

run = open_page("Raw events")
if run is None:
    st.stop()
with guarded_panel("raw events"):
    events_page(run)

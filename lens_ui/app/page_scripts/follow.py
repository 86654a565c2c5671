"""The Follow page: a run of the follow folder (LENS_FOLLOW_DIR), watched while it is written."""

from lens_ui.follow_page import follow_page
from lens_ui.panel_guard import guarded_panel
from lens_ui.shell import open_page

open_page("Follow")
with guarded_panel("follow"):
    follow_page()

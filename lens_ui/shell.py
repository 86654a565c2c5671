"""What every page does first: page setup, the session, and the sidebar that
opens a run. Each page calls :func:`open_page`, so the open run and its
position survive moving between pages."""

from __future__ import annotations

import sys

import streamlit as st

from recorders.loading import PARSE_RECURSION_LIMIT

from lens_ui import collector, session
from lens_ui.run_picker import run_picker
from lens_ui.runs import LoadedRun


def open_page(title: str) -> LoadedRun | None:
    # App policy, not the library's: a recording's values may nest as deep as
    # the loader reads them, and the pages serialise them whole (st.json).
    if sys.getrecursionlimit() < PARSE_RECURSION_LIMIT:
        sys.setrecursionlimit(PARSE_RECURSION_LIMIT)
    # No page_icon: a Material-symbol favicon is fetched from a font CDN, and
    # nothing on this page may make a request beyond the Lens server.
    st.set_page_config(page_title=f"{title} · Lens", layout="wide")
    collector.settle_loaded_code()
    session.start_session()
    run = run_picker()
    missing = session.missing_upload()
    if missing is not None:
        st.warning(
            f"This link points to an uploaded run (sha256 {missing[:12]}…) that the server no "
            "longer has: it keeps an upload while the browser session that sent it is open, "
            "and a short while after. Upload the same file again in the sidebar to reopen it "
            "at the linked step. Shown meanwhile: a sample, not the linked run.",
            icon=":material/link_off:")
    if run is None:
        st.info("No run is open. Upload a recording or pick a run in the sidebar.")
    return run

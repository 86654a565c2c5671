"""The server's one store of open runs and uploads, and this browser session's key in it.

Kept apart from :mod:`lens_ui.runs` (which opens runs),
:mod:`lens_ui.sources` (where a run comes from) and
:mod:`lens_ui.archive_jobs` (which holds the budget while indexing) because
all of them read it: an upload's bytes are in the store, every open goes
through it, and an index job reserves room in it. A leaf, so none of them
imports another to reach it.
"""

from __future__ import annotations

import secrets

import streamlit as st
from lens.run import OpenRun
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from lens_ui import collector
from lens_ui.run_store import ServerStore
from lens_ui.server_limits import server_limits

_SESSION_KEY = "lens.session_key"


@st.cache_resource(show_spinner=False)
def server_store() -> ServerStore[OpenRun]:
    limits = server_limits()
    return ServerStore(limits.memory_budget_bytes, _session_is_live, limits.upload_grace_s,
                       on_release=collector.released, grace_ticker=True)


def session_id() -> str:
    """This browser session's key in the server's store: Streamlit's session
    id (what tells whether the session is still there) and a token of the
    session's own (so two sessions never share a key, even in a test harness
    that reuses ids)."""
    key = st.session_state.get(_SESSION_KEY)
    if key is None:
        context = get_script_run_ctx()
        runtime_id = context.session_id if context is not None else "local"
        key = st.session_state[_SESSION_KEY] = f"{runtime_id} {secrets.token_hex(8)}"
    return key


def _session_is_live(session: str) -> bool:
    # Called by the store's grace ticker thread too: Runtime.is_active_session is
    # documented safe on any thread (a dict lookup).
    if not runtime.exists():
        return True
    return runtime.get_instance().is_active_session(session.rpartition(" ")[0])

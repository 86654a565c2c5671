"""Each panel fails alone: one line and an id on the page, the traceback in the server log.

A panel is a region of the page (the header, the step detail, a tab). An
exception inside one is caught by :func:`guarded_panel`, logged with its
traceback under a short incident id, and replaced by a one-line message
naming the panel and the id, so an operator can find it in the log and the
user can still use every other panel. Nothing of the exception (its text may
hold server file paths or recording content) reaches the browser. Streamlit's
own control flow (rerun, stop) passes through: it is not an ``Exception``.
"""

from __future__ import annotations

import logging
import secrets
from contextlib import contextmanager
from typing import Iterator

import streamlit as st

_log = logging.getLogger("lens.panels")


@contextmanager
def guarded_panel(name: str) -> Iterator[None]:
    try:
        yield
    except Exception:  # noqa: BLE001 (the point: any fault in a panel stays in it)
        incident = secrets.token_hex(4)
        _log.exception("panel %r failed; incident %s", name, incident)
        st.error(f"The {name} panel could not be shown (incident {incident}, in the server "
                 "log); the rest of the page still works.", icon=":material/error:")

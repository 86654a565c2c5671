"""A row of buttons that picks one of several views, drawn instead of ``st.tabs``.

Measured with ``benchmarks/bench_browser.py``: with a tab bar in the fragment
that a slider move reruns, the browser takes markedly longer to show each
step; a segmented control costs about what a button does. As with tabs that
rerun on change, the caller builds only the chosen view's content, and the
choice lives under one session key, so it survives slider moves and can be set
by code (before the control is drawn, or in a callback)."""

from __future__ import annotations

from typing import Mapping, Sequence

import streamlit as st


def current_view(views: Sequence[str], key: str) -> str:
    """The chosen view (the first one until the user or the app chooses
    another), without drawing the switch: a page may draw what the view shows
    before the switch above it."""
    shown_key = f"{key}.shown"
    # Clicking the chosen view again would leave none chosen: keep the one shown.
    if st.session_state.get(key) not in views:
        last = st.session_state.get(shown_key)
        st.session_state[key] = last if last in views else views[0]
    st.session_state[shown_key] = st.session_state[key]
    return st.session_state[key]


def view_switch(label: str, views: Sequence[str], key: str,
                shown_as: Mapping[str, str] | None = None, wrap: bool | None = None) -> str:
    """Draw the switch and return the chosen view (see :func:`current_view`);
    ``shown_as`` gives a view a shorter name on its button; ``wrap=True`` lets
    the buttons wrap onto more rows where a column is too narrow for them
    (drawn straight into a column, Streamlit keeps them on one row and cuts them)."""
    chosen = current_view(views, key)
    names = shown_as or {}
    st.segmented_control(label, list(views), key=key, label_visibility="collapsed",
                         format_func=lambda view: names.get(view, view), wrap=wrap)
    return chosen

"""Session state: the one place that says which run, profile, scope and step are shown.

Canonical values live under ``lens.*`` keys; widgets are seeded from them and
write back through callbacks, so a value survives page switches and widget
re-keying. The link (``?run=&step=&drill=&profile=``) is read once, when the
session starts, and written back whenever the view moves.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from recorders.projections import DEFAULT_PROFILE, PROFILES
from lens.link import LINK_KEYS, Link, link_params, parse_link
from lens.scopes import ROOT, ScopeIndex, encode_path
from lens_ui.runs import RunChoice, sample_choice
from lens_ui.samples import default_sample, sample_catalog

RUN = "lens.run"  # RunChoice
UPLOADS = "lens.uploads"  # digest → (RunChoice, bytes), this session's uploads
PROFILE = "lens.profile"
DRILL = "lens.drill"  # tuple path of the scope being viewed
STEP = "lens.step"  # 0-based index into the scope's steps
POSITIONS = "lens.positions"  # (run key, profile, path) → step index, to return to
PENDING_LINK = "lens.pending_link"  # a Link whose drill/step wait for the projection
NOTICES = "lens.notices"  # app-text notices to show once
STARTED = "lens.started"
TAB = "lens.tab"  # which tab of the run view is open
STEPS_TAB, ROUTE_TAB, BACKTRACK_TAB, SEARCH_TAB = "Steps", "Why this skill?", "Backtrack", "Search"
TIMELINE_TAB = "Timeline"


def start_session() -> None:
    """On a session's first run: read the link and choose what to open."""
    if st.session_state.get(STARTED):
        return
    st.session_state[STARTED] = True
    st.session_state[UPLOADS] = {}
    st.session_state[POSITIONS] = {}
    st.session_state[NOTICES] = []
    link = parse_link(st.query_params.to_dict())
    catalog = sample_catalog()
    name = link.run if link.run in catalog else default_sample(catalog)
    if link.run is not None and link.run not in catalog:
        notice("The link names a run that is not one of the samples; opened the default sample.")
    if name is not None:
        st.session_state[RUN] = sample_choice(name)[0]
    if link.profile in PROFILES:
        st.session_state[PROFILE] = link.profile
    else:
        st.session_state[PROFILE] = DEFAULT_PROFILE
        if link.profile is not None:
            notice(f"The link asks for an unknown projection; showing {DEFAULT_PROFILE}.")
    if link.bad_step:
        notice("The link's step is not a positive whole number; showing the first step.")
    st.session_state[DRILL] = ROOT
    st.session_state[STEP] = 0
    st.session_state[PENDING_LINK] = link


def notice(text: str) -> None:
    """Queue an app-written notice (never recording text) for the next render."""
    st.session_state.setdefault(NOTICES, []).append(text)


def take_notices() -> list[str]:
    notices = st.session_state.get(NOTICES, [])
    st.session_state[NOTICES] = []
    return notices


def current_choice() -> RunChoice | None:
    return st.session_state.get(RUN)


def current_profile() -> str:
    profile = st.session_state.get(PROFILE)
    return profile if profile in PROFILES else DEFAULT_PROFILE


def choose_run(choice: RunChoice) -> None:
    """Open another run at its root, first step."""
    remember_position()
    st.session_state[RUN] = choice
    st.session_state[PENDING_LINK] = None
    st.session_state[DRILL] = ROOT
    st.session_state[STEP] = _recalled(choice, current_profile(), ROOT)


def choose_profile(profile: str) -> None:
    remember_position()
    st.session_state[PROFILE] = profile
    choice = current_choice()
    if choice is not None:
        st.session_state[STEP] = _recalled(choice, profile, st.session_state.get(DRILL, ROOT))


def drill_to(path: tuple[str, ...]) -> None:
    remember_position()
    st.session_state[DRILL] = tuple(path)
    choice = current_choice()
    if choice is not None:
        st.session_state[STEP] = _recalled(choice, current_profile(), tuple(path))


def current_drill() -> tuple[str, ...]:
    return st.session_state.get(DRILL, ROOT)


def move_to(path: tuple[str, ...], index: int) -> None:
    """Show step ``index`` of scope ``path`` (where a link leads), drilling
    there first when it is another scope; the position left is remembered."""
    if tuple(path) != current_drill():
        drill_to(tuple(path))
    st.session_state[STEP] = index


def remember_position() -> None:
    choice = current_choice()
    if choice is None:
        return
    key = (choice.key, current_profile(), st.session_state.get(DRILL, ROOT))
    st.session_state.setdefault(POSITIONS, {})[key] = st.session_state.get(STEP, 0)


def _recalled(choice: RunChoice, profile: str, path: tuple[str, ...]) -> int:
    return st.session_state.get(POSITIONS, {}).get((choice.key, profile, path), 0)


def resolve_position(scopes: ScopeIndex) -> tuple[tuple[str, ...], int]:
    """The scope and step to show, checked against what the projection has.

    A pending link is applied here, once, because only now are its drill path
    and step count known; what it asked for and could not get is said.
    """
    link: Link | None = st.session_state.get(PENDING_LINK)
    if link is not None:
        st.session_state[PENDING_LINK] = None
        if link.drill is not None:
            path = scopes.lookup(link.drill)
            if path is None:
                notice("The link's drill path is not a scope of this run; showing the root.")
            else:
                st.session_state[DRILL] = path
        if link.step is not None:
            st.session_state[STEP] = link.step - 1
    path = st.session_state.get(DRILL, ROOT)
    if path not in scopes:
        notice("This scope has no steps in the chosen projection; showing the root.")
        path = ROOT
        st.session_state[DRILL] = path
        choice = current_choice()
        if choice is not None:
            st.session_state[STEP] = _recalled(choice, current_profile(), ROOT)
    count = len(scopes.get(path).steps)
    index = st.session_state.get(STEP, 0)
    if count and not 0 <= index < count:
        if link is not None and link.step is not None:
            notice(f"The link's step is beyond this scope's {count} steps; showing the last one.")
        index = min(max(index, 0), count - 1)
        st.session_state[STEP] = index
    return path, index


def write_link(choice: RunChoice | None, path: tuple[str, ...] | None, index: int | None,
               step_count: int = 0) -> None:
    """Mirror the view in the URL so a copied link opens the same view."""
    wanted: dict[str, str] = link_params(
        run=choice.link_name if choice else None,
        step=index + 1 if index is not None and step_count else None,
        drill=encode_path(path) if path is not None else None,
        profile=current_profile(),
    )
    for key in LINK_KEYS:
        value: Any = wanted.get(key)
        if value is None:
            if key in st.query_params:
                del st.query_params[key]
        elif st.query_params.get(key) != value:
            st.query_params[key] = value

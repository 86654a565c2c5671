"""Session state: the one place that says which run, profile, scope and step are shown.

Canonical values live under ``lens.*`` keys; widgets are seeded from them and
write back through callbacks, so a value survives page switches and widget
re-keying. The link (``?run=&step=&drill=&profile=``, ``?upload=<sha256>``
for an uploaded run, ``?archive=<folder>/<path>`` for an archive run,
``?follow=<folder>/<path>`` for a file of the follow folder, and ``?runid=``
for a run of a file with several; ``lens/link.py``) is read once, when the
session starts (each source checking its own part, ``lens_ui/sources.py``),
and written back
whenever the view moves. Nothing in a link can break the session: what cannot
be read or honoured is said in a one-line notice and the rest still applies.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from recorders.projections import DEFAULT_PROFILE, PROFILES
from recorders.run_step import RunStep
from lens.link import (LINK_KEYS, RUN as RUN_KEY, SOURCE_KEYS, Link, link_params, parse_link,
                       source_of)
from lens.scopes import ROOT, ScopeIndex, encode_path
from lens.wording import plural
from lens_ui.runs import RunSource, run_in_file, sample_choice
from lens_ui.samples import default_sample, sample_catalog
from lens_ui.source_links import from_link
from lens_ui.sources import LinkRefused, UploadGone

RUN = "lens.run"  # RunSource
PROFILE = "lens.profile"
DRILL = "lens.drill"  # tuple path of the scope being viewed
STEP = "lens.step"  # 0-based index into the scope's steps
POSITIONS = "lens.positions"  # (run key, profile, path) → step index, to return to
PENDING_LINK = "lens.pending_link"  # a Link whose drill/step wait for the projection
NOTICES = "lens.notices"  # app-text notices to show once
PLACE = "lens.place"  # (path, ts, runtime stage id) of the step last shown
PENDING_PLACE = "lens.pending_place"  # a place to find again in another projection
MISSING_UPLOAD = "lens.missing_upload"  # digest a link named that the server no longer has
STARTED = "lens.started"
TAB = "lens.tab"  # which tab of the run view is open
SCROLL_TO_STEP = "lens.scroll_to_step"  # True: a link moved the slider; show the step panel
STEPS_TAB, ROUTE_TAB, BACKTRACK_TAB, SEARCH_TAB = "Steps", "Why this skill?", "Backtrack", "Search"
TIMELINE_TAB = "Timeline"
# Widget state that describes one run (what was searched, the filters on the raw
# events, the call walked back from): a query typed for one run means nothing in
# another, so choosing another run clears every key that starts with one of these.
PER_RUN_KEY_PREFIXES = ("lens.search", "lens.backtrack", "lens.events.typed",
                        "lens.events.boundary")


def start_session() -> None:
    """On a session's first run: read the link and choose what to open."""
    if st.session_state.get(STARTED):
        return
    st.session_state[STARTED] = True
    st.session_state[POSITIONS] = {}
    st.session_state[NOTICES] = []
    st.session_state[DRILL] = ROOT
    st.session_state[STEP] = 0
    st.session_state[PROFILE] = DEFAULT_PROFILE
    link = parse_link({key: st.query_params.get_all(key) for key in LINK_KEYS})
    for problem in link.problems:
        notice(problem)
    if link.profile in PROFILES:
        st.session_state[PROFILE] = link.profile
    elif link.profile is not None:
        notice(f"The link asks for an unknown projection; showing {DEFAULT_PROFILE}.")
    st.session_state[PENDING_LINK] = link
    named = source_of(link)
    if named is not None:
        if _open_linked(*named, link):
            return
    elif any(st.query_params.get_all(key) for key in SOURCE_KEYS if key != RUN_KEY):
        # Not readable: its step and scope were that run's, not the sample's.
        st.session_state[PENDING_LINK] = None
    name = default_sample(sample_catalog())
    if name is not None:
        st.session_state[RUN] = sample_choice(name)[0]


def _open_linked(key: str, value: str, link: Link) -> bool:
    """Open the run a link's source parameter names, if its source can (each
    kind checks its own: the sample allow-list, the uploads the server holds,
    the archive index, the follow folder); otherwise say why (False)."""
    try:
        linked = from_link(key, value)
    except UploadGone as gone:
        # The link's step and scope belong to the upload, not to the sample
        # shown meanwhile: they wait until the same file is uploaded again.
        st.session_state[PENDING_LINK] = None
        st.session_state[MISSING_UPLOAD] = (gone.digest, link)
        return False
    except LinkRefused as refused:
        notice(str(refused))
        if not refused.keeps_position:
            st.session_state[PENDING_LINK] = None
        return False
    if linked.notice:
        notice(linked.notice)
    source = linked.source
    if link.run_id is not None:
        chosen = run_in_file(source, link.run_id)
        if chosen is None:
            notice("The link's run id is not one of this file's runs; showing its first run.")
            st.session_state[PENDING_LINK] = None
        else:
            source = chosen
    st.session_state[RUN] = source
    return True


def missing_upload() -> str | None:
    """The digest of an uploaded run the link named and the server no longer
    has; kept until another run is chosen."""
    missing = st.session_state.get(MISSING_UPLOAD)
    return missing[0] if missing else None


def linked_upload_arrived(choice: RunSource) -> bool:
    """If ``choice`` is the very file a link named and the server had lost,
    open it where the link said (True); otherwise do nothing (False)."""
    missing = st.session_state.get(MISSING_UPLOAD)
    if not missing or missing[0] != choice.file_digest:
        return False
    link = missing[1]
    if link.run_id is not None:
        chosen = run_in_file(choice, link.run_id)
        if chosen is None:
            notice("The link's run id is not one of this file's runs; showing its first run.")
            link = None
        else:
            choice = chosen
    choose_run(choice, link=link)
    return True


def notice(text: str) -> None:
    """Queue an app-written notice (never recording text) for the next render."""
    st.session_state.setdefault(NOTICES, []).append(text)


def take_notices() -> list[str]:
    notices = st.session_state.get(NOTICES, [])
    st.session_state[NOTICES] = []
    return notices


def current_choice() -> RunSource | None:
    return st.session_state.get(RUN)


def current_profile() -> str:
    profile = st.session_state.get(PROFILE)
    return profile if profile in PROFILES else DEFAULT_PROFILE


def choose_run(choice: RunSource, link: Link | None = None) -> None:
    """Open another run at its root, first step (or where ``link`` says)."""
    remember_position()
    previous = current_choice()
    if previous is None or previous.key != choice.key:
        forget_run_view_state()
    st.session_state[RUN] = choice
    st.session_state[PENDING_LINK] = link
    st.session_state[MISSING_UPLOAD] = None
    st.session_state[PENDING_PLACE] = None
    st.session_state[DRILL] = ROOT
    st.session_state[STEP] = _recalled(choice, current_profile(), ROOT)


def forget_run_view_state() -> None:
    """Drop the widget state of the run being left (see PER_RUN_KEY_PREFIXES)."""
    for key in [k for k in st.session_state if isinstance(k, str)
                and k.startswith(PER_RUN_KEY_PREFIXES)]:
        del st.session_state[key]


def choose_profile(profile: str) -> None:
    """Show the other projection at the step nearest the one on screen."""
    remember_position()
    st.session_state[PROFILE] = profile
    st.session_state[PENDING_PLACE] = st.session_state.get(PLACE)


def drill_to(path: tuple[str, ...]) -> None:
    remember_position()
    st.session_state[PENDING_PLACE] = None
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


def ask_to_scroll_to_step() -> None:
    """A link moved the slider (a cause, a search hit, an event): the next
    run of the Steps view scrolls the page to the step panel, once."""
    st.session_state[SCROLL_TO_STEP] = True


def take_scroll_request() -> bool:
    """Whether a link asked to scroll to the step panel since the last time (and forget it)."""
    return bool(st.session_state.pop(SCROLL_TO_STEP, False))


def remember_position() -> None:
    choice = current_choice()
    if choice is None:
        return
    key = (choice.key, current_profile(), st.session_state.get(DRILL, ROOT))
    st.session_state.setdefault(POSITIONS, {})[key] = st.session_state.get(STEP, 0)


def _recalled(choice: RunSource, profile: str, path: tuple[str, ...]) -> int:
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
    place = st.session_state.get(PENDING_PLACE)
    if place is not None:
        st.session_state[PENDING_PLACE] = None
        path, index = nearest_place(scopes, *place)
        if path != place[0]:
            notice("This scope has no steps in the chosen projection; showing the nearest "
                   "step in the scope around it.")
        st.session_state[DRILL], st.session_state[STEP] = path, index
    path = st.session_state.get(DRILL, ROOT)
    if path not in scopes:
        notice("This scope has no steps in the chosen projection; showing the root.")
        path = ROOT
        st.session_state[DRILL] = path
        choice = current_choice()
        if choice is not None:
            st.session_state[STEP] = _recalled(choice, current_profile(), ROOT)
    steps = scopes.get(path).steps
    count = len(steps)
    index = st.session_state.get(STEP, 0)
    if count and not 0 <= index < count:
        if link is not None and link.step is not None:
            notice(f"The link's step is beyond this scope's {plural(count, 'step')}; showing the "
                   "last one.")
        index = min(max(index, 0), count - 1)
        st.session_state[STEP] = index
    if count:
        step = steps[index]
        st.session_state[PLACE] = (path, step.ts_ms, step.runtime_stage_id)
    return path, index


def nearest_place(scopes: ScopeIndex, path: tuple[str, ...], ts_ms: float,
                  stage_id: str) -> tuple[tuple[str, ...], int]:
    """The step of ``scopes`` that corresponds best to one of another projection.

    The deepest scope along ``path`` that this projection has; in it, the step
    with the same runtime stage id, else the last step that happened no later,
    else the first.
    """
    while path and path not in scopes:
        path = path[:-1]
    if not path:
        path = ROOT
    steps = scopes.get(path).steps
    best = 0
    for index, step in enumerate(steps):
        if step.runtime_stage_id == stage_id:
            return path, index
        if _at_or_before(step, ts_ms):
            best = index
    return path, best


def _at_or_before(step: RunStep, ts_ms: float) -> bool:
    try:
        return step.ts_ms <= ts_ms
    except TypeError:  # a timestamp that is not a number: no order to go by
        return False


def write_link(choice: RunSource | None, path: tuple[str, ...] | None, index: int | None,
               step_count: int = 0) -> None:
    """Mirror the view in the URL so a copied link opens the same view."""
    wanted: dict[str, str] = link_params(
        run=None,
        step=index + 1 if index is not None and step_count else None,
        drill=encode_path(path) if path is not None else None,
        profile=current_profile(),
    )
    wanted.update(choice.link_params() if choice else {})  # where the run comes from
    for key in LINK_KEYS:
        value: Any = wanted.get(key)
        if value is None:
            if key in st.query_params:
                del st.query_params[key]
        elif st.query_params.get(key) != value:
            st.query_params[key] = value


def widget_selection(key: str, field: str) -> list:
    """What the selection widget under ``key`` last reported in ``field``
    (a chart's points or named selection, a table's rows); [] for none."""
    try:
        return list(st.session_state.get(key)["selection"][field])  # type: ignore[index]
    except (KeyError, TypeError):
        return []

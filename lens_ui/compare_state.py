"""Which two runs the Compare page shows: choices, the shared pair entry point, the link.

- ``st.session_state[PAIR]`` holding two run sources opens the page on them
  (the run page's "compare with…" and other pages set it).
- The link is ``?a=<ref>&b=<ref>``, each side a run source's reference
  (``lens_ui/sources.py``): a sample by ``sample:<name>``, an upload by
  ``upload:<sha256>``, which opens under the rule of run links (whoever has
  the full digest, while the server still holds the file); an archive run by
  ``archive:<folder label>/<file>``, which opens under the rule of run-page
  archive links (a plain path, a folder this server offers, a file its index
  holds as a run); a file of the follow folder by ``follow:<label>/<file>``;
  ``#runid=<selector>`` after any of them names a run of a file with several.
  A side the link cannot open says why and shows the default sample.
- This session's uploads are read through :func:`session_uploads` only, so
  the page follows wherever the upload store lives.
"""

from __future__ import annotations

import streamlit as st

from recorders.errors import RecordingError
from lens.run_label import run_words
from lens_ui import navigation, session
from lens_ui.runs import (LoadedRun, RunSource, open_source, run_in_file, sample_choice,
                          server_store, session_id)
from lens_ui.run_store import OverBudget
from lens_ui.samples import default_sample, sample_catalog
from lens_ui.source_links import from_ref
from lens_ui.sources import SAMPLE, UPLOAD, LinkRefused

PAIR = "lens.compare.pair"          # (RunSource, RunSource): open the page on these
LINK_READ = "lens.compare.link_read"
SELECT_A, SELECT_B = "lens.compare.select_a", "lens.compare.select_b"
LINK_A, LINK_B = "a", "b"
OFFERED = "lens.compare.offered"  # ref → RunSource: runs handed here from elsewhere
DEFAULTED = "lens.compare.defaulted"  # (ref A, ref B) the page chose itself


def session_uploads() -> dict[str, tuple[RunSource, bytes]]:
    """This session's uploads, digest → (source, bytes), from the server's store."""
    store, key = server_store(), session_id()
    uploads: dict[str, tuple[RunSource, bytes]] = {}
    for held in store.session_uploads(key):
        data = store.upload_bytes(key, held.digest)
        if data is not None:
            uploads[held.digest] = (held.info, data)
    return uploads


def choice_ref(choice: RunSource) -> str:
    """How a link names a run (the source's reference)."""
    return choice.ref


def available() -> dict[str, RunSource]:
    """Every run the page can compare, by link reference: samples, then
    uploads, then runs handed to the page from elsewhere (an archive pair, the
    open run, a side of a link)."""
    runs = {sample_choice(name)[0].ref: sample_choice(name)[0] for name in sample_catalog()}
    for choice, _ in session_uploads().values():
        runs[choice.ref] = choice
    runs.update(_offered())
    return runs


def _offered() -> dict[str, RunSource]:
    """Runs this session handed to the page that are neither samples nor its
    uploads' first runs (an archive pair, the open run), kept so they stay selectable."""
    offered: dict[str, RunSource] = st.session_state.setdefault(OFFERED, {})
    handed = list(st.session_state.get(PAIR) or ()) + [session.current_choice()]
    for choice in handed:
        if isinstance(choice, RunSource) and (choice.kind not in (SAMPLE, UPLOAD)
                                              or choice.run_index):
            offered[choice.ref] = choice
    return offered


def label(choice: RunSource) -> str:
    """A selectbox label (shown as text, never markup): the run's own words
    (user message, agent, time) when the server holds it open, else the source's."""
    if choice.kind != SAMPLE and server_store().holds_run(choice.digest):
        try:
            run = open_source(choice)  # held: a look-up, nothing is read again
            runs = run.file.runs if run is not None else []
        except (RecordingError, OverBudget):  # let go meanwhile and not to be had now
            runs = []
        if 0 <= choice.run_index < len(runs):
            return run_words(choice.words, runs[choice.run_index], choice.file_digest)
    return choice.compare_label()


def open_choice(choice: RunSource) -> LoadedRun | None:
    """The open run, or None when its bytes are gone (an upload this session
    dropped, an archive file gone or changed); the file is read only when the
    server's store does not hold the run."""
    return open_source(choice)


def apply_entry_points(runs: dict[str, RunSource]) -> list[str]:
    """Seed the two selections from the pair entry point or, once, from the link.
    Returns app-written notices (what the link asked for and could not get)."""
    notices: list[str] = []
    pair = st.session_state.pop(PAIR, None)
    if (isinstance(pair, (tuple, list)) and len(pair) == 2
            and all(isinstance(c, RunSource) for c in pair)):
        for key, choice in zip((SELECT_A, SELECT_B), pair):
            if choice.ref in runs:
                st.session_state[key] = choice.ref
            else:
                notices.append(f"Run {key[-1].upper()} is no longer held by this session.")
        st.session_state[LINK_READ] = True
    if not st.session_state.get(LINK_READ):
        st.session_state[LINK_READ] = True
        for side, key in ((LINK_A, SELECT_A), (LINK_B, SELECT_B)):
            ref = st.query_params.get(side)
            if ref is None:
                continue
            if ref in runs:
                st.session_state[key] = ref
            else:
                _open_linked_side(ref, side, key, runs, notices)
    refs = list(runs)
    # Two uploads or more: the runs just uploaded, the older as A, the newer as B;
    # also when they arrive while the page shows the defaults it chose before
    # (a pair the person picked stays).
    uploads = [ref for ref in _upload_refs() if ref in runs]
    if len(uploads) >= 2:
        refs = [uploads[1], uploads[0]]
        shown = (st.session_state.get(SELECT_A), st.session_state.get(SELECT_B))
        if shown == st.session_state.get(DEFAULTED) and shown != tuple(refs):
            st.session_state[SELECT_A], st.session_state[SELECT_B] = refs
            st.session_state[DEFAULTED] = tuple(refs)
    for key, default in ((SELECT_A, 0), (SELECT_B, 1)):
        if st.session_state.get(key) not in runs and refs:
            st.session_state[key] = refs[min(default, len(refs) - 1)]
            st.session_state[DEFAULTED] = (st.session_state.get(SELECT_A),
                                           st.session_state.get(SELECT_B))
    return notices


def _upload_refs() -> list[str]:
    """This session's uploads' references, newest first."""
    return [held.info.ref for held in server_store().session_uploads(session_id())
            if isinstance(held.info, RunSource)]


def _open_linked_side(ref: str, side: str, key: str, runs: dict[str, RunSource],
                      notices: list[str]) -> None:
    """Select for ``key`` the run a link's side names, held to the checks of a
    run-page link of its kind; a refused side says why (the source's own
    sentence) and shows the default sample, as that sentence says."""
    named = f"Run {side.upper()} of the link: "
    try:
        side_of_link = from_ref(ref)
        linked = side_of_link.linked
        source = linked.source
        if side_of_link.run_selector is not None:
            source = run_in_file(source, side_of_link.run_selector)
            if source is None:
                raise LinkRefused("The link's run id is not one of that file's runs; opened "
                                  "the default sample.")
    except LinkRefused as refused:
        notices.append(named + str(refused))
        fallback = default_sample(sample_catalog())
        if fallback is not None:
            st.session_state[key] = sample_choice(fallback)[0].ref
        return
    if linked.notice:
        notices.append(named + linked.notice)
    runs[source.ref] = source
    st.session_state.setdefault(OFFERED, {})[source.ref] = source  # stays selectable
    st.session_state[key] = source.ref


def write_compare_link(choice_a: RunSource, choice_b: RunSource) -> None:
    for side, choice in ((LINK_A, choice_a), (LINK_B, choice_b)):
        if st.query_params.get(side) != choice.ref:
            st.query_params[side] = choice.ref


def open_compare(choice_a: RunSource, choice_b: RunSource) -> None:
    """Go to the Compare page with these two runs as A and B (ends this script run)."""
    st.session_state[PAIR] = (choice_a, choice_b)
    navigation.switch_to(navigation.COMPARE)


def compare_with(choice: RunSource) -> None:
    """Open the Compare page with ``choice`` as run A (B starts as the same run)."""
    st.session_state[PAIR] = (choice, choice)

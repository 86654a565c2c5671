"""Which two runs the Compare page shows: choices, the shared pair entry point, the link.

- ``st.session_state[PAIR]`` holding two :class:`RunChoice` opens the page on
  them (the run page's "compare with…" and other pages set it).
- The link is ``?a=<ref>&b=<ref>``: a sample by ``sample:<name>``, an upload
  by ``upload:<sha256>``, which opens under the rule of run links (whoever
  has the full digest, while the server still holds the file); an
  archive run by ``archive:<folder label>/<file>``, which opens under the
  rule of run-page archive links (a plain path, a folder this server
  offers, a file its index holds as a run: :func:`linked_archive_run`);
  a side the link cannot open says why and shows the default sample.
- This session's uploads are read through :func:`session_uploads` only, so
  the page follows wherever the upload store lives.
"""

from __future__ import annotations

import streamlit as st

from lens.link import ARCHIVE as ARCHIVE_LINK, parse_link
from lens_ui import session
from lens_ui.archive_source import ArchiveLinkRefused, linked_archive_run, open_archive_run
from lens_ui.runs import (ARCHIVE, SAMPLE, UPLOAD, LoadedRun, RunChoice, open_run,
                          sample_choice, server_store, session_id)
from lens_ui.samples import default_sample, sample_catalog

PAIR = "lens.compare.pair"          # (RunChoice, RunChoice): open the page on these
LINK_READ = "lens.compare.link_read"
SELECT_A, SELECT_B = "lens.compare.select_a", "lens.compare.select_b"
LINK_A, LINK_B = "a", "b"
ARCHIVE_OFFERED = "lens.compare.archive_runs"  # ref → RunChoice: archive runs handed here


def session_uploads() -> dict[str, tuple[RunChoice, bytes]]:
    """This session's uploads, digest → (choice, bytes), from the server's store."""
    store, key = server_store(), session_id()
    uploads: dict[str, tuple[RunChoice, bytes]] = {}
    for held in store.session_uploads(key):
        data = store.upload_bytes(key, held.digest)
        if data is not None:
            uploads[held.digest] = (held.info, data)
    return uploads


def choice_ref(choice: RunChoice) -> str:
    """How a link names a run: ``sample:<name>``, ``upload:<digest>`` or
    ``archive:<folder label>/<file>``."""
    if choice.kind in (SAMPLE, ARCHIVE):
        return f"{choice.kind}:{choice.name}"
    return f"{UPLOAD}:{choice.digest}"


def available() -> dict[str, RunChoice]:
    """Every run the page can compare, by link reference: samples, then uploads."""
    runs = {choice_ref(sample_choice(name)[0]): sample_choice(name)[0]
            for name in sample_catalog()}
    for choice, _ in session_uploads().values():
        runs[choice_ref(choice)] = choice
    runs.update(_archive_runs())
    return runs


def _archive_runs() -> dict[str, RunChoice]:
    """Archive runs this session handed to the page (a pair from the Archive page,
    or the open run), kept so they stay selectable."""
    offered: dict[str, RunChoice] = st.session_state.setdefault(ARCHIVE_OFFERED, {})
    handed = list(st.session_state.get(PAIR) or ()) + [session.current_choice()]
    for choice in handed:
        if isinstance(choice, RunChoice) and choice.kind == ARCHIVE:
            offered[choice_ref(choice)] = choice
    return offered


def label(choice: RunChoice) -> str:
    """A selectbox label (shown as text, never markup)."""
    if choice.kind == SAMPLE:
        return f"sample · {choice.name}"
    if choice.kind == ARCHIVE:
        return f"archive · {choice.name}"
    return f"upload · {choice.name} · {choice.digest[:10]}"


def open_choice(choice: RunChoice) -> LoadedRun | None:
    """The open run, or None when its bytes are gone (an upload this session dropped)."""
    if choice.kind == SAMPLE:
        return open_run(choice, sample_choice(choice.name)[1])
    if choice.kind == ARCHIVE:
        return open_archive_run(choice)  # the file is read only when not held
    kept = session_uploads().get(choice.digest)
    return None if kept is None else open_run(kept[0], kept[1])


def apply_entry_points(runs: dict[str, RunChoice]) -> list[str]:
    """Seed the two selections from the pair entry point or, once, from the link.
    Returns app-written notices (what the link asked for and could not get)."""
    notices: list[str] = []
    pair = st.session_state.pop(PAIR, None)
    if (isinstance(pair, (tuple, list)) and len(pair) == 2
            and all(isinstance(c, RunChoice) for c in pair)):
        for key, choice in zip((SELECT_A, SELECT_B), pair):
            ref = choice_ref(choice)
            if ref in runs:
                st.session_state[key] = ref
            else:
                notices.append(f"Run {key[-1].upper()} is no longer held by this session.")
        st.session_state[LINK_READ] = True
    if not st.session_state.get(LINK_READ):
        st.session_state[LINK_READ] = True
        for side, key in ((LINK_A, SELECT_A), (LINK_B, SELECT_B)):
            ref = st.query_params.get(side)
            if ref is None:
                continue
            if ref not in runs and ref.startswith(f"{UPLOAD}:"):
                # The rule of run links: an upload the server still holds opens for
                # whoever has its full digest.
                held = server_store().find_upload(session_id(), ref[len(UPLOAD) + 1:])
                if held is not None:
                    runs[ref] = held.info
            if ref not in runs and ref.startswith(f"{ARCHIVE}:"):
                _open_linked_archive(ref[len(ARCHIVE) + 1:], side, key, runs, notices)
                continue
            if ref in runs:
                st.session_state[key] = ref
            elif ref.startswith(f"{UPLOAD}:"):
                notices.append(f"The link's run {side.upper()} is an uploaded run the server "
                               "no longer has; upload the file again to compare it.")
            else:
                notices.append(f"The link's run {side.upper()} is not one of the samples.")
    refs = list(runs)
    for key, default in ((SELECT_A, 0), (SELECT_B, 1)):
        if st.session_state.get(key) not in runs and refs:
            st.session_state[key] = refs[min(default, len(refs) - 1)]
    return notices


def _open_linked_archive(value: str, side: str, key: str, runs: dict[str, RunChoice],
                         notices: list[str]) -> None:
    """Select for ``key`` the archive run a link's side names, held to the checks
    of a run-page archive link; a refused side says why (the archive's own
    sentence) and shows the default sample, as that sentence says."""
    named = f"Run {side.upper()} of the link: "
    parsed = parse_link({ARCHIVE_LINK: value})  # the same syntax rules as ?archive=
    linked, refusal = None, " ".join(parsed.problems)
    if parsed.archive is not None:
        try:
            linked = linked_archive_run(parsed.archive)
        except ArchiveLinkRefused as refused:
            refusal = str(refused)
    if linked is None:
        notices.append(named + refusal)
        fallback = default_sample(sample_catalog())
        if fallback is not None:
            st.session_state[key] = choice_ref(sample_choice(fallback)[0])
        return
    if linked.notice:
        notices.append(named + linked.notice)
    ref = choice_ref(linked.choice)
    runs[ref] = linked.choice
    st.session_state.setdefault(ARCHIVE_OFFERED, {})[ref] = linked.choice  # stays selectable
    st.session_state[key] = ref


def write_compare_link(choice_a: RunChoice, choice_b: RunChoice) -> None:
    for side, choice in ((LINK_A, choice_a), (LINK_B, choice_b)):
        ref = choice_ref(choice)
        if st.query_params.get(side) != ref:
            st.query_params[side] = ref


def compare_with(choice: RunChoice) -> None:
    """Open the Compare page with ``choice`` as run A (B starts as the same run)."""
    st.session_state[PAIR] = (choice, choice)

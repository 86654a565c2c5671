"""The sidebar: upload a recording or pick a run, and open it.

The bytes of an upload go through :func:`accept_upload` once per file (the
digest is computed there); a file that is not a recording leaves the open
run as it was and shows why.
"""

from __future__ import annotations

import streamlit as st

from recorders.errors import RecordingError
from lens.text import markdown_literal
from lens_ui import session
from lens_ui.archive_source import archive_bytes
from lens_ui.runs import (ARCHIVE, SAMPLE, LoadedRun, RunChoice, open_run, sample_choice,
                          upload_choice)
from lens_ui.samples import sample_catalog

UPLOADER = "lens.uploader"
RUN_SELECT = "lens.run_select"
UPLOAD_SEEN = "lens.upload_seen"  # file id of the last upload processed
UPLOAD_ERROR = "lens.upload_error"  # (file name, message) of the last refused upload
MAX_KEPT_UPLOADS = 4


def run_picker() -> LoadedRun | None:
    """Render the sidebar and return the run to show (None when there is none).

    Called by every page: widget state does not cross pages, so the open run
    lives in the session (``lens.run``) and the widgets are re-seeded from it.
    """
    with st.sidebar:
        st.header("Open a run")
        file = st.file_uploader(
            "Upload a recording (.json or .json.gz)", type=["json", "gz"], key=UPLOADER,
            help="A recordRun() recording, an agentfootprint.recording.v1 envelope, "
                 "or a bare boundary-event list; plain or gzipped.")
        if file is None:
            st.session_state.pop(UPLOAD_ERROR, None)
            st.session_state.pop(UPLOAD_SEEN, None)
        elif file.file_id != st.session_state.get(UPLOAD_SEEN):
            st.session_state[UPLOAD_SEEN] = file.file_id
            accept_upload(file.name, file.getvalue())
        refused = st.session_state.get(UPLOAD_ERROR)
        if refused is not None:
            name, message = refused
            st.error(f"Could not open {markdown_literal(name)}: {markdown_literal(message)}",
                     icon=":material/error:")
        _run_select()
    return current_run()


def accept_upload(name: str, data: bytes) -> RunChoice | None:
    """Open uploaded bytes; on success they become the open run, else the error is kept."""
    choice = upload_choice(name, data)
    try:
        with st.spinner(f"Reading {len(data) / 1e6:.1f} MB…"):
            open_run(choice, data)
    except RecordingError as error:
        st.session_state[UPLOAD_ERROR] = (name, str(error))
        return None
    st.session_state.pop(UPLOAD_ERROR, None)
    uploads: dict = st.session_state.setdefault(session.UPLOADS, {})
    uploads.pop(choice.digest, None)
    uploads[choice.digest] = (choice, data)
    while len(uploads) > MAX_KEPT_UPLOADS:  # the oldest upload leaves first
        uploads.pop(next(iter(uploads)))
    session.choose_run(choice)
    st.session_state[RUN_SELECT] = choice.key
    return choice


def current_run() -> LoadedRun | None:
    """The open run, parsed (from cache after the first time)."""
    choice = session.current_choice()
    if choice is None:
        return None
    if choice.kind == SAMPLE:
        _, data = sample_choice(choice.name)
    elif choice.kind == ARCHIVE:
        data = archive_bytes(choice)
        if data is None:
            return None
    else:
        kept = st.session_state.get(session.UPLOADS, {}).get(choice.digest)
        if kept is None:
            return None
        data = kept[1]
    return open_run(choice, data)


def _run_select() -> None:
    options = _options()
    current = session.current_choice()
    if current is not None and st.session_state.get(RUN_SELECT) != current.key:
        st.session_state[RUN_SELECT] = current.key
    st.selectbox("Runs", options=list(options), format_func=lambda key: options[key],
                 key=RUN_SELECT, on_change=_run_selected)


def _options() -> dict[str, str]:
    """Option key → label: this session's uploads (newest first), then the samples."""
    options: dict[str, str] = {}
    current = session.current_choice()
    if current is not None and current.kind == ARCHIVE:  # opened from the Archive page
        options[current.key] = f"{current.name} (archive)"
    for choice, _ in reversed(list(st.session_state.get(session.UPLOADS, {}).values())):
        options[choice.key] = f"⬆ {choice.name} (uploaded)"
    for name in sample_catalog():
        options[f"{SAMPLE}:{name}"] = name
    return options


def _run_selected() -> None:
    key = st.session_state[RUN_SELECT]
    kind, _, ident = key.partition(":")
    if kind == SAMPLE and ident in sample_catalog():
        session.choose_run(sample_choice(ident)[0])
        return
    kept = st.session_state.get(session.UPLOADS, {}).get(ident)
    if kept is not None:
        session.choose_run(kept[0])

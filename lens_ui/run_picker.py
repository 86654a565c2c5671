"""The sidebar: upload a recording or pick a run, and open it.

An upload is known by the sha256 of its bytes everywhere (the Runs list, the
session, the link), never by its file name: every recording is called
``recording.json``. Each is labelled so two can be told apart (file name, run
id, root name, short digest, time of upload). A file that is not a recording,
or that the server cannot hold now, leaves the open run as it was and says why.
A file that holds several runs (an event stream with several run ids, a bug
report with several conversations) opens on its first; "Run in this file"
picks another, each listed by its own words (``lens/file_runs.py``).

Where the open run comes from is its source (``lens_ui/sources.py``): this
module reads it, whatever its kind, through :func:`lens_ui.runs.open_source`.

The bytes of an upload go through :func:`accept_upload` once per file; the
server's store keeps one copy per file (``lens_ui/run_store.py``), and
Streamlit's own copy is let go as soon as the bytes are taken.
"""

from __future__ import annotations

import time

import streamlit as st
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.scriptrunner import get_script_run_ctx

from recorders.errors import NothingWrittenYet, RecordingError
from lens.run_label import upload_label
from lens.text import markdown_literal
from lens_ui import session
from lens_ui.run_store import MAX_UPLOADS_PER_SESSION, OverBudget
from lens_ui.runs import (SAMPLE, UPLOAD, LoadedRun, RunSource, open_run, open_source,
                          sample_choice, server_store, session_id, upload_choice)
from lens_ui.samples import opened_files, sample_catalog
from lens_ui.sources import OPERATORS_FILE_WORDS

UPLOADER = "lens.uploader"
RUN_SELECT = "lens.run_select"
RUN_IN_FILE = "lens.run_in_file"  # which run of a file with several
SHOWN = "lens.shown_run"  # key of the run last shown: a newly opened one is noticed
UPLOAD_SEEN = "lens.upload_seen"  # file id of the last upload processed
UPLOAD_ERROR = "lens.upload_error"  # (file name, message) of the last refused upload


def run_picker() -> LoadedRun | None:
    """Render the sidebar and return the run to show (None when there is none).

    Called by every page: widget state does not cross pages, so the open run
    lives in the session (``lens.run``) and the widgets are re-seeded from it.
    """
    with st.sidebar:
        st.header("Open a run")
        file = st.file_uploader(
            "Upload a run (.json, .json.gz, .ndjson or .zip)",
            type=["json", "gz", "ndjson", "zip"], key=UPLOADER,
            help="A recordRun() recording, an agentfootprint.recording.v1 envelope, a "
                 "fileObservability event stream (.ndjson), a bug report (.zip), a Trace, "
                 "an audit bundle, a packed recording or a bare boundary-event list; "
                 "the kind is read from the file's bytes.")
        if file is None:
            st.session_state.pop(UPLOAD_ERROR, None)
            st.session_state.pop(UPLOAD_SEEN, None)
        elif file.file_id != st.session_state.get(UPLOAD_SEEN):
            st.session_state[UPLOAD_SEEN] = file.file_id
            data = file.getvalue()
            _forget_streamlit_copy(file.file_id)
            accept_upload(file.name, data)
        refused = st.session_state.get(UPLOAD_ERROR)
        if refused is not None:
            name, message, waiting = refused
            if waiting:  # a stream not yet written to: nothing is wrong with it
                st.info(f"{markdown_literal(name)} has no run in it yet: an event stream "
                        "has nothing written yet before agentfootprint's first flush. The "
                        "Follow page watches one grow. The run on screen is unchanged.",
                        icon=":material/hourglass_empty:")
            else:
                st.error(f"Could not open {markdown_literal(name)}: "
                         f"{markdown_literal(message)}. The run on screen is unchanged.",
                         icon=":material/error:")
        _run_select()
        run = current_run()
        if run is not None:
            _run_in_file_select(run)
    return run


def accept_upload(name: str, data: bytes) -> RunSource | None:
    """Open uploaded bytes; on success they become the open run (a file with
    several runs: its first), else the reason is kept for the sidebar and the
    open run stays as it was."""
    choice = upload_choice(name, data)
    try:
        with st.spinner(f"Reading {len(data) / 1e6:.1f} MB…"):
            loaded = open_run(choice, data)
        runs = loaded.file.runs
        choice = choice.in_file(0, runs[0].selector if runs else None,
                                label=upload_label(name, loaded.run, choice.file_digest,
                                                   time.time()))
        dropped = server_store().add_upload(session_id(), choice.file_digest, choice, data)
    except (RecordingError, OverBudget) as error:
        st.session_state[UPLOAD_ERROR] = (name, str(error), isinstance(error, NothingWrittenYet))
        return None
    st.session_state.pop(UPLOAD_ERROR, None)
    for gone in dropped:
        session.notice(f"This session keeps its {MAX_UPLOADS_PER_SESSION} latest uploads: "
                       f"{gone.info.label} left the Runs list. Upload it again to reopen it.")
    if not session.linked_upload_arrived(choice):
        session.choose_run(choice)
    st.session_state[RUN_SELECT] = choice.key
    return choice


def current_run() -> LoadedRun | None:
    """The open run, from the server's store (parsed on the first open only)."""
    choice = session.current_choice()
    if choice is None:
        return None
    try:
        loaded = open_source(choice)
    except OverBudget as error:
        st.error(f"Cannot open this run now: {error}.", icon=":material/error:")
        return None
    except RecordingError as error:  # a file changed under its source since it was chosen
        st.error(f"Cannot open this run: {markdown_literal(str(error))}.",
                 icon=":material/error:")
        return None
    if loaded is None:
        return None
    server_store().show(session_id(), choice.digest)
    if st.session_state.get(SHOWN) != choice.key:
        st.session_state[SHOWN] = choice.key
        if not loaded.run.recording.has_boundary_log:
            # Steps are built from the boundary log: a file without one (an event
            # stream) opens on what it does carry, its calls on the timeline.
            st.session_state[session.TAB] = session.TIMELINE_TAB
    return loaded


def _forget_streamlit_copy(file_id: str) -> None:
    """Let Streamlit's upload manager drop its record of the file: the bytes
    are held once, by the server's store (the widget's value shares them)."""
    context = get_script_run_ctx()
    manager = getattr(context, "uploaded_file_mgr", None)
    if isinstance(manager, MemoryUploadedFileManager):
        manager.remove_file(session_id=context.session_id, file_id=file_id)


def _run_select() -> None:
    options = _options()
    current = session.current_choice()
    if current is not None and current.file_key in options \
            and st.session_state.get(RUN_SELECT) != current.file_key:
        st.session_state[RUN_SELECT] = current.file_key
    st.selectbox("Runs", options=list(options), format_func=lambda key: options[key],
                 key=RUN_SELECT, on_change=_run_selected,
                 help="Uploads are listed by file name, run id, root, the start of the "
                      "file's sha256 and the time of upload.")


def _options() -> dict[str, str]:
    """Option key (a file's key) → label: the open run when it comes from
    elsewhere (an archive, the follow folder), this session's uploads (newest
    first), then the samples."""
    options: dict[str, str] = {}
    current = session.current_choice()
    if current is not None and current.kind not in (SAMPLE, UPLOAD):
        options[current.file_key] = f"{current.name} ({current.words})"
    for held in server_store().session_uploads(session_id()):
        options[held.info.file_key] = held.info.label
    operators = opened_files()
    for name in sample_catalog():  # the operator's files first, said to be theirs
        options[f"{SAMPLE}:{name}"] = f"{name} ({OPERATORS_FILE_WORDS})" \
            if name in operators else name
    return options


def _run_selected() -> None:
    key = st.session_state[RUN_SELECT]
    kind, _, ident = key.partition(":")
    if kind == SAMPLE and ident in sample_catalog():
        session.choose_run(sample_choice(ident)[0])
        return
    for held in server_store().session_uploads(session_id()):
        if held.info.file_key == key:
            session.choose_run(held.info)
            return


def _run_in_file_select(run: LoadedRun) -> None:
    """For a file with several runs: which one is shown, each by its own words."""
    runs = run.file.runs
    if len(runs) < 2:
        return
    if st.session_state.get(RUN_IN_FILE) != run.source.run_index:
        st.session_state[RUN_IN_FILE] = run.source.run_index
    # Labels are app text and recording text clipped to one line; a selectbox
    # shows them as text.
    st.selectbox(f"Run in this file ({len(runs)} runs)", options=range(len(runs)),
                 format_func=lambda index: runs[index].words(), key=RUN_IN_FILE,
                 on_change=_run_in_file_picked, args=(run.source, runs),
                 help="This file holds several runs (an event stream with several run ids, "
                      "or a bug report with several conversations); each is listed by its "
                      "id, agent, first user message and start time. The link names the "
                      "one shown.")


def _run_in_file_picked(source: RunSource, runs: tuple) -> None:
    index = st.session_state.get(RUN_IN_FILE)
    if isinstance(index, int) and 0 <= index < len(runs):
        session.choose_run(source.in_file(index, runs[index].selector))

"""Labels and notes on the run on screen, from the run bar (glue over :mod:`archive.labels`).

A person marks the run, or the step on screen, with a label from the editable
list (or a new one, which joins the list) and a note. Where the labels live
depends on where the run comes from:

- an archive run: in that archive's own index, written through this process's
  connection to it (:func:`lens_ui.archive_jobs.reader`: DuckDB opens a file
  one way per process), keyed by the file's content digest; labels put on an
  earlier content of the same path are said ("labelled in an earlier version
  of this file");
- an upload: in the labels store the operator configured with
  ``LENS_LABELS_DB=/path/labels.duckdb`` (a DuckDB file of its own), keyed by
  the upload's sha256; without it the bar says where to set it;
- a sample or a followed file: no labels (nothing is offered).

Labels and notes are the user's text: shown with ``st.text`` only, never markup.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import duckdb
import streamlit as st

from archive.database import connect
from archive.errors import ArchiveError
from archive.labels import MAX_NOTE_CHARS, LabelStore, StepRef
from lens.scopes import ROOT
from lens.text import markdown_literal, one_line
from lens_ui import session
from lens_ui.sources import ARCHIVE, UPLOAD, RunSource

LABELS_DB_ENV = "LENS_LABELS_DB"
POPOVER = "lens.labels.popover"  # True while open
PICK, NEW, NOTE, ON = "lens.labels.pick", "lens.labels.new", "lens.labels.note", "lens.labels.on"
SAID = "lens.labels.said"  # one line about the last change (or why it was refused)
WHOLE_RUN, STEP_ON_SCREEN = "the whole run", "the step on screen"
EARLIER = "labelled in an earlier version of this file"
BAR_CHARS = 40  # of the labels' names on the bar; all of them are in the popover


@dataclass(frozen=True)
class LabelPlace:
    """Where the run's labels are kept, and by what they are found."""

    store: LabelStore
    sha256: str
    file: str | None  # the path labels are put on (an archive run's, an upload's name)
    by_path: bool  # an archive run: labels of an earlier content of its path are said


def labels_db() -> str | None:
    """The operator's labels store for uploads (``LENS_LABELS_DB``), if set."""
    value = os.environ.get(LABELS_DB_ENV, "").strip()
    return value or None


@st.cache_resource(show_spinner=False)
def _uploads_connection(path: str) -> duckdb.DuckDBPyConnection:
    """This process's one connection to the uploads' labels store."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return connect(path, read_only=False)


@contextmanager
def label_place(choice: RunSource, writable: bool = False) -> Iterator[LabelPlace | str | None]:
    """The run's :class:`LabelPlace` (``writable`` to change labels: the tables
    are made if missing); a sentence (app text) when its labels cannot be kept
    now; None for a run that takes no labels."""
    if choice.kind == ARCHIVE:
        # Imported here: only an archive run needs the archive's index.
        from lens_ui.archive_config import archive_folders
        from lens_ui.archive_jobs import db_path, reader

        folder_label, _, file = choice.name.partition("/")
        folder = archive_folders().get(folder_label)
        db = db_path(folder) if folder is not None else None
        if db is None or not db.is_file():
            yield "Labels on archive runs live in the folder's index: open the Archive page to build it."
            return
        cursor = reader(db).cursor()
        try:
            yield LabelPlace(LabelStore(cursor, writable=writable), choice.file_digest, file,
                             by_path=True)
        finally:
            cursor.close()
    elif choice.kind == UPLOAD:
        path = labels_db()
        if path is None:
            yield (f"Labels on uploaded runs need a labels store: the operator sets "
                   f"{LABELS_DB_ENV}=/path/labels.duckdb where the server starts (see "
                   "docs/team.md, 'Running Lens for a team').")
            return
        cursor = _uploads_connection(path).cursor()
        try:
            yield LabelPlace(LabelStore(cursor, writable=writable), choice.file_digest,
                             choice.name[:200], by_path=False)
        finally:
            cursor.close()
    else:
        yield None


def _labels(place: LabelPlace) -> tuple[list[dict], list[dict]]:
    if place.by_path and place.file:
        return place.store.labels_of_file(place.file, place.sha256)
    return place.store.labels_of(place.sha256), []


def labels_on_bar(choice: RunSource) -> None:
    """In the run bar: the run's labels (as text) and the popover to change them."""
    try:
        with label_place(choice) as place:
            if place is None:
                return
            if isinstance(place, str):
                with st.popover("", icon=":material/label:", key=POPOVER):
                    st.caption(place)
                return
            current, earlier = _labels(place)
            names = list(dict.fromkeys(row["label"] for row in current))
            if earlier:
                st.caption(EARLIER, width="content")
            # The labels are the button's own words (one element less on the one-line
            # bar), every punctuation mark escaped: Markdown shows them as typed.
            shown = markdown_literal(one_line(", ".join(names), BAR_CHARS)) if names else "Label"
            with st.popover(shown, icon=":material/label:", key=POPOVER, on_change="rerun",
                            help="Labels and notes on this run: put one on, or take one off."
                            ) as panel:
                if panel.open:  # drawn only while open, as Run details is
                    _panel(place, current, earlier)
    except (ArchiveError, duckdb.Error) as error:
        # The error may quote a path: Markdown-escaped, shown as written.
        st.caption(markdown_literal("Labels could not be read: " + one_line(str(error), 200)),
                   width="content")


def _panel(place: LabelPlace, current: list[dict], earlier: list[dict]) -> None:
    said = st.session_state.pop(SAID, None)
    if said:
        st.text(said)
    if current:
        st.caption("On this run")
        for n, row in enumerate(current):
            left, right = st.columns([5, 1], vertical_alignment="center")
            left.text(_row_text(row))
            right.button("", icon=":material/close:", key=f"lens.labels.remove.{n}",
                         help="Take this label off", on_click=_remove,
                         args=(place_key(place), row["label"], _step_of(row)))
    if earlier:
        st.caption(f"This file was {EARLIER} (its labels stay with that content):")
        st.text("\n".join(_row_text(row) for row in earlier))
    names = place.store.names()
    st.selectbox("Label", names, key=PICK)
    st.text_input("or a new label (joins the list)", key=NEW, max_chars=60)
    st.text_area("Note", key=NOTE, max_chars=MAX_NOTE_CHARS, height=80)
    path, index = session.current_drill(), st.session_state.get(session.STEP, 0)
    st.radio("On", (WHOLE_RUN, STEP_ON_SCREEN), key=ON, horizontal=True,
             help=f"The step on screen: step {index + 1} of "
                  f"{markdown_literal(_scope_words(path))}.")
    st.button("Put the label on", key="lens.labels.add", type="primary", on_click=_add,
              args=(place_key(place), path, index))


def place_key(place: LabelPlace) -> tuple[str, str | None, bool]:
    return place.sha256, place.file, place.by_path


def _add(key: tuple[str, str | None, bool], path: tuple[str, ...], index: int) -> None:
    state = st.session_state
    label = (state.get(NEW) or "").strip() or state.get(PICK)
    step = StepRef(tuple(path), int(index)) if state.get(ON) == STEP_ON_SCREEN else None
    with _writing() as place:
        if place is None:
            return
        place.store.add(key[0], label, file=key[1], note=state.get(NOTE), step=step)
        state[SAID] = "Labelled: " + one_line(label, 80) + (
            f" (step {index + 1} of {_scope_words(path)})" if step else "")
        state[NEW] = ""
        state[NOTE] = ""


def _remove(key: tuple[str, str | None, bool], label: str, step: StepRef | None) -> None:
    with _writing() as place:
        if place is not None:
            place.store.remove(key[0], label, step=step)
            st.session_state[SAID] = "Took off: " + one_line(label, 80)


@contextmanager
def _writing() -> Iterator[LabelPlace | None]:
    """The open run's place, for a change; a refused change is said in the panel,
    which stays open (its button's words change with the labels)."""
    st.session_state[POPOVER] = True
    choice = session.current_choice()
    if choice is None:
        yield None
        return
    try:
        with label_place(choice, writable=True) as place:
            yield place if isinstance(place, LabelPlace) else None
    except (ArchiveError, duckdb.Error) as error:
        st.session_state[SAID] = "Not changed: " + one_line(str(error), 200)


def _step_of(row: dict) -> StepRef | None:
    if row.get("step_index") is None:
        return None
    return StepRef(tuple(row.get("step_path") or ()), int(row["step_index"]))


def _row_text(row: dict) -> str:
    """One label as a line of text: the label, its step, its note."""
    text = one_line(row["label"], 80)
    step = _step_of(row)
    if step is not None:
        text += f" · step {step.index + 1} of {_scope_words(step.path)}"
    if row.get("note"):
        text += " — " + one_line(row["note"], 300)
    return text


def _scope_words(path: tuple[str, ...]) -> str:
    return "the run" if tuple(path) == ROOT else "scope " + one_line("/".join(path[1:]), 60)

"""The Archive page's labels: the labels column, the label filter's choices, and
"Export labelled runs" (glue over :mod:`archive.labels` and :mod:`archive.dataset`).

Labels live in the index's own database (``labels``, ``label_names``), written
by the run page through this process's connection; what the Runs view shows
of them is cached with :func:`labels_version`, so a label put on a run shows
on the next rerun. The export is built when asked (it reads each labelled
run's file for its served context), optionally redacted with
:class:`lens.share.redaction.Redactor`, and handed over as a JSON-lines download.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from archive.dataset import dataset_lines, jsonl_line, redact_lines
from archive.labels import LabelStore
from lens.wording import plural
from lens.text import one_line
from lens_ui.archive_jobs import reader

ANY_LABEL = "any label or none"
REDACT = "lens.archive.export.redact"
PREPARED = "lens.archive.export.prepared"  # (what it was built for, _Export)


@st.cache_resource(show_spinner=False)
def _tables_ready(db: Path) -> bool:
    """The labels tables exist in the index (an index built before labels had none)."""
    cursor = reader(db).cursor()
    try:
        LabelStore(cursor)
    finally:
        cursor.close()
    return True


def labels_version(db: Path) -> tuple:
    """Moves with every label put on or taken off (a key for the page's caches)."""
    _tables_ready(db)
    cursor = reader(db).cursor()
    try:
        return LabelStore(cursor, writable=False).version()
    finally:
        cursor.close()


def label_choices(db: Path) -> list[str]:
    """The labels a filter offers: the editable list, then any other label in use."""
    cursor = reader(db).cursor()
    try:
        names = LabelStore(cursor, writable=False).names()
        used = [label for (label,) in cursor.execute(
            "SELECT DISTINCT label FROM labels ORDER BY label").fetchall()]
    finally:
        cursor.close()
    return list(dict.fromkeys(names + used))


def labels_column(con, digests: list) -> list[list[str]]:
    """For each row's content digest, the labels on it (the table's labels column)."""
    found = LabelStore(con, writable=False).labels_by_content(digests)
    return [found.get(digest, []) for digest in digests]


@dataclass(frozen=True)
class _Export:
    data: bytes
    runs: int
    said: list[str]  # app lines: what was left out, what was masked


def export_labelled(db: Path, folder: Path, label: str, version: tuple) -> None:
    """"Export labelled runs" for ``label``: built on request, then downloaded."""
    left, middle, right = st.columns([2, 2, 3], vertical_alignment="center")
    redact = middle.toggle("Redact secrets and personal data", value=True, key=REDACT,
                           help="Mask keys, e-mail addresses, card and phone numbers in "
                                "every line, one mask per value across the file.")
    wanted = (str(db), label, redact, version)
    if left.button("Export labelled runs", key="lens.archive.export.prepare",
                   icon=":material/dataset:",
                   help="One JSON line per run carrying this label: its answer, labels "
                        "and notes, likely causes and its last model call's context."):
        with st.spinner("Reading the labelled runs…"):
            st.session_state[PREPARED] = (wanted, _build(db, folder, label, redact))
    prepared = st.session_state.get(PREPARED)
    if not prepared or prepared[0] != wanted:
        right.caption("Built when asked: it reads each labelled run's file.")
        return
    export = prepared[1]
    if export.said:
        st.text("\n".join(export.said))
    with right:
        st.download_button(f"Download {plural(export.runs, 'run')} as JSON lines", data=export.data,
                           file_name=_file_name(label), mime="application/x-ndjson",
                           key="lens.archive.export.download", on_click="ignore",
                           icon=":material/download:", type="primary")


def _build(db: Path, folder: Path, label: str, redact: bool) -> _Export:
    cursor = reader(db).cursor()
    try:
        lines, notes = dataset_lines(cursor, folder, label)
    finally:
        cursor.close()
    said = [f"• {one_line(note, 300)}" for note in notes]
    if redact and lines:
        from lens.share.redaction import Redactor

        lines, report = redact_lines(lines, Redactor())
        said.append("Redaction: " + report.summary())
    elif not redact:
        said.append("Not redacted: the lines hold the runs' text as recorded.")
    return _Export("".join(jsonl_line(line) for line in lines).encode("utf-8"), len(lines), said)


def _file_name(label: str) -> str:
    """``labelled-wrong-answer.jsonl``: the label's letters and digits only."""
    slug = "".join(ch if ch.isalnum() else "-" for ch in label.lower())
    slug = "-".join(part for part in slug.split("-") if part)[:40]
    return f"labelled-{slug or 'runs'}.jsonl"

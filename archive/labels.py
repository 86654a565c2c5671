"""Labels and notes a person puts on a run, kept in the archive's database.

A label ("wrong answer", "needs a look", …) with an optional note marks a run,
or one step of it, by the run file's content digest (sha256), never by its
path and never in the recording: the bytes stay as the framework wrote them,
a re-index (even a rebuild after a schema change) keeps every label, and a
label put on a file that later changed stays with the content it was put on,
so the page can say "labelled in an earlier version of this file".

The tables live beside the index's own but are not among the tables an
index rebuilds (:data:`archive.schema.TABLES`): only this module writes them.
The list of label names a page offers is editable and starts with
:data:`DEFAULT_LABELS`.

What this owns: the two tables and their rules. What it does not: which run
a file holds (the index's ``files`` table) or any widget.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

import duckdb

from archive.database import connect
from archive.errors import ArchiveError
from archive.schema import Column, Table

DEFAULT_LABELS = ("wrong answer", "right answer", "needs a look")
MAX_LABEL_CHARS = 60
MAX_NOTE_CHARS = 4000

LABELS = Table("labels", "one row per label a person put on a run (or one step of it)", (
    Column("sha256", "VARCHAR", "sha256 of the run file's bytes when labelled: the label "
           "stays with that content"),
    Column("label", "VARCHAR", "the label, e.g. `wrong answer`"),
    Column("note", "VARCHAR", "the person's note, if any"),
    Column("step_path", "VARCHAR[]", "for a label on one step: its scope (`__root__` first)"),
    Column("step_index", "INTEGER", "for a label on one step: its 0-based index in the scope"),
    Column("file", "VARCHAR", "the file's path (relative to the archive folder) when labelled"),
    Column("labelled_at", "TIMESTAMP", "UTC time the label was put on"),
))
LABEL_NAMES = Table("label_names", "the labels offered, in order (editable)", (
    Column("name", "VARCHAR", "a label"),
    Column("position", "INTEGER", "its place in the list"),
))
LABEL_TABLES = (LABELS, LABEL_NAMES)


@dataclass(frozen=True)
class StepRef:
    """One step of a run: its scope and 0-based index there."""

    path: tuple[str, ...]
    index: int


def clean_label(text: Any) -> str:
    """A label as stored: one line, trimmed, no control characters, bounded."""
    if not isinstance(text, str):
        raise ArchiveError("a label must be text")
    label = " ".join(text.split())
    if not label:
        raise ArchiveError("a label cannot be empty")
    if any(unicodedata.category(ch).startswith("C") for ch in label):
        raise ArchiveError("a label cannot hold control or invisible format characters")
    if len(label) > MAX_LABEL_CHARS:
        raise ArchiveError(f"a label is at most {MAX_LABEL_CHARS} characters; "
                           f"this one has {len(label)}")
    return label


def clean_note(text: Any) -> str | None:
    if text is None:
        return None
    if not isinstance(text, str):
        raise ArchiveError("a note must be text")
    note = text.strip()
    if len(note) > MAX_NOTE_CHARS:
        raise ArchiveError(f"a note is at most {MAX_NOTE_CHARS} characters; "
                           f"this one has {len(note)}")
    return note or None


class LabelStore:
    """The labels of one archive database, read and written through ``connection``
    (a writable one to change them)."""

    def __init__(self, connection: duckdb.DuckDBPyConnection, *, writable: bool = True) -> None:
        self.connection = connection
        if writable:
            self._ensure_tables()

    @classmethod
    def open(cls, db_path: str | os.PathLike) -> LabelStore:
        """A writable store on the index file at ``db_path`` (which must exist:
        a label is put on a run the index knows)."""
        if not Path(db_path).is_file():
            raise ArchiveError(f"no index at {os.fspath(db_path)}; build it with "
                               "`footprint-lens archive index DIR` first")
        return cls(connect(db_path, read_only=False))

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> LabelStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _ensure_tables(self) -> None:
        con = self.connection
        for table in LABEL_TABLES:
            con.execute(table.create_sql())
        if con.execute(f'SELECT count(*) FROM "{LABEL_NAMES.name}"').fetchone()[0] == 0:
            con.executemany(f'INSERT INTO "{LABEL_NAMES.name}" VALUES (?, ?)',
                            [[name, n] for n, name in enumerate(DEFAULT_LABELS)])

    # ── the list of names ──

    def names(self) -> list[str]:
        if not self._has_tables():
            return list(DEFAULT_LABELS)
        return [name for (name,) in self.connection.execute(
            f'SELECT name FROM "{LABEL_NAMES.name}" ORDER BY position, name').fetchall()]

    def add_name(self, name: str) -> str:
        label = clean_label(name)
        if label not in self.names():
            position = self.connection.execute(
                f'SELECT coalesce(max(position) + 1, 0) FROM "{LABEL_NAMES.name}"').fetchone()[0]
            self.connection.execute(f'INSERT INTO "{LABEL_NAMES.name}" VALUES (?, ?)',
                                    [label, position])
        return label

    def remove_name(self, name: str) -> None:
        """Take a name off the list offered; labels already put on runs stay."""
        self.connection.execute(f'DELETE FROM "{LABEL_NAMES.name}" WHERE name = ?',
                                [clean_label(name)])

    # ── labels on runs ──

    def add(self, sha256: str, label: str, *, file: str | None = None, note: str | None = None,
            step: StepRef | None = None) -> None:
        """Put ``label`` (with ``note``) on the run whose bytes have ``sha256``, or
        on one step of it. The same label on the same run (and step) is replaced,
        so its note can be edited."""
        label = self.add_name(label)
        note = clean_note(note)
        self.remove(sha256, label, step=step)
        self.connection.execute(
            f'INSERT INTO "{LABELS.name}" VALUES (?, ?, ?, ?, ?, ?, ?)',
            [sha256, label, note, list(step.path) if step else None,
             step.index if step else None, file,
             datetime.now(timezone.utc).replace(tzinfo=None)])

    def remove(self, sha256: str, label: str, *, step: StepRef | None = None) -> int:
        """Take ``label`` off the run (or its step); how many were removed."""
        label = clean_label(label)
        if step is None:
            where, params = "step_index IS NULL", []
        else:
            where, params = "step_path = ? AND step_index = ?", [list(step.path), step.index]
        before = self._count(sha256)
        self.connection.execute(
            f'DELETE FROM "{LABELS.name}" WHERE sha256 = ? AND label = ? AND {where}',
            [sha256, label, *params])
        return before - self._count(sha256)

    def labels_of(self, sha256: str) -> list[dict[str, Any]]:
        """The labels on one content, oldest first."""
        return self._rows('WHERE sha256 = ?', [sha256])

    def labels_of_file(self, file: str, current_sha256: str | None) -> tuple[list[dict], list[dict]]:
        """(labels on the file's current content, labels put on an earlier content
        of the same path): the second says the file changed since."""
        if not self._has_tables():
            return [], []
        current = self.labels_of(current_sha256) if current_sha256 else []
        earlier = self._rows('WHERE file = ? AND sha256 IS DISTINCT FROM ?',
                             [file, current_sha256])
        return current, earlier

    def labelled(self, label: str) -> list[str]:
        """The digests of every content that carries ``label``."""
        if not self._has_tables():
            return []
        return [sha for (sha,) in self.connection.execute(
            f'SELECT DISTINCT sha256 FROM "{LABELS.name}" WHERE label = ? ORDER BY sha256',
            [clean_label(label)]).fetchall()]

    def labels_by_content(self, digests: Sequence[str]) -> dict[str, list[str]]:
        """digest → the labels on that content (each once, in the order put on),
        for the digests given (a page of a table): one query, not one per run."""
        wanted = [d for d in dict.fromkeys(digests) if isinstance(d, str)]
        if not wanted or not self._has_tables():
            return {}
        found: dict[str, list[str]] = {}
        for sha, label in self.connection.execute(
                f'SELECT sha256, label FROM "{LABELS.name}" WHERE sha256 IN '
                f'(SELECT unnest(?::VARCHAR[])) ORDER BY labelled_at, label', [wanted]).fetchall():
            kept = found.setdefault(sha, [])
            if label not in kept:
                kept.append(label)
        return found

    def version(self) -> tuple[int, Any]:
        """Changes whenever a label is put on or taken off (for a cache of what
        shows labels): how many there are and when the last was put on."""
        if not self._has_tables():
            return 0, None
        return tuple(self.connection.execute(
            f'SELECT count(*), max(labelled_at) FROM "{LABELS.name}"').fetchone())

    def _count(self, sha256: str) -> int:
        return self.connection.execute(
            f'SELECT count(*) FROM "{LABELS.name}" WHERE sha256 = ?', [sha256]).fetchone()[0]

    def _rows(self, where: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        if not self._has_tables():
            return []
        cursor = self.connection.execute(
            f'SELECT label, note, step_path, step_index, file, labelled_at, sha256 '
            f'FROM "{LABELS.name}" {where} ORDER BY labelled_at, label', list(params))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]

    def _has_tables(self) -> bool:
        return bool(self.connection.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = ?",
            [LABELS.name]).fetchone()[0])


def parse_step(text: str) -> StepRef:
    """``PATH:N`` (``__root__/sf-x:3``, N counted from 1 as the run page's
    "step N of M") → a :class:`StepRef` with a 0-based index."""
    from recorders.values import decode_path

    path, colon, number = text.rpartition(":")
    # ASCII digits only: str.isdigit takes "٣" and "³", which int() reads or refuses.
    if (not colon or not path or not (number.isascii() and number.isdigit())
            or int(number) < 1):
        raise ArchiveError(f"--step: expected PATH:N with N from 1, e.g. __root__:3; "
                           f"got {text!r}")
    return StepRef(decode_path(path), int(number) - 1)

"""Open a run file of a configured archive folder in the run page.

An archive run is chosen by (folder label, path relative to the folder); the
label maps to a configured folder (``lens_ui/archive_config.py``) and the path
must resolve inside it, so nothing from the browser can name another file.
A link (``?archive=<label>/<path>``) is held to more: the path must also be
a run in the server's index of that folder (:func:`linked_archive_run`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb
import streamlit as st

from archive.errors import ArchiveError
from archive.folder import resolve_inside
from lens_ui.archive_config import archive_folders
from lens_ui.archive_jobs import db_path, reader
from lens_ui.runs import ARCHIVE, RunChoice, digest_of


class ArchiveLinkRefused(Exception):
    """A link's archive run that cannot be opened; the message is one app-written
    sentence that never quotes the link."""


@dataclass(frozen=True)
class LinkedArchiveRun:
    choice: RunChoice
    notice: str | None  # said once when the run opens, e.g. that it changed since indexed


def archive_choice(label: str, file: str) -> tuple[RunChoice, bytes]:
    """The run ``file`` of folder ``label`` and its bytes; KeyError for a label
    that is not configured or a path outside its folder, FileNotFoundError
    when the path is inside but there is no file."""
    path = _inside(label, file)
    stat = path.stat()
    data = _file_bytes(str(path), stat.st_size, stat.st_mtime_ns)
    return RunChoice(ARCHIVE, f"{label}/{file}", digest_of(data)), data


def archive_bytes(choice: RunChoice) -> bytes | None:
    """The bytes of an archive choice, or None when the file is gone or changed
    since it was chosen (the open run is the bytes that were chosen)."""
    label, _, file = choice.name.partition("/")
    try:
        fresh, data = archive_choice(label, file)
    except (KeyError, OSError):
        return None
    return data if fresh.digest == choice.digest else None


def linked_archive_run(value: str) -> LinkedArchiveRun:
    """The run a link's ``<label>/<path>`` names: a configured folder's label,
    a path that resolves inside that folder (symlinks followed, then checked),
    and a file the server's index of the folder holds as a run. Anything else
    raises :class:`ArchiveLinkRefused`. A file whose bytes differ from what was
    indexed still opens, as it is now, with a notice."""
    label, _, file = value.partition("/")
    folders = archive_folders()
    if label not in folders:
        raise ArchiveLinkRefused("The link names an archive folder this server does not "
                                 "offer; opened the default sample.")
    indexed = _indexed_digest(folders[label], file)
    if indexed is None:
        raise ArchiveLinkRefused("The link names a file that is not a run in this server's "
                                 "index of that archive folder; opened the default sample.")
    try:
        choice, _ = archive_choice(label, file)
    except KeyError:
        raise ArchiveLinkRefused("The link's archive run leads outside its folder; opened "
                                 "the default sample.") from None
    except OSError:
        raise ArchiveLinkRefused("The linked archive run file is no longer in its folder; "
                                 "opened the default sample.") from None
    notice = None
    if choice.digest != indexed:
        notice = ("The linked archive run file has changed since it was indexed; showing it "
                  "as it is now.")
    return LinkedArchiveRun(choice, notice)


def _indexed_digest(folder: Path, file: str) -> str | None:
    """The sha256 the folder's index holds for run ``file``; None when the index
    does not exist or has no run of that path."""
    db = db_path(folder)
    if not db.is_file():
        return None
    try:
        row = reader(db).cursor().execute(
            'SELECT f.sha256 FROM "files" AS f WHERE f.file = ? AND EXISTS '
            '(SELECT 1 FROM "runs" AS r WHERE r.file = f.file)', [file]).fetchone()
    except (ArchiveError, duckdb.Error):
        return None  # no readable index yet: nothing is known to be a run
    return row[0] if row else None


def _inside(label: str, file: str) -> Path:
    folder = archive_folders()[label]
    path = resolve_inside(folder, file)
    if path is None or path == folder.resolve():
        raise KeyError(file)
    if not path.is_file():
        raise FileNotFoundError(file)
    return path


@st.cache_resource(max_entries=8, show_spinner=False)
def _file_bytes(path: str, size: int, mtime_ns: int) -> bytes:
    return Path(path).read_bytes()

"""Open a run file of a configured archive folder in the run page.

An archive run is chosen by (folder label, path relative to the folder); the
label maps to a configured folder (``lens_ui/archive_config.py``) and the file
is read through a descriptor opened beneath that folder, following no symlink
(``lens_ui/folder_read.py`` over ``archive/beneath.py``), so nothing from the
browser, and nothing swapped into the folder while it is read, can reach
another file. The run itself is an :class:`ArchiveSource`, the archive's kind
of :class:`lens_ui.sources.RunSource`. A link (``?archive=<label>/<path>``) is
held to more: the path must also be a run in the server's index of that
folder (:func:`linked_archive_run`).

Bytes are not cached here: a run the server's store holds is shown without
reading its file again, and one it does not is read once more, so nothing of
a refused or dropped file outlives its open outside the memory budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from archive.errors import ArchiveError
from archive.beneath import NOT_REGULAR, SYMLINK, TOO_LARGE
from lens.link import ARCHIVE as ARCHIVE_PARAM
from lens_ui.archive_config import archive_folders
from lens_ui.folder_read import FolderFileRefused, read_in_folder
from lens_ui.sources import ARCHIVE, Linked, LinkRefused, RunSource, digest_of


class ArchiveSource(RunSource):
    """A run file of a configured archive folder, named ``<label>/<path>``."""

    kind, link_key, words = ARCHIVE, ARCHIVE_PARAM, "archive"

    def read(self) -> bytes | None:
        return archive_bytes(self)

    @classmethod
    def from_link(cls, value: str) -> Linked:
        linked = linked_archive_run(value)
        return Linked(linked.choice, linked.notice)


class ArchiveLinkRefused(LinkRefused):
    """A link's archive run that cannot be opened; the message is one app-written
    sentence that never quotes the link."""


@dataclass(frozen=True)
class LinkedArchiveRun:
    choice: ArchiveSource
    notice: str | None  # said once when the run opens, e.g. that it changed since indexed


def archive_choice(label: str, file: str) -> tuple[ArchiveSource, bytes]:
    """The run ``file`` of folder ``label`` and its bytes; KeyError for a label
    that is not configured or a path that is not a plain path inside its
    folder, OSError when the file is not there to read (gone, a symlink, not
    a regular file, or larger than ``LENS_MAX_EXPANDED_MB``)."""
    data = _read(label, file)
    return ArchiveSource(f"{label}/{file}", digest_of(data)), data


def archive_bytes(choice: ArchiveSource) -> bytes | None:
    """The bytes of an archive choice, or None when the file is gone or changed
    since it was chosen (the open run is the bytes that were chosen)."""
    label, _, file = choice.name.partition("/")
    try:
        data = _read(label, file)
    except (KeyError, OSError):
        return None
    return data if digest_of(data) == choice.file_digest else None


def linked_archive_run(value: str) -> LinkedArchiveRun:
    """The run a link's ``<label>/<path>`` names: a configured folder's label,
    a plain path inside that folder (no symlink followed below it), and a file
    the server's index of the folder holds as a run. Anything else raises
    :class:`ArchiveLinkRefused` (a :class:`LinkRefused`). A file whose bytes
    differ from what was indexed still opens, as it is now, with a notice."""
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
    except FolderFileRefused as refused:
        raise ArchiveLinkRefused(_REFUSED_LINK.get(refused.kind, _GONE_LINK)) from None
    except OSError:
        raise ArchiveLinkRefused(_GONE_LINK) from None
    notice = None
    if choice.file_digest != indexed:
        notice = ("The linked archive run file has changed since it was indexed; showing it "
                  "as it is now.")
    return LinkedArchiveRun(choice, notice)


_GONE_LINK = ("The linked archive run file is no longer in its folder; opened the default "
              "sample.")
_REFUSED_LINK = {
    SYMLINK: ("The linked archive run file is now a symlink, which Lens does not follow "
              "inside an archive folder; opened the default sample."),
    NOT_REGULAR: ("The linked archive run file is not a regular file any more; opened the "
                  "default sample."),
    TOO_LARGE: ("The linked archive run file is now larger than this server opens "
                "(LENS_MAX_EXPANDED_MB); opened the default sample."),
}


def _indexed_digest(folder: Path, file: str) -> str | None:
    """The sha256 the folder's index holds for run ``file``; None when the index
    does not exist or has no run of that path."""
    # Loaded here, not on import: the index's reader brings DuckDB and the
    # archive package, which a page that never checks an archive link never needs.
    import duckdb

    from lens_ui.archive_jobs import db_path, reader
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


def _read(label: str, file: str) -> bytes:
    return read_in_folder(archive_folders(), label, file)

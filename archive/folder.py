"""The archive folder on disk: which files might be runs, and what changed.

:func:`scan_folder` lists every ``.json`` and ``.json.gz`` file under a folder
(recursively, symlinked folders not followed, broken symlinks listed) with its
size and modification time, without reading it; :func:`read_file` refuses a
symlink that leads outside the folder or nowhere. :func:`plan_index` compares
that listing with what the index holds: a file whose size and modification
time are unchanged is not read again; any other is read, and its digest
decides whether it changed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISDIR, S_ISLNK, S_ISREG

from archive.errors import ArchiveError
from recorders.loading import read_regular_file

RUN_SUFFIXES = (".json", ".json.gz")


@dataclass(frozen=True)
class FileStat:
    file: str  # path relative to the folder, "/"-separated
    size_bytes: int
    mtime_ns: int
    problem: str | None = None  # why the file is not to be read, found by listing it


# The index stores paths as text: a name that is not UTF-8 is kept with its bad
# bytes written as \xNN (so it shows, and is the same on every pass), never read.
BAD_NAME = ("the file's path is not valid UTF-8 (shown here with \\x escapes); "
            "rename it to have it indexed")
NOT_REGULAR = "{file} is not a regular file (a pipe, a socket or a device); not read"


@dataclass(frozen=True)
class KnownFile:
    """What the index remembers of a file from the last time it was read."""

    size_bytes: int
    mtime_ns: int
    sha256: str
    status: str


@dataclass(frozen=True)
class IndexPlan:
    to_read: list[FileStat]  # new files, or files whose size or mtime moved
    unchanged: list[FileStat]  # same size and mtime: not read
    removed: list[str]  # in the index, gone from the folder


def scan_folder(root: str | os.PathLike) -> list[FileStat]:
    """Every candidate run file under ``root``, sorted by relative path."""
    base = Path(root)
    if not base.is_dir():
        raise ArchiveError(f"{os.fspath(root)!r} is not a folder")
    found: list[FileStat] = []
    unlisted: list[OSError] = []
    for directory, subdirectories, names in os.walk(base, onerror=unlisted.append):
        subdirectories.sort()
        for name in names:
            if not name.lower().endswith(RUN_SUFFIXES):
                continue
            path = os.path.join(directory, name)
            problem = None
            try:
                stat = os.stat(path)
            except OSError:
                # A broken symlink still names a run: listed, so that reading it
                # says why it is not indexed instead of leaving it out unexplained.
                try:
                    stat = os.lstat(path)
                except OSError:
                    continue  # gone between listing and stat: not in this index
                if not S_ISLNK(stat.st_mode):
                    continue
            else:
                if S_ISDIR(stat.st_mode):
                    continue  # a folder named like a run: walked like any folder
                if not S_ISREG(stat.st_mode):
                    problem = NOT_REGULAR  # a pipe, a socket or a device: never opened
            relative = os.path.relpath(path, base).replace(os.sep, "/")
            shown = _text_name(relative)
            if shown != relative:
                problem = BAD_NAME
            found.append(FileStat(shown, stat.st_size, stat.st_mtime_ns,
                                  problem.format(file=shown) if problem else None))
    for error in unlisted:
        if os.path.abspath(error.filename or base) == os.path.abspath(base):
            raise ArchiveError(f"cannot list the folder {os.fspath(root)!r}: "
                               f"{error.strerror or error}")
        relative = os.path.relpath(error.filename, base).replace(os.sep, "/")
        found.append(FileStat(_text_name(relative) + "/", 0, 0,
                              f"cannot list this folder ({error.strerror or error}); the runs "
                              "in it are not read, and those indexed before are kept"))
    found.sort(key=lambda s: s.file)
    return found


def is_folder_entry(file: str) -> bool:
    """An entry :func:`scan_folder` made for a folder it could not list."""
    return file.endswith("/")


def _text_name(relative: str) -> str:
    """``relative`` itself, or, when the file system gave bytes that are not
    UTF-8 (kept by Python as lone surrogates), the name with those bytes as \\xNN."""
    try:
        relative.encode("utf-8")
        return relative
    except UnicodeEncodeError:
        return os.fsencode(relative).decode("utf-8", "backslashreplace")


def plan_index(listing: list[FileStat], known: dict[str, KnownFile]) -> IndexPlan:
    seen = set()
    to_read: list[FileStat] = []
    unchanged: list[FileStat] = []
    for stat in listing:
        seen.add(stat.file)
        previous = known.get(stat.file)
        if (previous is not None and previous.size_bytes == stat.size_bytes
                and previous.mtime_ns == stat.mtime_ns):
            unchanged.append(stat)
        else:
            to_read.append(stat)
    # What was indexed from a folder that cannot be listed now is not gone: kept as it is.
    hidden = tuple(f for f in seen if is_folder_entry(f))
    removed = sorted(file for file in known
                     if file not in seen and not (hidden and file.startswith(hidden)))
    return IndexPlan(to_read, unchanged, removed)


def read_file(root: str | os.PathLike, file: str) -> bytes:
    """The bytes of ``file`` under ``root``; an unreadable path is an ArchiveError.

    A symlink that leads outside ``root`` is not read: the index would otherwise
    show the contents of a file the folder's owner did not put in the archive
    (the app's run links refuse the same paths)."""
    link = Path(root) / file
    if link.is_symlink() and not link.exists():
        raise ArchiveError(f"{file} is a symlink whose target is missing or loops; not read")
    path = resolve_inside(root, file)
    if path is None:
        raise ArchiveError(f"{file} is a symlink to a file outside the archive folder; not read")
    try:
        # The file may have become a pipe or a device since it was listed.
        data = read_regular_file(path)
    except OSError as error:
        raise ArchiveError(f"cannot read {file}: {error.strerror or error}") from None
    if data is None:
        raise ArchiveError(NOT_REGULAR.format(file=file))
    return data


def resolve_inside(root: str | os.PathLike, file: str) -> Path | None:
    """The real path of ``file`` under ``root`` (symlinks followed), or None when
    it leads outside ``root``: the one check the indexer and the app's run
    links both make."""
    folder = Path(root).resolve()
    path = (folder / file).resolve()
    return path if path == folder or folder in path.parents else None

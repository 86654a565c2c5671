"""The archive folder on disk: which files might be runs, and what changed.

:func:`scan_folder` lists every file named like a run (:data:`RUN_SUFFIXES`:
recordings and envelopes, event streams, bug report zips) under a folder
(every level, symlinked folders not walked, symlinks named like runs listed as
not read) with its size and modification time, without reading it;
:func:`read_file` reads one through a descriptor opened beneath the folder
(``archive/beneath.py``), never following a symlink, an event stream after
its rotated ``.1`` when one sits beside it. :func:`plan_index` compares
that listing with what the index holds: a file whose size and modification
time are unchanged is not read again; any other is read, and its digest
decides whether it changed. A file that was never read (no digest) is tried
again on every pass.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from stat import S_ISLNK, S_ISREG

from archive.beneath import (NOT_REGULAR_TEXT, SYMLINK_TEXT, ReadFile, TooLarge, list_beneath,
                             read_beneath)
from archive.errors import ArchiveError
from recorders.loading import ROTATED_SUFFIX, join_rotated

# What the loader reads is decided by the bytes; the names only pick what to read.
# A fileArtifacts store's entries (art_*.json) are .json; a stream's rotated
# generation (.ndjson.1) is read with its current file, not on its own.
RUN_SUFFIXES = (".json", ".json.gz", ".ndjson", ".ndjson.gz", ".zip")
STREAM_SUFFIX = ".ndjson"


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
NOT_REGULAR, SYMLINK = NOT_REGULAR_TEXT, SYMLINK_TEXT  # the same words as when read


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
    """Every candidate run file under ``root``, sorted by relative path.

    Listed by descriptor with no recursion (``archive/beneath.py``); one entry
    that cannot be listed becomes that entry's reason, and the listing goes on.
    A symlink named like a run is listed, to say it is not read; symlinks to
    folders are not walked."""
    if not os.path.isdir(root):
        raise ArchiveError(f"{os.fspath(root)!r} is not a folder")
    entries, unlisted = list_beneath(root)
    found: list[FileStat] = []
    for entry in entries:
        if not entry.relative.lower().endswith(RUN_SUFFIXES):
            continue
        problem = None
        if S_ISLNK(entry.mode):
            problem = SYMLINK
        elif not S_ISREG(entry.mode):
            problem = NOT_REGULAR  # a pipe, a socket or a device: never opened
        shown = _text_name(entry.relative)
        if shown != entry.relative:
            problem = BAD_NAME
        found.append(FileStat(shown, entry.size_bytes, entry.mtime_ns,
                              problem.format(file=shown) if problem else None))
    for folder in unlisted:
        found.append(FileStat(_text_name(folder.relative) + "/", 0, 0,
                              f"cannot list this folder ({folder.reason}); the runs "
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
        # A file never read (no digest: a symlink, a pipe, an error, no memory
        # then) is tried again on every pass: cheap, since it was never read,
        # and what kept it out may be gone without its size or time moving.
        if (previous is not None and previous.size_bytes == stat.size_bytes
                and previous.mtime_ns == stat.mtime_ns and previous.sha256):
            unchanged.append(stat)
        else:
            to_read.append(stat)
    # What was indexed from a folder that cannot be listed now is not gone: kept as it is.
    hidden = tuple(f for f in seen if is_folder_entry(f))
    removed = sorted(file for file in known
                     if file not in seen and not (hidden and file.startswith(hidden)))
    return IndexPlan(to_read, unchanged, removed)


def read_file(root: str | os.PathLike, file: str, max_bytes: int) -> ReadFile:
    """The bytes of ``file`` under ``root`` and the ``fstat`` they were read
    under; :class:`archive.beneath.NotReadable` (an ArchiveError) when it is not
    read. No symlink below ``root`` is followed, so what is read is a regular
    file really in the folder, whatever is swapped in while it is opened.

    An event stream (``.ndjson``) is given after its older generation
    ``<file>.1`` (``fileObservability`` rotates at ``maxBytes``), so the run is
    indexed whole; the size and time stay the current file's, which rotation
    always rewrites."""
    read = read_beneath(root, file, max_bytes)
    if not file.lower().endswith(STREAM_SUFFIX):
        return read
    older = _rotated(root, file, max_bytes - len(read.data))
    joined = join_rotated(older, read.data) if older is not None else None
    if joined is None:
        return read
    return ReadFile(joined, read.size_bytes, read.mtime_ns)


def _rotated(root: str | os.PathLike, file: str, max_bytes: int) -> bytes | None:
    """The bytes of ``<file>.1`` beside ``file``, or None when there is none (or
    it is a symlink or not a regular file: never followed, as for any file).
    One past what is left of the limit raises :class:`TooLarge`: the stream is
    then too large as a whole, and is said so rather than read in part."""
    try:
        return read_beneath(root, file + ROTATED_SUFFIX, max(max_bytes, 0)).data
    except TooLarge:
        raise
    except (ArchiveError, OSError):
        return None

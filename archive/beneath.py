"""Reading an archive folder without ever leaving it.

Owns: opening a path relative to a folder's own descriptor one segment at a
time, with ``O_NOFOLLOW`` at every segment and ``O_NONBLOCK`` on the file, then
reading from that descriptor only when ``fstat`` says it is a regular file
within a size bound; listing the folder with an explicit stack (no recursion)
down to :data:`MAX_FOLDER_DEPTH` levels.

Does not own: which names are runs and what changed (``archive/folder.py``),
parsing (``recorders/``).

Why by descriptor: checking that a path resolves inside the folder and then
opening it by name leaves a gap in which the file can be swapped (atomically,
with ``renameat2(RENAME_EXCHANGE)``) for a symlink to a file outside, or for a
FIFO. Opened this way, no symlink is followed anywhere below the folder, so a
swap makes the open fail instead of reaching outside, and a FIFO is opened
without waiting and then refused by its ``fstat``. The folder itself may be
reached through symlinks: the operator chose it.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mode
from dataclasses import dataclass
from typing import Iterator

from archive.errors import ArchiveError

# Deeper folders are listed as one entry saying so: the listing holds one open
# descriptor per level, and no real archive nests this deep.
MAX_FOLDER_DEPTH = 64
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
_READ_PIECE = 16 * 1024**2


class NotReadable(ArchiveError):
    """One entry that is not read; the message names the entry by its path in the
    folder (never the server's path) and says why, in one line; ``kind`` says
    why for code: one of :data:`KINDS`."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


# What a person reads, for a file refused when read and when listed alike.
SYMLINK_TEXT = ("{file} is a symlink; symlinks inside an archive folder are not followed, "
                "not read")
NOT_REGULAR_TEXT = "{file} is not a regular file (a pipe, a socket or a device); not read"

SYMLINK, NOT_REGULAR, TOO_LARGE, GONE, NOT_PLAIN, FAILED = (
    "symlink", "not-regular", "too-large", "gone", "not-a-plain-path", "failed")
KINDS = (SYMLINK, NOT_REGULAR, TOO_LARGE, GONE, NOT_PLAIN, FAILED)


class TooLarge(NotReadable):
    """A file holding more than the bound it was read under."""

    def __init__(self, message: str) -> None:
        super().__init__(message, TOO_LARGE)


@dataclass(frozen=True)
class ReadFile:
    """A file's bytes and the ``fstat`` of the descriptor they were read from."""

    data: bytes
    size_bytes: int
    mtime_ns: int


@dataclass(frozen=True)
class Entry:
    """One name found while listing: its path in the folder ("/"-separated) and
    what ``lstat`` said of it (symlinks are not followed)."""

    relative: str
    mode: int
    size_bytes: int
    mtime_ns: int


@dataclass(frozen=True)
class Unlisted:
    """A folder below the root that could not be listed, and why."""

    relative: str
    reason: str


def open_folder(root: str | os.PathLike) -> int:
    """A descriptor of the folder ``root`` itself (symlinks to it followed)."""
    try:
        return os.open(root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    except (OSError, ValueError) as error:
        raise ArchiveError(f"cannot open the folder {os.fspath(root)!r}: "
                           f"{_reason(error)}") from None


def read_beneath(root: str | os.PathLike, relative: str, max_bytes: int) -> ReadFile:
    """The bytes of ``relative`` under ``root``, read from one descriptor opened
    without following any symlink below ``root``. :class:`NotReadable` when a
    segment is a symlink, the file is not regular, or it holds more than
    ``max_bytes`` (checked by ``fstat`` before reading, and while reading, since
    a file may grow)."""
    folder = open_folder(root)
    try:
        descriptor = open_beneath(folder, relative)
    finally:
        os.close(folder)
    with open(descriptor, "rb", buffering=0) as handle:
        info = os.fstat(descriptor)
        if not stat_mode.S_ISREG(info.st_mode):
            raise NotReadable(NOT_REGULAR_TEXT.format(file=relative), NOT_REGULAR)
        if info.st_size > max_bytes:
            raise TooLarge(_too_large(relative, max_bytes))
        data = _read_at_most(handle, relative, max_bytes)
    return ReadFile(data, len(data), info.st_mtime_ns)


def open_beneath(folder: int, relative: str) -> int:
    """A descriptor of ``relative`` under the folder descriptor ``folder``:
    every segment opened relative to the one before with ``O_NOFOLLOW``."""
    segments = relative.split("/")
    if any(part in ("", ".", "..") for part in segments) or "\0" in relative:
        raise NotReadable(f"{relative} is not a plain path inside the folder; not read",
                          NOT_PLAIN)
    current = folder
    try:
        for depth, part in enumerate(segments):
            last = depth == len(segments) - 1
            try:
                opened = os.open(part, _FILE_FLAGS if last else _DIRECTORY_FLAGS,
                                 dir_fd=current)
            except OSError as error:
                raise _open_problem(relative, segments[:depth + 1], last, error) from None
            if current != folder:
                os.close(current)
            current = opened
        return current
    except BaseException:
        if current != folder:
            os.close(current)
        raise


def list_beneath(root: str | os.PathLike) -> tuple[list[Entry], list[Unlisted]]:
    """Every entry under ``root`` that is not a folder (symlinks included, as
    themselves), walked with an explicit stack; folders below
    :data:`MAX_FOLDER_DEPTH` levels, and folders that cannot be opened or
    listed, come back as :class:`Unlisted`. Symlinks to folders are entries,
    not walked."""
    entries: list[Entry] = []
    unlisted: list[Unlisted] = []
    folder = open_folder(root)
    # Each frame: (descriptor, its path in the folder, its subfolders still to walk).
    stack: list[tuple[int, str, Iterator[str]]] = []
    try:
        subfolders = _list_one(folder, "", entries)
    except OSError as error:
        os.close(folder)
        raise ArchiveError(f"cannot list the folder {os.fspath(root)!r}: "
                           f"{_reason(error)}") from None
    stack.append((folder, "", iter(subfolders)))
    try:
        while stack:
            descriptor, prefix, pending = stack[-1]
            name = next(pending, None)
            if name is None:
                os.close(descriptor)
                stack.pop()
                continue
            relative = prefix + name
            if len(stack) >= MAX_FOLDER_DEPTH:
                unlisted.append(Unlisted(relative, f"more than {MAX_FOLDER_DEPTH} folders "
                                                   "deep; the runs below it are not read"))
                continue
            try:
                child = os.open(name, _DIRECTORY_FLAGS, dir_fd=descriptor)
            except OSError as error:
                unlisted.append(Unlisted(relative, _reason(error)))
                continue
            try:
                children = _list_one(child, relative + "/", entries)
            except OSError as error:
                os.close(child)
                unlisted.append(Unlisted(relative, _reason(error)))
                continue
            stack.append((child, relative + "/", iter(children)))
    finally:
        for descriptor, _, _ in stack:
            os.close(descriptor)
    return entries, unlisted


def _list_one(descriptor: int, prefix: str, entries: list[Entry]) -> list[str]:
    """Add the folder's non-folder entries; return its subfolders' names, sorted.
    An entry that vanishes between its listing and its ``lstat`` is left out (it
    is not in the folder any more)."""
    subfolders: list[str] = []
    with os.scandir(descriptor) as listing:
        for item in listing:
            try:
                info = item.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat_mode.S_ISDIR(info.st_mode):
                subfolders.append(item.name)
            else:
                entries.append(Entry(prefix + item.name, info.st_mode, info.st_size,
                                     info.st_mtime_ns))
    subfolders.sort()
    return subfolders


def _read_at_most(handle, relative: str, max_bytes: int) -> bytes:
    """At most ``max_bytes`` from ``handle``; NotReadable when there is more."""
    out = bytearray()
    while True:
        try:
            piece = handle.read(min(_READ_PIECE, max_bytes + 1 - len(out)))
        except OSError as error:
            raise NotReadable(f"cannot read {relative}: {_reason(error)}", FAILED) from None
        if not piece:
            return bytes(out)
        out += piece
        if len(out) > max_bytes:
            raise TooLarge(_too_large(relative, max_bytes))


def _open_problem(relative: str, reached: list[str], last: bool,
                  error: OSError) -> NotReadable:
    where = "/".join(reached)
    if error.errno == errno.ELOOP or (not last and error.errno == errno.ENOTDIR):
        # O_NOFOLLOW on a symlink: ELOOP for the file, ENOTDIR for a folder segment.
        if where == relative:
            return NotReadable(SYMLINK_TEXT.format(file=relative), SYMLINK)
        return NotReadable(f"{relative} is under {where}, which is a symlink or not a "
                           "folder; symlinks inside an archive folder are not followed, "
                           "not read", SYMLINK)
    if error.errno == errno.ENOENT:
        return NotReadable(f"{relative} is no longer in the folder", GONE)
    return NotReadable(f"cannot read {relative}: {_reason(error)}", FAILED)


def _too_large(relative: str, max_bytes: int) -> str:
    return (f"{relative} holds more than {max_bytes / 1024**2:,.0f} MiB, the limit "
            "(LENS_MAX_EXPANDED_MB); not read")


def _reason(error: BaseException) -> str:
    """The system's words for an error, without the path it names."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return type(error).__name__

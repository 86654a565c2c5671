"""Read a file of an operator-configured folder (an archive folder, the follow
folder) by its label and its path in the folder, never leaving the folder.

The label maps to a folder the operator configured; the file is read through a
descriptor opened beneath that folder, following no symlink
(``archive/beneath.py``), so nothing from the browser, and nothing swapped
into the folder while it is read, can reach another file.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Callable

from archive.beneath import (GONE, NOT_PLAIN, SYMLINK, NotReadable, open_beneath, open_folder,
                             read_beneath)
from archive.errors import ArchiveError
from lens_ui.server_limits import server_limits


class FolderFileRefused(OSError):
    """A file that is not read (a symlink, not a regular file, too large, or
    gone); ``kind`` is :class:`archive.beneath.NotReadable`'s."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def read_in_folder(folders: dict[str, Path], label: str, file: str) -> bytes:
    """The bytes of ``file`` in the folder labelled ``label``: KeyError for a
    label that is not configured or a path that is not a plain path inside
    its folder, :class:`FolderFileRefused` when the file is not there to read
    (gone, a symlink, not a regular file, or larger than ``LENS_MAX_EXPANDED_MB``)."""
    folder = folders[label]
    try:
        return read_beneath(folder, file, server_limits().max_expanded_bytes).data
    except NotReadable as refused:
        if refused.kind == NOT_PLAIN:
            raise KeyError(file) from None
        raise FolderFileRefused(refused.kind) from None
    except ArchiveError:  # the folder itself cannot be opened
        raise FolderFileRefused(GONE) from None


def opener_beneath(folder: Path) -> Callable[[Path], int]:
    """An opener for :class:`lens.follow.FollowedFile`: each path (inside
    ``folder``) opened beneath the folder's descriptor without following a
    symlink, at every poll, so a file swapped for a symlink is refused then.
    A file not there is FileNotFoundError; one refused is PermissionError
    with the reason (a symlink, not a regular file, not inside the folder)."""
    def open_(path: Path) -> int:
        try:
            relative = Path(path).relative_to(folder).as_posix()
        except ValueError:
            raise PermissionError(errno.EACCES, f"{path} is not inside the follow folder") \
                from None
        descriptor = open_folder(folder)
        try:
            return open_beneath(descriptor, relative)
        except NotReadable as refused:
            if refused.kind == GONE:
                raise FileNotFoundError(errno.ENOENT, str(refused)) from None
            reason = (f"{relative} is a symlink; symlinks in a follow folder are not followed"
                      if refused.kind == SYMLINK else str(refused))
            raise PermissionError(errno.EACCES, reason) from None
        finally:
            os.close(descriptor)
    return open_

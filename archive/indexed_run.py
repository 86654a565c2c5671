"""Opening a run file of an archive as it was indexed.

Owns: reading the file beneath the folder (never leaving it, within the
loader's expanded-size bound), checking its bytes still hash to the indexed
``sha256``, and opening it; one :class:`IndexedRunProblem` naming which of the
three failed.

Does not own: what a caller does with the run (checking a labelled step,
exporting what the model was served) or how it words the refusal.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

from archive.beneath import read_beneath
from archive.errors import ArchiveError
from archive.limits import file_limits

if TYPE_CHECKING:
    from lens.run import OpenRun

UNREADABLE = "unreadable"
CHANGED = "changed"
UNOPENABLE = "unopenable"


class IndexedRunProblem(ArchiveError):
    """The indexed run cannot be had now: ``kind`` says why (:data:`UNREADABLE`,
    :data:`CHANGED` since indexing, :data:`UNOPENABLE`); the text is the reason."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


def open_indexed_run(folder: str | os.PathLike, file: str, sha256: str) -> "OpenRun":
    # Imported here: the index itself never opens runs.
    from lens.run import open_run
    from recorders.errors import RecordingError

    try:
        data = read_beneath(folder, file, file_limits().max_expanded_bytes).data
    except (ArchiveError, OSError) as error:
        raise IndexedRunProblem(UNREADABLE, str(error)) from None
    if hashlib.sha256(data).hexdigest() != sha256:
        raise IndexedRunProblem(CHANGED, f"{file} changed since it was indexed")
    try:
        return open_run(data)
    except RecordingError as error:
        raise IndexedRunProblem(UNOPENABLE, str(error)) from None

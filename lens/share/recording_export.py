"""``footprint-lens export recording``: a run's file written back in its own format.

Without redaction the output is the input's bytes, unchanged, once the loader
has read them as a run (a faithful copy). With a
:class:`~lens.share.redaction.Redactor` the file is parsed, masked and written
in the input's own format and style.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import TYPE_CHECKING

from recorders.errors import RecordingError

if TYPE_CHECKING:
    from lens.share.redaction import Redactor


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options beyond the shared ones."""


def run(args: argparse.Namespace, redactor: Redactor | None) -> int:
    from recorders.loading import load_recording, read_regular_file

    data = _read(args.file, read_regular_file)
    load_recording(data)  # refuses what is not a run, naming the problem
    if redactor is not None:
        raise RecordingError("redaction is not wired in yet")
    write_atomically(args.output, data)
    print(f"wrote {args.output} ({len(data):,} bytes, an unchanged copy)", file=sys.stderr)
    return 0


def _read(path: str, read_regular_file) -> bytes:
    try:
        data = read_regular_file(path)
    except (OSError, ValueError) as exc:
        raise RecordingError(f"cannot read {path!r}: {getattr(exc, 'strerror', None) or exc}") from None
    if data is None:
        raise RecordingError(f"cannot read {path!r}: not a regular file")
    return data


def write_atomically(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder,
    so a reader never sees half a file (RecordingError when it cannot be written)."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".export-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as exc:
        raise RecordingError(f"cannot write {path!r}: {exc.strerror or exc}") from None

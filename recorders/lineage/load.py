"""A recording's snapshot with its commit log, read through the loader.

Owns: nothing of the reading itself. The loader (recorders/loading.py) drops
the snapshot's engine bookkeeping (commitLog, executionTree) from what it
keeps, so here the file is parsed whole with the loader's own parser and
interpreted with the loader's own shape detection; every format and every
error message is the loader's.
"""

from __future__ import annotations

import os

from recorders.errors import RecordingError
from recorders.lineage.errors import NoCommitLog
from recorders.loading import interpret, load_file, parse_json, read_path
from recorders.read import names


def snapshot_of(data: bytes) -> dict:
    """The snapshot (with its commit log) of a file's bytes; NoCommitLog when
    there is none, RecordingError when the loader cannot read the file."""
    try:
        recording = interpret(parse_json(data))
    except RecordingError:
        # Not one JSON document (an event stream, a bug report zip, ...): the
        # loader says what it is, or why it cannot be read.
        kind = load_file(data).kind
        if kind == names.BUG_REPORT:
            raise NoCommitLog("slice does not read the runs inside a bug report zip (the loader "
                              "keeps no commit log from them): unzip it and slice the recording "
                              "it holds") from None
        raise NoCommitLog(f"a file of kind {kind!r} holds events only, no snapshot: no commit "
                          "log to trace values through; slice needs a recording or an "
                          "envelope with its snapshot") from None
    snapshot = recording.snapshot
    if not isinstance(snapshot, dict):
        raise NoCommitLog(f"the {recording.source_kind} has no snapshot, so no commit log to "
                          "trace values through")
    if "commitLog" not in snapshot:
        raise NoCommitLog(f"the {recording.source_kind}'s snapshot has no commitLog, so there "
                          "is nothing to trace values through")
    return snapshot


def snapshot_of_path(path: str | os.PathLike) -> dict:
    return snapshot_of(read_path(path))

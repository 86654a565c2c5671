"""The error the lineage queries raise when a file cannot answer them."""

from recorders.errors import RecordingError


class NoCommitLog(RecordingError):
    """The file holds no snapshot, or a snapshot without a readable commit log,
    so there is nothing to trace a value back through. A RecordingError, so the
    command line reports it as one line and status 2."""

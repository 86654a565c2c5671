"""The one error type the loader and the projections raise for bad input."""


class RecordingError(ValueError):
    """A file cannot be read as an agentfootprint recording.

    The message names the problem and where it is, e.g.
    ``events[412]: expected an object, found a string``. Callers show it to a
    person as it is; it never carries a traceback's worth of detail.
    """


class NothingWrittenYet(RecordingError):
    """An event stream with no event in it yet (agentfootprint creates the file
    before its first flush): a state to say, not a fault in the file."""


class ExpansionRefused(RecordingError):
    """Compressed data that would expand past ``limit`` bytes; refused while
    expanding, before the whole of it is held."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"the gzip data expands beyond {limit / 1024**2:,.0f} MiB; refused")

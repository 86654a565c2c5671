"""The archive's one error type: a problem said in one line, never a traceback."""


class ArchiveError(Exception):
    """An index that cannot be built or queried as asked (bad folder, refused SQL,
    an index in use by another process); the message is for people."""

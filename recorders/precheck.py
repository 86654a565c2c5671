"""Cheap checks of a file before it is opened: what can be refused without parsing.

A server opens one run at a time (opening costs several times the file's size
in memory), so a file that will be refused anyway must be refused before it
queues behind other users' opens. :func:`precheck` reads the bytes once, in
bounded memory: a gzipped file is decompressed in chunks that are counted and
let go (so a bomb costs a chunk, not its expanded size), and the expanded text
must start like a JSON object or list. It answers the expanded size, so the
caller can also compare the opening cost with its memory budget.

It refuses with the same :class:`RecordingError` messages as the loader
(``recorders/loading.py``), which still applies every check when it opens.
"""

from __future__ import annotations

import zlib

from recorders.errors import ExpansionRefused, RecordingError

_GZIP_MAGIC = b"\x1f\x8b"
_INPUT_CHUNK = 64 * 1024  # compressed bytes fed at a time
_OUTPUT_CHUNK = 1024 * 1024  # expanded bytes held at a time
_WHITESPACE = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"
_HEAD_BYTES = 64  # enough expanded text to find the first character past whitespace


def precheck(data: bytes, limit: int) -> int:
    """The expanded size of ``data`` (gzipped or not), or a RecordingError when
    it is empty, gzip that is broken or expands beyond ``limit`` bytes, or text
    that cannot start a JSON object or list (so it cannot be a recording).

    Plain bytes are not held to ``limit``: they are already in memory, and
    whatever sent them (an upload, an archive folder) has its own bound."""
    if data.startswith(_GZIP_MAGIC):
        size, head = _scan_gzip(data, limit)
    else:
        size, head = len(data), data[:_HEAD_BYTES]
    _check_head(head, size)
    return size


def _check_head(head: bytes, size: int) -> None:
    text = head.removeprefix(_BOM).lstrip(_WHITESPACE)
    if not text:
        # All whitespace so far: empty if that is the whole file, else undecided.
        if size <= len(head):
            raise RecordingError("the file is empty")
        return
    if text[:1] not in (b"{", b"["):
        raise RecordingError("the file is not a recording: its text does not start with "
                             "a JSON object or list")


def _scan_gzip(data: bytes, limit: int) -> tuple[int, bytes]:
    """Decompress every gzip member in turn, counting the output and keeping
    only its first bytes; refuse as soon as the count passes ``limit``."""
    size, head = 0, b""
    view = memoryview(data)
    start = 0
    while True:
        decompressor = zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)
        while not decompressor.eof:
            if start >= len(view):
                raise RecordingError("the gzip data is truncated (the stream ends early)")
            pending = view[start:start + _INPUT_CHUNK]
            start += len(pending)
            while pending:
                try:
                    out = decompressor.decompress(pending, _OUTPUT_CHUNK)
                except zlib.error as exc:
                    raise RecordingError(f"the gzip data is corrupt ({exc})") from None
                size += len(out)
                if size > limit:
                    raise ExpansionRefused(limit)
                if len(head) < _HEAD_BYTES:
                    head += out[:_HEAD_BYTES - len(head)]
                del out  # let this chunk go before the next is made
                if decompressor.eof:
                    break
                pending = decompressor.unconsumed_tail
        # What follows this member was fed in the last chunk, then the rest of the input.
        start -= len(decompressor.unused_data)
        rest = view[start:]
        if bytes(rest[:2]) == _GZIP_MAGIC:
            continue  # a further member is legal gzip; read it the same way
        if bytes(rest).strip(b"\x00"):
            raise RecordingError("the gzip data is followed by unexpected bytes")
        return size, head

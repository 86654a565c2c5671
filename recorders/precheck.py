"""Cheap checks of a file before it is opened: what can be refused without parsing.

A server opens one run at a time (opening costs several times the file's size
in memory), so a file that will be refused anyway must be refused before it
queues behind other users' opens. :func:`precheck` is that check for every
kind of file the loader (``recorders/loading.py``) reads, sniffed from the
bytes as the loader sniffs them, never from a name:

- a bug report zip: its entries are checked before any is inflated, by the
  bug report kind's own precheck (``recorders/read/bug_report.py``, with
  :func:`recorders.bug_report.checked_entries`:
  the entry count, names with path tricks, each declared size and their sum
  against the bound, a bomb's ratio), and the answer is the sum of the sizes
  the entries declare;
- gzip: decompressed in chunks that are counted and let go (so a bomb costs a
  chunk, not its expanded size); what it holds is then checked as below. A
  gzipped zip is not written by agentfootprint, but the loader reads one as
  the zip, so it is checked as a zip too, which needs the zip whole (at most
  ``limit`` bytes, as the loader holds it);
- empty or whitespace-only text: not refused. agentfootprint's event stream
  is empty before its first flush, and the loader says so ("nothing written
  yet") rather than refusing the file;
- any other text must start like a JSON object or list (a JSON document, or
  an NDJSON stream, whose lines are objects).

It answers the expanded size, so the caller can also compare the opening cost
with its memory budget. It refuses with the same :class:`RecordingError`
messages as the loader, which still applies every check when it opens.
"""

from __future__ import annotations

import zlib

from recorders.errors import ExpansionRefused, RecordingError
from recorders.loading import gunzip
from recorders.read.names import BUG_REPORT
from recorders.read.registry import kind_named

_ZIP = kind_named(BUG_REPORT)

_GZIP_MAGIC = b"\x1f\x8b"
_INPUT_CHUNK = 64 * 1024  # compressed bytes fed at a time
_OUTPUT_CHUNK = 1024 * 1024  # expanded bytes held at a time
_WHITESPACE = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"
_HEAD_BYTES = 64  # enough expanded text to find the first character past whitespace


def precheck(data: bytes, limit: int) -> int:
    """The expanded size of ``data`` (a zip's entries summed; gzip expanded),
    or a RecordingError when it is a zip whose entries the loader would refuse
    before inflating them, gzip that is broken or expands beyond ``limit``
    bytes, or text that cannot start a JSON object or list (so it cannot be a
    file Lens reads). Empty text is not refused: it is an event stream with
    nothing written yet.

    Plain bytes are not held to ``limit``: they are already in memory, and
    whatever sent them (an upload, an archive folder) has its own bound."""
    if _ZIP.sniff_bytes(data):
        return _ZIP.precheck(data, limit)
    if not data.startswith(_GZIP_MAGIC):
        _check_head(data[:_HEAD_BYTES])
        return len(data)
    size, head = _scan_gzip(data, limit)
    if head.startswith(_GZIP_MAGIC):
        raise RecordingError("the file is gzip inside gzip; Lens undoes one layer")
    if _ZIP.sniff_bytes(head):
        return _ZIP.precheck(gunzip(data, limit), limit)
    _check_head(head)
    return size


def _check_head(head: bytes) -> None:
    text = head.removeprefix(_BOM).lstrip(_WHITESPACE)
    if not text:
        # All whitespace so far: empty (a stream with nothing written yet, as
        # the loader says) if that is the whole file, else undecided.
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

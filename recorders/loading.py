"""Read a saved agentfootprint run into a validated :class:`Recording`.

Accepted inputs (sniffed from the bytes, never from a file name):

1. a recording ``{snapshot, events, structure}`` from ``recordRun(...).toRecording()``;
2. an ``agentfootprint.recording.v1`` envelope holding such a recording;
3. either of those gzipped;
4. a bare boundary-event list (``DomainEvent[]``), which has no typed stream;
5. the NDJSON event stream ``fileObservability`` appends (typed events only,
   one run per ``meta.runId``; empty while nothing is written yet);
6. a ``Trace`` from ``localObservability`` (its events are the boundary log);
7. a bug report zip from ``exportBugReport`` (``recorders/bug_report.py``);
8. a ``recording/run`` entry of a ``fileArtifacts`` store (the recording inside);
9. a packed recording and an ``auditExport()`` bundle.

Which kind a file is, and the reader of each kind, come from one table
(``recorders/read/registry.py``, a module per kind beside it); this module
holds the bytes (gzip, UTF-8), the parse and the entry points, and asks the
table what the bytes, then the parsed document, are.

:func:`load_file` gives every run a file holds (:class:`LoadedFile`);
:func:`load_recording` the first (saying so when there are more). Files
agentfootprint writes that are not runs (a checkpoint, a thinking trace, a bug
report's manifest) are refused by name (``recorders/read/not_runs.py``).

Anything else raises :class:`RecordingError` naming the problem and where it
is. What a readable file does not carry (lean payloads, an incomplete run,
dropped events, several runs, unknown event types, a missing structure) is
reported as :class:`Gap` entries instead of being hidden.

Each event is checked once, for the fields the projections read, in the same
pass that counts it (``recorders/validation.py``, which every reader calls).

Only what the views read is kept. The snapshot's engine bookkeeping
(``executionTree``, ``subflowResults``, ``commitLog``: three quarters of a
large file, and no view reads them) is parsed, so a malformed or too-deep
file is refused exactly as before, and dropped as soon as it is read; the
dropped keys are listed in ``Recording.dropped_snapshot_keys``. Parsing the
whole document and dropping afterwards would hold all of it at once: the
peak memory of opening a file is what this saves. Parsing raises the
recursion limit and pauses the cyclic garbage collector for its own length
only (``recorders/deep_parse.py``): the caller's process is left as it was.
"""

from __future__ import annotations

import json
import math
import os
import stat
import zlib
from typing import Any

from recorders import fast_parse, packed
from recorders.deep_parse import MAX_NESTING_DEPTH, PARSE_RECURSION_LIMIT, parsing
from recorders.errors import ExpansionRefused, NothingWrittenYet, RecordingError
from recorders.read import names
from recorders.read.event_stream import is_blank, is_stream_text
from recorders.read.model import LoadedFile, NestedReader, Recording
from recorders.read.registry import bytes_kind, document_kind, kind_named
from recorders.surrogates import may_hold_lone_surrogates, mend_lone_surrogates, mended_gap

# Kept importable from here, where other modules and tests have long found them.
from recorders.gaps import Gap  # noqa: F401
from recorders.read.envelope import ENVELOPE_FORMAT  # noqa: F401
from recorders.read.recording import BOUNDARY_RECORDER_NAME  # noqa: F401
from recorders.values import shown_text  # noqa: F401


# A gzip member may not expand beyond this: a guard against decompression bombs.
MAX_DECOMPRESSED_BYTES = 2 * 1024**3
_GUNZIP_PIECE = 64 * 1024**2

_GZIP_MAGIC = b"\x1f\x8b"

# The one file agentfootprint leaves empty: the stream fileObservability claims
# before its first flush. Said so, with the other ways a file ends up empty.
NOTHING_WRITTEN = ("the file is empty: the event stream has nothing written yet "
                   "(fileObservability creates the file before its first flush), "
                   "or the file was cut to nothing")
ROTATED_SUFFIX = ".1"  # fileObservability's one older generation, beside the file

# Snapshot members no view reads (see the module doc), dropped while parsing.
UNREAD_SNAPSHOT_KEYS = frozenset({"executionTree", "subflowResults", "commitLog"})
_WHITESPACE = json.decoder.WHITESPACE.match  # what json.loads skips between tokens


# ─── Entry points ──────────────────────────────────────────────────────


def load_path(path: str | os.PathLike) -> Recording:
    """Read and load a file (after its rotated ``.1``, for an event stream);
    an unreadable path is a RecordingError too."""
    return first_run(load_path_file(path))


def load_path_file(path: str | os.PathLike, *, limit: int | None = None) -> LoadedFile:
    """:func:`load_file` of the file at ``path``. An event stream's older
    generation ``<path>.1``, when it sits beside it, is read first, so the
    runs are the whole stream with nothing lost or repeated."""
    data = read_path(path)
    older_path = os.fspath(path) + ROTATED_SUFFIX
    older = read_path(older_path) if os.path.isfile(older_path) else None
    joined = join_rotated(older, data) if older is not None else None
    loaded = load_file(joined if joined is not None else data, limit=limit)
    if joined is not None:
        loaded.notes.insert(0, f"read {os.path.basename(older_path)} (the stream's older "
                               "generation, rotated by maxBytes) first, then the file")
    return loaded


def read_path(path: str | os.PathLike) -> bytes:
    """The bytes of the regular file at ``path``; RecordingError naming the path
    and the reason when it cannot be read or is not a regular file."""
    try:
        data = read_regular_file(path)
    except OSError as exc:
        raise RecordingError(f"cannot read {os.fspath(path)!r}: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL byte or an unencodable character in the name
        raise RecordingError(f"cannot read {os.fspath(path)!r}: {exc}") from None
    if data is None:
        raise RecordingError(f"cannot read {os.fspath(path)!r}: not a regular file "
                             "(a folder, a pipe or a device)")
    return data


def join_rotated(older: bytes, current: bytes) -> bytes | None:
    """``older`` (a stream's ``.1``) then ``current`` as one stream, when both
    are event streams (the current one may be empty, just rotated); None
    otherwise, and the current file is read alone."""
    if not (_is_stream_bytes(older) and (is_blank(current) or _is_stream_bytes(current))):
        return None
    if older and not older.endswith(b"\n"):
        older += b"\n"  # rotation happens between batches; a line never spans the two
    return older + current


def _is_stream_bytes(data: bytes) -> bool:
    return (not data.startswith(_GZIP_MAGIC) and not is_blank(data)
            and is_stream_text(data))


def load_file(data: bytes | bytearray | str, *, name: str | None = None, fast: bool = True,
              limit: int | None = None) -> LoadedFile:
    """Every run in ``data``, its kind sniffed from the bytes (``name`` is only
    used in what is said about the file, never to decide its kind).

    ``limit`` bounds what gzip and zip may expand to (by default
    :data:`MAX_DECOMPRESSED_BYTES`); a zip is checked before it is inflated."""
    raw = _plain(data, limit)
    if is_blank(raw):
        called = f"{name}: " if name else ""
        return LoadedFile(names.EVENT_STREAM, [], notes=[called + NOTHING_WRITTEN])
    whole = bytes_kind(raw)  # a zip (gzipped too: read as the zip), an event stream
    if whole is not None:
        return whole.read_bytes(raw, _nested(fast, limit))
    recording = _document_run(raw, fast)
    kind = kind_named(recording.source_kind)
    loaded = LoadedFile(kind.name, kind.runs(recording), audit=recording.audit)
    loaded.notes.extend(kind.notes(recording))
    return loaded


def _nested(fast: bool, limit: int | None) -> NestedReader:
    """What a kind's reader reads the documents inside its file with: this module's parse."""
    return NestedReader(document_run=_document_run, interpret=interpret, parse=_parse_entry,
                        fast=fast, limit=MAX_DECOMPRESSED_BYTES if limit is None else limit)


def first_run(loaded: LoadedFile) -> Recording:
    """The file's first run; with several, a gap says how many and how to see
    the others. An empty event stream has none: RecordingError."""
    if not loaded.runs:
        raise NothingWrittenYet(NOTHING_WRITTEN)
    first = loaded.runs[0]
    count = len(loaded.runs)
    if count > 1:
        what = "conversations" if loaded.kind == names.BUG_REPORT else "runs"
        several = Gap(
            "several-runs",
            f"the file holds {count} runs ({what} told apart by their run id); this is the "
            f"first. Choose another in the app, or with --run N (1 to {count}) on the "
            "command line")
        if several not in first.gaps:  # asked again of the same file: said once
            first.gaps.append(several)
    return first


def read_regular_file(path: str | os.PathLike) -> bytes | None:
    """The bytes of the file at ``path``, or None when it is not a regular file.

    Opened without blocking, so a FIFO does not wait for a writer, and read only
    when regular (a device such as /dev/zero never ends). OSError as opening or
    reading raises it."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                         | getattr(os, "O_BINARY", 0))
    with open(descriptor, "rb") as handle:
        return handle.read() if stat.S_ISREG(os.fstat(handle.fileno()).st_mode) else None


def load_recording(data: bytes | bytearray | str, *, fast: bool = True) -> Recording:
    """Load a recording from its bytes (plain or gzipped JSON, or any kind
    :func:`load_file` reads) or its text: the file's first run.

    Bytes are parsed by :mod:`recorders.fast_parse` when msgspec is installed
    and it accepts them, otherwise (and with ``fast=False``, which the tests use
    to compare the two) by the json module: the result, or the error, is the same.
    """
    return first_run(load_file(data, fast=fast))


def _document_run(raw: bytes | str, fast: bool) -> Recording:
    """The run of one JSON document (a recording, an envelope, a Trace, ...)."""
    mended = 0
    with parsing(PARSE_RECURSION_LIMIT):
        parsed = _parse_fast(raw) if fast and isinstance(raw, bytes) else None
        if parsed is None:
            text = _text(raw)
            del raw
            chars = len(text)
            halves = may_hold_lone_surrogates(text)
            document, dropped = _loads_kept(text)
            del text
            # The fast parse refuses them, so only this path meets them. An audit
            # bundle's hashes cover them as written: its reader mends after checking.
            if halves and not kind_named(names.AUDIT_BUNDLE).sniff(document):
                mended = mend_lone_surrogates(document)
        else:
            del raw
            document, dropped, chars = parsed
        recording = interpret(document)
    if mended:
        recording.gaps.append(mended_gap(mended))
    # A document inside this one (an artifact's payload) reports its own.
    recording.dropped_snapshot_keys = tuple(sorted({*dropped, *recording.dropped_snapshot_keys}))
    recording.source_chars = chars
    return recording


def _plain(data: bytes | bytearray | str, limit: int | None) -> bytes | str:
    """:func:`unpack`, except that an empty file is given back (empty) to be said so."""
    if isinstance(data, (bytes, bytearray)) and not bytes(data[:2]) == _GZIP_MAGIC:
        return bytes(data)
    if isinstance(data, str):
        return data
    try:
        return unpack(data, limit)
    except ExpansionRefused:
        raise
    except RecordingError as exc:
        if str(exc) == "the file is empty":
            return b""
        raise


def _parse_fast(raw: bytes) -> tuple[Any, tuple[str, ...], int] | None:
    """The fast parse's (document, dropped names, characters), or None when it declines."""
    if not fast_parse.available():
        return None
    try:
        return packed.parse_kept(raw, _KeptParse.TOP)  # fast_parse's, a packed file expanded
    except fast_parse.Declined:
        return None


def parse_json(data: bytes | bytearray | str) -> Any:
    """Decompress if gzipped, decode UTF-8 (a BOM is allowed) and parse JSON (all of it)."""
    return _loads_deep(_decode(data))


def _decode(data: bytes | bytearray | str) -> str:
    """The JSON text of ``data``; decompressed bytes are let go before parsing."""
    return _text(unpack(data))


def unpack(data: bytes | bytearray | str, limit: int | None = None) -> bytes | str:
    """The JSON bytes (or text) of ``data``, gzip undone (expanding to at most
    ``limit`` bytes; by default :data:`MAX_DECOMPRESSED_BYTES`); RecordingError
    when empty or not readable gzip. Loading what this returns does not unpack
    again."""
    if isinstance(data, (bytes, bytearray)):
        raw = bytes(data)
        if raw.startswith(_GZIP_MAGIC):
            raw = _gunzip(raw, limit)
        if not raw or raw.isspace():  # isspace stops at the first other byte; strip copies
            raise RecordingError("the file is empty")
        return raw
    if isinstance(data, str):
        text = data.removeprefix("\ufeff")
        if not text or text.isspace():
            raise RecordingError("the file is empty")
        return data
    raise RecordingError(f"expected bytes or text, found {type(data).__name__}")


def _text(raw: bytes | str) -> str:
    """The JSON text: bytes decoded as UTF-8, a leading byte-order mark dropped."""
    if isinstance(raw, str):
        return raw[1:] if raw.startswith("\ufeff") else raw
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RecordingError(
            f"the file is not valid UTF-8 (byte {exc.start}: {exc.reason})"
        ) from None


def gunzip(raw: bytes, limit: int | None = None) -> bytes:
    """Decompress gzip bytes, refusing (RecordingError) as soon as the output
    would pass ``limit`` bytes: a caller with a tighter bound than the
    loader's own (a server tied to its upload limit) passes it here."""
    return _gunzip(raw, limit)


def _gunzip(raw: bytes, limit: int | None = None) -> bytes:
    """Decompress every gzip member in turn, the size guard counting across all of them
    (``limit`` bytes; by default :data:`MAX_DECOMPRESSED_BYTES`, read at call time)."""
    if limit is None:
        limit = MAX_DECOMPRESSED_BYTES
    out = bytearray()
    rest = raw
    while True:
        decompressor = zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)
        pending = rest
        while not decompressor.eof:
            # In pieces, so a bomb costs the limit once, not the limit and a
            # piece as large; one byte past the room shows it would overflow.
            room = limit - len(out)
            try:
                piece = decompressor.decompress(pending, min(room + 1, _GUNZIP_PIECE))
            except zlib.error as exc:
                raise RecordingError(f"the gzip data is corrupt ({exc})") from None
            out += piece
            if len(out) > limit:
                raise ExpansionRefused(limit)
            pending = decompressor.unconsumed_tail
            if not piece and not pending:
                break  # the input is spent and the stream has not ended
        if not decompressor.eof:
            raise RecordingError("the gzip data is truncated (the stream ends early)")
        # A further gzip member after this one is legal gzip; read it the same way.
        rest = decompressor.unused_data
        if not rest.strip(b"\x00"):
            if out.startswith(_GZIP_MAGIC):
                # Never written by agentfootprint, and each layer would be held
                # to the limit on its own: a few hundred bytes could expand past it.
                raise RecordingError("the file is gzip inside gzip; Lens undoes one layer")
            return bytes(out)
        if not rest.startswith(_GZIP_MAGIC):
            raise RecordingError("the gzip data is followed by unexpected bytes")


def _reject_constant(name: str) -> Any:
    raise RecordingError(f"the file is not standard JSON: it contains the constant {name}")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise RecordingError(f"the number {literal[:40]} is too large to represent")
    return value


def _decoder() -> json.JSONDecoder:
    return json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)


def _loads_kept(text: str) -> tuple[Any, tuple[str, ...]]:
    """Parse ``text``, dropping the unread snapshot members as they are read.

    Any problem at all sends the text to the plain parser, whose error
    message (or, should the two ever disagree, whose result) is the one given.
    """
    try:
        return _KeptParse(text).document()
    except Exception:  # noqa: BLE001 - the plain parse below names the problem
        pass
    return _loads_deep(text), ()


class _KeptParse:
    """Walk the top of a recording (or envelope) object key by key with the
    json module's own scanner, so that the snapshot's unread members are
    parsed one at a time and never held together. Anything unexpected raises
    ``_NotPlain``, and the caller parses the text the ordinary way.

    ``TOP`` is the plan (``recorders.fast_parse`` follows the same one): a
    member named with a dict is walked with that plan when it holds an
    object, one named with None is dropped. Dropped names are reported from
    the objects kept: when a name repeats, the last value counts, as in
    ``json.loads``, and so do only the names it dropped."""

    _SNAPSHOT: dict = {key: None for key in UNREAD_SNAPSHOT_KEYS}
    TOP: dict = {"snapshot": _SNAPSHOT, "recording": {"snapshot": _SNAPSHOT}}

    def __init__(self, text: str) -> None:
        self.text = text
        self.scan = _decoder().scan_once

    def document(self) -> tuple[Any, tuple[str, ...]]:
        text = self.text
        start = self._space(0)
        dropped: list[str] = []
        if text.startswith("{", start):
            value, dropped, end = self._object(start, self.TOP)
        else:
            value, end = self.scan(text, start)
        if self._space(end) != len(text):
            raise _NotPlain
        return value, tuple(dict.fromkeys(dropped))

    def _space(self, index: int) -> int:
        return _WHITESPACE(self.text, index).end()

    def _member_name(self, index: int) -> tuple[str, int]:
        """An object member's ``"name":`` at ``index``; the name and where its value starts."""
        text = self.text
        if not text.startswith('"', index):
            raise _NotPlain
        name, index = json.decoder.scanstring(text, index + 1, True)
        index = self._space(index)
        if not text.startswith(":", index):
            raise _NotPlain
        return name, self._space(index + 1)

    def _object(self, index: int, plan: dict) -> tuple[dict, list[str], int]:
        """The object at ``index`` (a ``{``) with ``plan`` applied, the names
        it dropped, and where it ends."""
        text = self.text
        result: dict = {}
        # Per member, in the order names first appear: what it dropped.
        dropped_by: dict[str, list[str]] = {}
        index = self._space(index + 1)
        if text.startswith("}", index):
            return result, [], index + 1
        while True:
            key, index = self._member_name(index)
            inner = plan.get(key, ...)
            if isinstance(inner, dict) and text.startswith("{", index):
                result[key], dropped_by[key], index = self._object(index, inner)
            elif inner is None:
                index = self._discard(index)
                result.pop(key, None)
                dropped_by[key] = [key]
            else:
                result[key], index = self.scan(text, index)
                dropped_by[key] = []
            index = self._space(index)
            if text.startswith(",", index):
                index = self._space(index + 1)
            elif text.startswith("}", index):
                return result, [name for names in dropped_by.values() for name in names], index + 1
            else:
                raise _NotPlain

    def _discard(self, index: int) -> int:
        """Read the value at ``index`` and let it go, one member or element at
        a time, so that no more than one of them is held at once."""
        text = self.text
        if text.startswith("{", index):
            close, keyed = "}", True
        elif text.startswith("[", index):
            close, keyed = "]", False
        else:
            return self.scan(text, index)[1]
        index = self._space(index + 1)
        if text.startswith(close, index):
            return index + 1
        while True:
            if keyed:
                _, index = self._member_name(index)
            _, index = self.scan(text, index)
            index = self._space(index)
            if text.startswith(",", index):
                index = self._space(index + 1)
            elif text.startswith(close, index):
                return index + 1
            else:
                raise _NotPlain


class _NotPlain(Exception):
    """The fast walk met something it leaves to the plain parser."""


def _loads_deep(text: str) -> Any:
    with parsing(PARSE_RECURSION_LIMIT):
        return _loads_plain(text)


def _loads_plain(text: str) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        # An unterminated string ran into the end of the text; so did any
        # error reported at the very end: both mean the file was cut short.
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            raise RecordingError(
                f"the JSON ends early ({exc.msg}, line {exc.lineno}, column {exc.colno}): "
                "the file looks truncated"
            ) from None
        raise RecordingError(
            f"the file is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise RecordingError(
            f"the JSON is nested deeper than this reader allows (about {MAX_NESTING_DEPTH} levels)"
        ) from None
    except ValueError as exc:  # e.g. an integer literal with too many digits
        raise RecordingError(f"the file is not valid JSON: {exc}") from None


# ─── Shape detection ───────────────────────────────────────────────────


def interpret(document: Any) -> Recording:
    """The run of a parsed document, read by the kind the registry says it is
    (``recorders/read/registry.py``); RecordingError when it is none of them."""
    return document_kind(document).read(document, _nested(True, None))


def _parse_entry(data: bytes) -> Any:
    return _loads_deep(_text(data)) if data.strip() else None

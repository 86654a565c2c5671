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
8. a ``recording/run`` entry of a ``fileArtifacts`` store (the recording inside).

:func:`load_file` gives every run a file holds (:class:`LoadedFile`);
:func:`load_recording` the first (saying so when there are more). Files
agentfootprint writes that are not runs (a checkpoint, a thinking trace, a bug
report's manifest) are refused by name (``recorders/file_kinds.py``).

Anything else raises :class:`RecordingError` naming the problem and where it
is. What a readable file does not carry (lean payloads, an incomplete run,
dropped events, several runs, unknown event types, a missing structure) is
reported as :class:`Gap` entries instead of being hidden.

Each event is checked once, for the fields the projections read, in the same
pass that counts it; nothing here walks the log twice.

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
import re
import stat
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from recorders import fast_parse, packed
from recorders.deep_parse import parsing
from recorders.audit import (AUDIT_FORMAT, GENESIS_TYPE, AuditCheck, audit_gaps,
                             is_audit_document, read_audit_bundle)
from recorders.balance import BalanceReport, BalanceTracker
from recorders.errors import ExpansionRefused, NothingWrittenYet, RecordingError
from recorders.counting import counted, noun_for
from recorders.catalogue import LLM_END, LLM_START, TOOL_START
from recorders import file_kinds
from recorders.event_stream import EventStreamDecoder, split_runs
from recorders.event_types import KNOWN_BOUNDARY_TYPES, KNOWN_TYPED_TYPES
from recorders.gaps import Gap
from recorders.surrogates import may_hold_lone_surrogates, mend_lone_surrogates, mended_gap
from recorders.values import describe, is_number, js_number_text

ENVELOPE_FORMAT = "agentfootprint.recording.v1"
BOUNDARY_RECORDER_NAME = "BoundaryEvents"

# The large corpus recording nests 1,213 levels deep (an executionTree chain).
# Python's parser counts nesting against the recursion limit, so parsing runs
# with at least this limit; deeper files are refused with a clear message.
MAX_NESTING_DEPTH = 10_000
PARSE_RECURSION_LIMIT = MAX_NESTING_DEPTH + 100
# A gzip member may not expand beyond this: a guard against decompression bombs.
MAX_DECOMPRESSED_BYTES = 2 * 1024**3
_GUNZIP_PIECE = 64 * 1024**2

_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")

# The one file agentfootprint leaves empty: the stream fileObservability claims
# before its first flush. Said so, with the other ways a file ends up empty.
NOTHING_WRITTEN = ("the file is empty: the event stream has nothing written yet "
                   "(fileObservability creates the file before its first flush), "
                   "or the file was cut to nothing")
ROTATED_SUFFIX = ".1"  # fileObservability's one older generation, beside the file

# Snapshot members no view reads (see the module doc), dropped while parsing.
UNREAD_SNAPSHOT_KEYS = frozenset({"executionTree", "subflowResults", "commitLog"})
_WHITESPACE = json.decoder.WHITESPACE.match  # what json.loads skips between tokens


@dataclass
class Recording:
    """A loaded, validated recording. Events stay the parsed JSON objects."""

    source_kind: str  # the file's kind: LoadedFile.kind (SOURCE_KINDS in lens/summary.py)
    typed_events: list[dict]
    boundary_events: list[dict]
    has_typed_stream: bool
    has_boundary_log: bool
    boundary_mode: str | None = None
    envelope_format: str | None = None
    producer: dict | None = None
    run_info: dict | None = None
    privacy: dict | None = None
    configuration: Any = None
    snapshot: dict | None = None
    structure: Any = None
    typed_counts: dict[str, int] = field(default_factory=dict)
    boundary_counts: dict[str, int] = field(default_factory=dict)
    typed_run_ids: list[str] = field(default_factory=list)
    unknown_typed_types: dict[str, int] = field(default_factory=dict)
    unknown_boundary_types: dict[str, int] = field(default_factory=dict)
    # Typed events that carry no meta at all, by type: kept, with nothing to place them by.
    typed_without_meta: dict[str, int] = field(default_factory=dict)
    gaps: list[Gap] = field(default_factory=list)
    # Snapshot members read and not kept (UNREAD_SNAPSHOT_KEYS found in the file), sorted.
    dropped_snapshot_keys: tuple[str, ...] = ()
    source_chars: int = 0  # characters of JSON text it was loaded from (0: built from objects)
    audit: AuditCheck | None = None  # an audit bundle's hash-chain check (recorders/audit.py)

    @property
    def is_lean(self) -> bool:
        return self.boundary_mode == "lean"

    @property
    def complete(self) -> bool | None:
        """The envelope's ``run.complete``; None when the file does not say."""
        if self.run_info is None:
            return None
        value = self.run_info.get("complete")
        return value if isinstance(value, bool) else None

    @property
    def dropped_events(self) -> int | None:
        if self.run_info is None:
            return None
        value = self.run_info.get("droppedEvents")
        return value if is_number(value) else None

    @property
    def snapshot_run_id(self) -> str | None:
        if isinstance(self.snapshot, dict) and isinstance(self.snapshot.get("runId"), str):
            return self.snapshot["runId"]
        return None


# ─── Entry points ──────────────────────────────────────────────────────


@dataclass
class LoadedFile:
    """Every run one file holds, and what the file says as a whole."""

    kind: str  # the file's sourceKind, sniffed from its bytes (SOURCE_KINDS in lens/summary.py)
    runs: list[Recording]  # in file order; [] only for an event stream with nothing written yet
    report: dict | None = None  # a bug report's title, stepsToReproduce, expected, actual, ...
    audit: Any = None  # an audit bundle's chain check (recorders/audit.py)
    notes: list[str] = field(default_factory=list)  # plain sentences about the file


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
    if not (_is_stream_bytes(older) and (_blank(current) or _is_stream_bytes(current))):
        return None
    if older and not older.endswith(b"\n"):
        older += b"\n"  # rotation happens between batches; a line never spans the two
    return older + current


def _is_stream_bytes(data: bytes) -> bool:
    return (not data.startswith(_GZIP_MAGIC) and not _blank(data)
            and _is_event_stream(data))


def load_file(data: bytes | bytearray | str, *, name: str | None = None, fast: bool = True,
              limit: int | None = None) -> LoadedFile:
    """Every run in ``data``, its kind sniffed from the bytes (``name`` is only
    used in what is said about the file, never to decide its kind).

    ``limit`` bounds what gzip and zip may expand to (by default
    :data:`MAX_DECOMPRESSED_BYTES`); a zip is checked before it is inflated."""
    if isinstance(data, (bytes, bytearray)) and bytes(data[:4]) in _ZIP_MAGIC:
        return _from_bug_report(bytes(data), fast, limit)
    raw = _plain(data, limit)
    if _blank(raw):
        called = f"{name}: " if name else ""
        return LoadedFile("event-stream", [], notes=[called + NOTHING_WRITTEN])
    if isinstance(raw, bytes) and raw[:4] in _ZIP_MAGIC:
        return _from_bug_report(raw, fast, limit)  # a gzipped zip: read as the zip
    if _is_event_stream(raw):
        return _from_event_stream(raw)
    recording = _document_run(raw, fast)
    runs = audit_runs(recording) if recording.source_kind == "audit-bundle" else [recording]
    loaded = LoadedFile(recording.source_kind, runs,
                        audit=getattr(recording, "audit", None))
    loaded.notes.extend(_kind_notes(recording))
    return loaded


def _kind_notes(recording: Recording) -> list[str]:
    """What a file of a kind other than a recording or an envelope is, in a sentence."""
    if recording.source_kind == "trace":
        held = "with its snapshot" if recording.snapshot is not None else "without its snapshot"
        redacted = any(gap.code == "redacted" for gap in recording.gaps)
        return [f"a Trace from localObservability, {held}: its events are the boundary log"
                + ("; its content is redacted" if redacted else "")]
    if recording.source_kind == "artifact-recording":
        return ["an artifact-store entry (fileArtifacts, kind recording/run): the recording "
                "it holds"]
    return []


def first_run(loaded: LoadedFile) -> Recording:
    """The file's first run; with several, a gap says how many and how to see
    the others. An empty event stream has none: RecordingError."""
    if not loaded.runs:
        raise NothingWrittenYet(NOTHING_WRITTEN)
    first = loaded.runs[0]
    count = len(loaded.runs)
    if count > 1:
        what = "conversations" if loaded.kind == "bug-report" else "runs"
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
            if halves and not is_audit_document(document):
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


_NON_SPACE_BYTES = re.compile(rb"[^ \t\r\n]")
_NON_SPACE_TEXT = re.compile(r"[^ \t\r\n]")


def _blank(raw: bytes | str) -> bool:
    """Nothing but whitespace (and a byte-order mark)."""
    if isinstance(raw, str):
        return _NON_SPACE_TEXT.search(raw.removeprefix("\ufeff")) is None
    return _NON_SPACE_BYTES.search(raw.removeprefix(b"\xef\xbb\xbf")) is None


def _is_event_stream(raw: bytes | str) -> bool:
    """Whether ``raw`` is NDJSON: a first line that is a typed event on its own,
    and more after it. A JSON document written compact is one line; pretty, its
    first line is not a whole value; either way it is not taken for a stream."""
    newline = raw.find(b"\n" if isinstance(raw, bytes) else "\n")
    if newline < 0:
        return False
    rest = (_NON_SPACE_BYTES if isinstance(raw, bytes) else _NON_SPACE_TEXT).search(
        raw, newline + 1)
    if rest is None:
        return False
    head = raw[:newline]
    head = head.removeprefix(b"\xef\xbb\xbf" if isinstance(head, bytes) else "\ufeff").strip()
    if not head.startswith(b"{" if isinstance(head, bytes) else "{"):
        return False
    try:
        with parsing(PARSE_RECURSION_LIMIT):
            first = json.loads(head)
    except (ValueError, RecursionError):
        return False
    return isinstance(first, dict) and file_kinds.is_one_typed_event(first)


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
    """Recognise which of the accepted shapes a parsed document is."""
    other = _other_kind(document) if isinstance(document, dict) else None
    if other is not None:
        return other
    if isinstance(document, list):
        return _from_boundary_list(document)
    if not isinstance(document, dict):
        raise RecordingError(f"expected one of the files Lens reads: {file_kinds.READ_KINDS}; "
                             f"found {describe(document)}")
    if is_audit_document(document):
        return _from_audit_bundle(document)
    if "format" in document:
        return _from_envelope(document)
    if "snapshot" in document or "events" in document:
        return _from_recording(document, where="")
    # A few keys, each cut short: the message names every kind Lens reads and stays one line.
    names = sorted(map(str, document))
    keys = ", ".join(shown_text(k, limit=24) for k in names[:5]) or "no keys"
    if len(names) > 5:
        keys += f" and {len(names) - 5} more"
    raise RecordingError(f"expected one of the files Lens reads: {file_kinds.READ_KINDS}; "
                         f"found an object with {keys}")


def _from_envelope(document: dict) -> Recording:
    fmt = document.get("format")
    if packed.is_packed_format(fmt):
        return _from_packed(document)
    if fmt != ENVELOPE_FORMAT:
        shown = shown_text(fmt, quoted=True) if isinstance(fmt, str) else describe(fmt)
        raise RecordingError(
            f"format {shown} is not supported; this version reads {ENVELOPE_FORMAT}"
            if isinstance(fmt, str)
            else f"format: expected a string, found {shown}"
        )
    inner = document.get("recording")
    if not isinstance(inner, dict):
        raise RecordingError(
            f"recording: expected the recording object, found {describe(inner)}"
        )
    recording = _from_recording(inner, where="recording.")
    recording.source_kind = "envelope"
    recording.envelope_format = fmt
    recording.producer = _optional_object(document, "producer", "")
    recording.run_info = _optional_object(document, "run", "")
    recording.privacy = _optional_object(document, "privacy", "")
    recording.configuration = document.get("configuration")
    recording.gaps[:0] = _envelope_gaps(recording.run_info)
    return recording


def _from_packed(document: dict) -> Recording:
    """A packed recording (recorders/packed.py): expanded, its values shared,
    once its plain size is within LENS_MAX_EXPANDED_MB; then read as a recording."""
    inner = packed.expand_packed(document, max_bytes=packed.max_expanded_bytes())
    if not isinstance(inner, dict):
        raise RecordingError(f"recording: expected the recording object, found {describe(inner)}")
    recording = _from_recording(inner, where="recording.")
    recording.source_kind = "packed"
    recording.envelope_format = document.get("format")
    return recording


def _from_audit_bundle(document: dict) -> Recording:
    """An auditExport() bundle: its chain verified, its records a typed stream
    (recorders/audit.py). Every run it holds, in one recording; :func:`audit_runs`
    parts them."""
    bundle = read_audit_bundle(document)
    # The hashes cover lone surrogate halves as written: made showable only now.
    mended = mend_lone_surrogates(bundle.typed_events)
    return _audit_run(bundle.check, bundle.typed_events, bundle.library_version, "records",
                      mended)


def audit_runs(recording: Recording) -> list[Recording]:
    """An audit bundle's runs, one per ``meta.runId`` in order, each with the
    whole file's chain check (runs chain back to back in one log)."""
    if len(recording.typed_run_ids) < 2:
        return [recording]
    mended = [gap for gap in recording.gaps if gap.code == "lone-surrogates"]  # the file's
    version = (recording.producer or {}).get("agentfootprintVersion")
    runs = []
    for number, events in enumerate(split_runs(recording.typed_events), 1):
        run = _audit_run(recording.audit, events, version, f"run {number} records", 0)
        run.gaps += mended
        run.source_chars = recording.source_chars
        runs.append(run)
    return runs


def _audit_run(check: AuditCheck, events: list[dict], version: str | None, where: str,
               mended: int) -> Recording:
    recording = Recording(
        source_kind="audit-bundle",
        typed_events=events,
        boundary_events=[],
        has_typed_stream=True,
        has_boundary_log=False,
        envelope_format=AUDIT_FORMAT,
        producer={"agentfootprintVersion": version},
        audit=check,
    )
    _validate_typed(recording, where)
    recording.unknown_typed_types.pop(GENESIS_TYPE, None)  # a chain record, known as such
    recording.gaps.extend(audit_gaps(check, events))
    recording.gaps.extend(_stream_gaps(recording, None))
    if mended:
        recording.gaps.append(mended_gap(mended))
    return recording


def _other_kind(document: dict) -> Recording | None:
    """The run of a Trace, an artifact-store entry or a lone typed event; a
    RecordingError naming a file that is not a run; None for the shapes
    :func:`interpret` reads itself."""
    refusal = file_kinds.not_a_run(document)
    if refusal is not None:
        raise file_kinds.NotARun(refusal)
    if file_kinds.is_trace(document):
        return _from_trace(document)
    if file_kinds.is_artifact(document):
        return _from_artifact(document)
    if file_kinds.is_one_typed_event(document):
        return _stream_run([document], "events")
    return None


def _from_trace(document: dict) -> Recording:
    """A ``Trace`` (localObservability): its events are the boundary log; with
    ``includeSnapshot``, the snapshot rides beside them."""
    version = document.get("version")
    if version != file_kinds.TRACE_VERSION:
        shown = js_number_text(version) if is_number(version) else describe(version)
        raise RecordingError(f"this is a Trace of version {shown}; this version reads "
                             f"Traces of version {file_kinds.TRACE_VERSION}")
    events = document.get("events")
    if not isinstance(events, list):
        raise RecordingError(f"events: expected the Trace's boundary events, found "
                             f"{describe(events)}")
    snapshot = document.get("snapshot")
    if snapshot is not None and not isinstance(snapshot, dict):
        raise RecordingError(f"snapshot: expected an object, found {describe(snapshot)}")
    recording = Recording(
        source_kind="trace",
        typed_events=[],
        boundary_events=events,
        has_typed_stream=False,
        has_boundary_log=True,
        snapshot=snapshot,
        structure=document.get("structure"),
    )
    balance = _validate_boundary(recording, "events")
    recording.gaps.append(Gap(
        "no-typed-stream",
        "a Trace (localObservability) holds the boundary log, not the typed event stream: "
        "model-call details and the skill route are unavailable"))
    if snapshot is None:
        recording.gaps.append(Gap(
            "no-snapshot", "the Trace was saved without its snapshot (includeSnapshot was "
            "not set): no state or commit history"))
    if recording.structure is None:
        recording.gaps.append(Gap("no-structure", "the Trace has no build-time structure"))
    redaction = document.get("redaction")
    if redaction == "pii":
        recording.gaps.append(Gap(
            "redacted", "the Trace is redacted (redaction: 'pii', from redactContent): "
            "messages, payloads and tool content read '[redacted]'"))
    elif redaction not in (None, "none"):
        shown = shown_text(redaction, quoted=True) if isinstance(redaction, str) else describe(
            redaction)
        recording.gaps.append(Gap("redacted", f"the Trace says its redaction is {shown}, "
                                  "which this version does not know: content may be redacted"))
    recording.gaps.extend(_stream_gaps(recording, balance))
    return recording


def _from_artifact(document: dict) -> Recording:
    """A ``fileArtifacts`` entry of kind ``recording/run``: the recording its
    payload holds as JSON text. Any other artifact is refused by its kind."""
    fmt = document.get("format")
    if fmt != file_kinds.ARTIFACT_FORMAT:
        raise RecordingError(f"this is an artifact-store entry of format {js_number_text(fmt)}; "
                             f"this version reads format {file_kinds.ARTIFACT_FORMAT}")
    meta = document.get("meta")
    if not isinstance(meta, dict):
        raise RecordingError(f"meta: expected the artifact's meta object (ref, kind, ...), "
                             f"found {describe(meta)}")
    kind = meta.get("kind")
    if kind != file_kinds.ARTIFACT_RECORDING_KIND:
        shown = shown_text(kind, quoted=True) if isinstance(kind, str) else describe(kind)
        raise RecordingError(
            f"this is an artifact-store entry of kind {shown}, not a run's recording; Lens "
            f"opens artifacts of kind '{file_kinds.ARTIFACT_RECORDING_KIND}' (minted with "
            "artifacts: {{ recordings: true }})")
    payload = document.get("payload")
    shape = payload.get("shape") if isinstance(payload, dict) else None
    value = payload.get("value") if isinstance(payload, dict) else None
    if shape != "text" or not isinstance(value, str):
        shown = shown_text(shape, quoted=True) if isinstance(shape, str) else describe(shape)
        raise RecordingError(
            f"payload: the artifact's recording is stored with shape {shown}; Lens reads "
            "recordings stored as text ({shape: 'text', value})")
    try:
        inner = value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate half: the json module reads the text
        inner = value
    try:
        recording = _document_run(inner, fast=True)
    except RecordingError as exc:
        raise RecordingError(f"payload.value (the artifact's recording): {exc}") from None
    if recording.source_kind not in ("recording", "envelope", "packed"):
        raise RecordingError(
            f"payload.value: the artifact holds a {recording.source_kind}, not a recording")
    recording.source_kind = "artifact-recording"
    return recording


def _from_event_stream(raw: bytes | str) -> LoadedFile:
    """An NDJSON event stream: one run per ``meta.runId``, typed events only."""
    if isinstance(raw, str):
        try:
            raw = raw.removeprefix("\ufeff").encode("utf-8")
        except UnicodeEncodeError:
            raise RecordingError("the event stream holds text that is not valid "
                                 "Unicode (a lone surrogate)") from None
    decoder = EventStreamDecoder()
    events = decoder.feed(raw)
    events += decoder.finish()
    halves = _ESCAPED_HALF.search(raw) is not None  # the json module read them as they are
    runs = split_runs(events)
    where = "events" if len(runs) == 1 else "run {} events"
    recordings = [_stream_run(run, where.format(index + 1)) for index, run in enumerate(runs)]
    notes: list[str] = []
    if decoder.pending_bytes and recordings:
        unfinished = (f"the last line ({decoder.pending_bytes:,} bytes) is unfinished: the "
                      "writer was appending it; it is left out until it is complete")
        notes.append(unfinished)
        recordings[-1].gaps.append(Gap("unfinished-line", unfinished))
    for recording in recordings:
        mended = mend_lone_surrogates(recording.typed_events) if halves else 0
        if mended:
            recording.gaps.append(mended_gap(mended))
        recording.source_chars = len(raw)
    if len(recordings) > 1:
        notes.append(f"the stream holds {len(recordings)} runs, told apart by meta.runId, in "
                     "the order they first appear")
    return LoadedFile("event-stream", recordings, notes=notes)


_ESCAPED_HALF = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def _stream_run(events: list, where: str) -> Recording:
    """One run of an event stream: typed events, no boundary log."""
    recording = Recording(
        source_kind="event-stream",
        typed_events=events,
        boundary_events=[],
        has_typed_stream=True,
        has_boundary_log=False,
    )
    _validate_typed(recording, where)
    recording.gaps.append(file_kinds.STREAM_ONLY_GAP)
    recording.gaps.extend(file_kinds.stream_gaps(events))
    recording.gaps.extend(_stream_gaps(recording, None))
    return recording


def _from_bug_report(data: bytes, fast: bool, limit: int | None) -> LoadedFile:
    """A bug report zip: each run it holds, and the reporter's fields."""
    from recorders.bug_report import read_bug_report  # it reads names through shown_text

    report = read_bug_report(data, MAX_DECOMPRESSED_BYTES if limit is None else limit,
                             _parse_entry)
    runs: list[Recording] = []
    for name, entry in report.runs:
        try:
            if name.startswith("conversations/"):
                runs.extend(_conversation_runs(entry, fast))
            else:
                runs.append(_document_run(entry, fast))
        except RecordingError as exc:
            raise RecordingError(f"{shown_text(name)} in the bug report: {exc}") from None
    for recording in runs:
        recording.source_kind = "bug-report"
    notes = [f"a bug report (exportBugReport, layout 2) holding {len(runs)} "
             f"run{'s' if len(runs) != 1 else ''}"]
    if report.other_files:
        notes.append("not runs, not opened: " + ", ".join(
            shown_text(name, limit=60) for name in report.other_files[:8]))
    return LoadedFile("bug-report", runs, report=report.report, notes=notes)


def _parse_entry(data: bytes) -> Any:
    return _loads_deep(_text(data)) if data.strip() else None


def _conversation_runs(data: bytes, fast: bool) -> list[Recording]:
    """``conversations/<id>.json``: ``{id, runIds, envelopes | recordings}``."""
    document = _parse_entry(data)
    if not isinstance(document, dict):
        raise RecordingError(f"expected a conversation object, found {describe(document)}")
    key = "envelopes" if "envelopes" in document else "recordings"
    items = document.get(key)
    if not isinstance(items, list):
        raise RecordingError(f"{key}: expected a list of runs, found {describe(items)}")
    runs: list[Recording] = []
    for index, item in enumerate(items):
        try:
            with parsing(PARSE_RECURSION_LIMIT):
                recording = interpret(item)
        except RecordingError as exc:
            raise RecordingError(f"{key}[{index}]: {exc}") from None
        if recording.source_kind not in ("recording", "envelope", "packed"):
            raise RecordingError(f"{key}[{index}]: expected a recording or an envelope, "
                                 f"found a {recording.source_kind}")
        runs.append(recording)
    return runs


def _from_recording(document: dict, where: str) -> Recording:
    gaps: list[Gap] = []
    typed_raw = document.get("events")
    has_typed = typed_raw is not None
    if typed_raw is None:
        typed_raw = []
        gaps.append(Gap("no-typed-stream", "the recording has no typed event stream ('events'); "
                        "model-call details and the skill route are unavailable"))
    elif not isinstance(typed_raw, list):
        raise RecordingError(f"{where}events: expected a list of events, found {describe(typed_raw)}")

    snapshot = document.get("snapshot")
    boundary_raw: list | None = None
    boundary_where = ""
    mode = None
    if snapshot is None:
        gaps.append(Gap("no-snapshot", "the recording has no snapshot, so no boundary log: "
                        "the step projections are empty"))
    elif not isinstance(snapshot, dict):
        raise RecordingError(f"{where}snapshot: expected an object, found {describe(snapshot)}")
    else:
        boundary_raw, boundary_where, mode = _find_boundary_log(snapshot, f"{where}snapshot")
        if boundary_raw is None:
            gaps.append(Gap("no-boundary-log",
                            f"{where}snapshot.recorders has no '{BOUNDARY_RECORDER_NAME}' entry: "
                            "the step projections are empty"))
    if "structure" not in document or document.get("structure") is None:
        gaps.append(Gap("no-structure", "the recording has no build-time structure"))

    recording = Recording(
        source_kind="recording",
        typed_events=typed_raw,
        boundary_events=boundary_raw if boundary_raw is not None else [],
        has_typed_stream=has_typed,
        has_boundary_log=boundary_raw is not None,
        boundary_mode=mode,
        snapshot=snapshot if isinstance(snapshot, dict) else None,
        structure=document.get("structure"),
    )
    _validate_typed(recording, f"{where}events")
    balance = _validate_boundary(recording, boundary_where) if boundary_raw is not None else None
    recording.gaps.extend(gaps)
    recording.gaps.extend(_stream_gaps(recording, balance))
    return recording


def _from_boundary_list(events: list) -> Recording:
    recording = Recording(
        source_kind="boundary-list",
        typed_events=[],
        boundary_events=events,
        has_typed_stream=False,
        has_boundary_log=True,
    )
    balance = _validate_boundary(recording, "events")
    recording.gaps.append(Gap(
        "no-typed-stream",
        "a bare boundary-event list has no typed event stream: model-call details "
        "and the skill route are unavailable",
    ))
    recording.gaps.extend(_stream_gaps(recording, balance))
    return recording


def _find_boundary_log(snapshot: dict, where: str) -> tuple[list | None, str, str | None]:
    recorders = snapshot.get("recorders")
    if recorders is None:
        return None, "", None
    if not isinstance(recorders, list):
        raise RecordingError(f"{where}.recorders: expected a list, found {describe(recorders)}")
    for index, entry in enumerate(recorders):
        if isinstance(entry, dict) and entry.get("name") == BOUNDARY_RECORDER_NAME:
            entry_where = f"{where}.recorders[{index}]"
            data = entry.get("data")
            if not isinstance(data, list):
                raise RecordingError(
                    f"{entry_where}.data: expected the boundary-event list, found {describe(data)}"
                )
            meta = entry.get("meta")
            mode = meta.get("mode") if isinstance(meta, dict) else None
            return data, f"{entry_where}.data", mode if isinstance(mode, str) else None
    return None, "", None


def _optional_object(document: dict, key: str, where: str) -> dict | None:
    value = document.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RecordingError(f"{where}{key}: expected an object, found {describe(value)}")
    return value


# ─── Gaps ──────────────────────────────────────────────────────────────


def _envelope_gaps(run: dict | None) -> list[Gap]:
    gaps: list[Gap] = []
    if run is None:
        return [Gap("no-run-info", "the envelope has no 'run' section")]
    if run.get("complete") is False:
        gaps.append(Gap("incomplete", "the run did not complete (complete: false): "
                        "it failed or the recording was cut off"))
    dropped = run.get("droppedEvents")
    if is_number(dropped) and dropped > 0:
        gaps.append(Gap("dropped", f"{js_number_text(dropped)} {noun_for(dropped, 'event')} "
                        f"{'was' if dropped == 1 else 'were'} dropped by the recorder's buffer; "
                        "the earliest events are missing"))
    first = run.get("firstRetainedEventIndex")
    if is_number(first) and first > 0 and not (is_number(dropped) and dropped > 0):
        gaps.append(Gap("dropped", "the first event was not retained" if first == 1 else
                        f"the first {js_number_text(first)} events were not retained"))
    return gaps


def _stream_gaps(recording: Recording, balance: BalanceReport | None) -> list[Gap]:
    """``balance``: the boundary log's balance, when the recording has one."""
    gaps: list[Gap] = []
    if balance is not None:
        gaps.extend(balance.gaps())
    if recording.is_lean:
        gaps.append(Gap("lean", "lean mode: boundary events carry no payloads, arguments, "
                        "results or content"))
    if len(recording.typed_run_ids) > 1:
        gaps.append(Gap(
            "several-runs",
            f"the typed stream holds {len(recording.typed_run_ids)} runs; the boundary log "
            "and snapshot hold only the last one",
        ))
    unknown = {**recording.unknown_typed_types, **recording.unknown_boundary_types}
    if unknown:
        gaps.append(Gap("unknown-types", f"{counted(sum(unknown.values()), 'event')} of types "
                        f"this version does not know, kept as they are: {_counted_types(unknown)}"))
    without_meta = recording.typed_without_meta
    if without_meta:
        gaps.append(Gap("no-meta", f"{sum(without_meta.values())} typed events carry no meta "
                        "(no run, stage or time), kept but not placed at a step: "
                        f"{_counted_types(without_meta)}"))
    return gaps


def _counted_types(counts: dict[str, int], shown: int = 6) -> str:
    """``type ×n, …`` for the first ``shown`` types by name, then how many more."""
    listed = ", ".join(f"{shown_text(name, limit=80)} ×{count}"
                       for name, count in sorted(counts.items())[:shown])
    return listed if len(counts) <= shown else f"{listed} and {len(counts) - shown} more"


# ─── Per-event validation ──────────────────────────────────────────────

_STR = "a string"
_NUM = "a number"
_BOOL = "a boolean"
_PATH = "a list of strings"

# Fields the projections read, by boundary event type: (name, expected, required).
_BOUNDARY_FIELDS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "run.entry": (),
    "run.exit": (),
    "subflow.entry": (("subflowId", _STR, True), ("description", _STR, False),
                      ("subflowName", _STR, False), ("primitiveKind", _STR, False)),
    "subflow.exit": (("subflowId", _STR, True), ("subflowName", _STR, False)),
    "fork.branch": (("parentSubflowId", _STR, True), ("childName", _STR, True)),
    "decision.branch": (("chosen", _STR, True), ("rationale", _STR, False),
                        ("decider", _STR, False)),
    "loop.iteration": (("target", _STR, True), ("iteration", _NUM, True)),
    "llm.start": (("model", _STR, False), ("provider", _STR, False)),
    "llm.end": (("toolCallCount", _NUM, True), ("stopReason", _STR, False)),
    "tool.start": (("toolName", _STR, True), ("toolCallId", _STR, False)),
    "tool.end": (("toolCallId", _STR, False), ("error", _BOOL, False),
                 ("durationMs", _NUM, False)),
    "context.injected": (("slot", _STR, False), ("source", _STR, False)),
    "composition.start": (("kind", _STR, False), ("name", _STR, False)),
    "composition.end": (("kind", _STR, False), ("name", _STR, False)),
}
_BOUNDARY_COMMON = (("runtimeStageId", _STR, True), ("subflowPath", _PATH, True),
                    ("ts", _NUM, True))

# What each boundary event is checked for: the common fields first.
_BOUNDARY_CHECKS = {kind: _BOUNDARY_COMMON + fields for kind, fields in _BOUNDARY_FIELDS.items()}

# Payload fields the projections read, by typed event type.
_TYPED_PAYLOAD_FIELDS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    LLM_END: (("toolCallCount", _NUM, True),),
    TOOL_START: (("toolName", _STR, False),),
}
_TYPED_META_FOR_STEPS = frozenset({LLM_START, LLM_END})
# Meta fields the projections read: required for the events that become steps.
_TYPED_META_FIELDS_FOR_STEPS = (("runtimeStageId", _STR, True), ("subflowPath", _PATH, False),
                                ("wallClockMs", _NUM, True))
_TYPED_META_FIELDS = (("runtimeStageId", _STR, False), ("subflowPath", _PATH, False),
                      ("wallClockMs", _NUM, False))


def _validate_boundary(recording: Recording, where: str) -> BalanceReport:
    """Check and count the boundary events; returns the log's balance, paired
    in the same pass (a pass of its own would read every event again)."""
    counts: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    # A run repeats a few paths thousands of times: equal paths share one
    # list, a fifth of a large log's memory. A path equal to one kept here
    # is a list of strings already checked.
    paths: dict[tuple, list] = {}
    balance = BalanceTracker()
    for index, event in enumerate(recording.boundary_events):
        if not isinstance(event, dict):
            raise RecordingError(f"{where}[{index}]: expected an object, found {describe(event)}")
        kind = event.get("type")
        if not isinstance(kind, str):
            _field_problem(f"{where}[{index}]", "type", _STR, kind, "type" in event, None)
        balance.add(index, event)
        counts[kind] += 1
        if kind not in KNOWN_BOUNDARY_TYPES:
            unknown[kind] += 1  # kept, counted, ignored by the projections
            continue
        # The fields every event has, checked inline when all is well (the
        # usual case); otherwise _first_problem finds what is wrong, in order.
        path = event.get("subflowPath")
        kept = _known_path(paths, path) if path.__class__ is list else None
        ts = event.get("ts")
        if kept is not None and event.get("runtimeStageId").__class__ is str and (
                ts.__class__ is int or ts.__class__ is float):
            fields = _BOUNDARY_FIELDS[kind]
            problem = _first_problem(event, fields) if fields else None
        else:
            problem = _first_problem(event, _BOUNDARY_CHECKS[kind])
            kept = paths.setdefault(tuple(path), path) if problem is None else None
        if problem is not None:
            _field_problem(f"{where}[{index}]", *problem, kind)
        if kept is not path:
            event["subflowPath"] = kept
    recording.boundary_counts = dict(counts)
    recording.unknown_boundary_types = dict(unknown)
    return balance.report()


def _validate_typed(recording: Recording, where: str) -> None:
    counts: Counter[str] = Counter()
    without_meta: Counter[str] = Counter()
    run_ids: dict[str, None] = {}
    paths: dict[tuple, list] = {}  # paths found to be lists of strings
    for index, event in enumerate(recording.typed_events):
        if not isinstance(event, dict):
            raise RecordingError(f"{where}[{index}]: expected an object, found {describe(event)}")
        kind = event.get("type")
        if not isinstance(kind, str):
            _field_problem(f"{where}[{index}]", "type", _STR, kind, "type" in event, None)
        counts[kind] += 1
        meta = event.get("meta")
        if not isinstance(meta, dict):
            # agentfootprint delivers some events after the run with no meta at all
            # (resilience.output_*): kept. A model call's start or end becomes a
            # step and needs its stage and time; a meta of another type is malformed;
            # and a type agentfootprint never declared, with no meta either, is not
            # a typed event (a Trace's boundary log read as one opened as 58
            # unknown events and no steps).
            if ("meta" in event or kind in _TYPED_META_FOR_STEPS
                    or kind not in KNOWN_TYPED_TYPES):
                _field_problem(f"{where}[{index}]", "meta", "an object", meta, "meta" in event,
                               kind)
            without_meta[kind] += 1
            meta = {}
        run_id = meta.get("runId")
        if run_id is not None:
            if not isinstance(run_id, str):
                _field_problem(f"{where}[{index}].meta", "runId", _STR, run_id, True, kind)
            run_ids.setdefault(run_id)
        # As for boundary events: the usual case inline, the rest found in
        # order; and, as there, equal paths end up sharing one list.
        path = meta.get("subflowPath")
        kept = _known_path(paths, path) if path.__class__ is list else None
        ts = meta.get("wallClockMs")
        if not (meta.get("runtimeStageId").__class__ is str
                and (ts.__class__ is int or ts.__class__ is float)
                and (path is None or kept is not None)):
            problem = _first_problem(meta, _TYPED_META_FIELDS_FOR_STEPS
                                     if kind in _TYPED_META_FOR_STEPS else _TYPED_META_FIELDS)
            if problem is not None:
                _field_problem(f"{where}[{index}].meta", *problem, kind)
        if kept is not None and kept is not path:
            meta["subflowPath"] = kept
        payload_fields = _TYPED_PAYLOAD_FIELDS.get(kind)
        if payload_fields:
            payload = event.get("payload")
            if not isinstance(payload, dict):
                _field_problem(f"{where}[{index}]", "payload", "an object", payload,
                               "payload" in event, kind)
            problem = _first_problem(payload, payload_fields)
            if problem is not None:
                _field_problem(f"{where}[{index}].payload", *problem, kind)
    recording.typed_counts = dict(counts)
    recording.typed_run_ids = list(run_ids)
    recording.typed_without_meta = dict(without_meta)
    recording.unknown_typed_types = {k: v for k, v in counts.items()
                                     if k not in KNOWN_TYPED_TYPES}


def _known_path(paths: dict[tuple, list], path: list) -> list | None:
    """The list kept for a path equal to ``path`` (``path`` itself when it is the
    first of its kind and a list of strings); None when it is not one."""
    try:
        kept = paths.get(tuple(path))
    except TypeError:  # an unhashable segment: not a string
        return None
    if kept is not None:
        return kept
    for segment in path:
        if not isinstance(segment, str):
            return None
    paths[tuple(path)] = path
    return path


def _first_problem(obj: dict, fields: tuple[tuple[str, str, bool], ...]
                   ) -> tuple[str, str, Any, bool] | None:
    """The first field of ``fields`` that is missing or of the wrong type, as
    (name, expected, value, present); None when all are fine. Runs for every
    event, so the place names of a message are only formatted once it fails."""
    for name, expected, required in fields:
        value = obj.get(name)
        # The common cases first: a plain string, number or list of strings.
        value_type = value.__class__
        if value_type is str:
            if expected is _STR:
                continue
        elif value_type is int or value_type is float:
            if expected is _NUM:
                continue
        elif value_type is list and expected is _PATH:
            for segment in value:
                if not isinstance(segment, str):
                    return name, expected, value, True
            continue
        if value is None:
            if required:
                return name, expected, value, name in obj
            continue
        if expected is _STR:
            ok = isinstance(value, str)
        elif expected is _NUM:
            ok = is_number(value)
        elif expected is _BOOL:
            ok = isinstance(value, bool)
        else:  # _PATH
            ok = isinstance(value, list) and all(isinstance(s, str) for s in value)
        if not ok:
            return name, expected, value, True
    return None


def _field_problem(at: str, name: str, expected: str, value: Any, present: bool,
                   kind: str | None) -> None:
    what = f" ({shown_text(kind)})" if isinstance(kind, str) else ""
    if not present:
        raise RecordingError(f"{at}{what}: missing field '{name}' (expected {expected})")
    raise RecordingError(f"{at}.{name}{what}: expected {expected}, found {describe(value)}")


# ─── Small helpers ─────────────────────────────────────────────────────


_SHOWN_CHARS = 40


def shown_text(text: str, quoted: bool = False, limit: int = _SHOWN_CHARS) -> str:
    """File content fit for a one-line message: control characters escaped, long text cut."""
    shown = text if text.isprintable() else repr(text[: limit * 2])[1:-1]
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return f"'{shown}'" if quoted else shown

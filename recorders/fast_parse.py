"""Parse a recording's bytes with msgspec, skipping what the views never read.

The loader keeps only part of a recording (``recorders/loading.py``): the
snapshot's engine bookkeeping, three quarters of a large file, is read and
dropped. The json module can only drop a value after building it. msgspec
can skip a value without building anything: :func:`parse_kept` decodes the
document in one pass as the shape the loader reads (a recording or an
envelope, and its snapshot), skipping the unread members (checked, never
built) and decoding the rest in C. A document those shapes do not fit is
walked object by object, each decoded as ``{name: raw bytes}``.

The result must be exactly what the json module would give, or nothing.
msgspec checks the syntax of what it skips; two things it does not check
are checked here over the whole input, so that a value skipped anywhere
(an unread member, a name nothing reads, the loser of a repeated name) is
held to the json module's rules:

- the bytes must be UTF-8 (checked in slices, which also counts the
  characters the loader reports as ``source_chars``);
- a number the json module would refuse or could read differently (an
  exponent of three or more digits, a run of 300 or more digits: a float
  too large to represent, an integer past Python's digit limit) sends the
  file to the json module.

Anything else msgspec or these checks do not accept raises :class:`Declined`,
and the loader parses the file the ordinary way, whose result or error
message is then the one given. msgspec is optional: without it
:func:`available` is False and the loader never calls this module.

Nesting is counted against Python's recursion limit by both parsers;
msgspec runs here a few frames deeper than the json module would, so a
document deep enough to be refused by one is never accepted by the other.
"""

from __future__ import annotations

import codecs
from typing import Any

try:  # optional: without it the loader parses with the json module alone
    import msgspec
except ImportError:  # pragma: no cover - exercised by patching in the tests
    msgspec = None

_BOM = b"\xef\xbb\xbf"
_WHITESPACE = b" \t\n\r"
_OPEN_OBJECT = ord("{")

# Frames of headroom: msgspec reaches a few levels deeper than the json
# module under the same recursion limit (measured in the tests).
_HEADROOM_FRAMES = 24

# Scanning in slices keeps the checks' own memory small.
_SLICE = 1 << 16
# Digits and signs become "0" and "E" becomes "e": every exponent of three or
# more digits then reads "0e000", and a long run of digits a run of "0"s.
# Each find is confirmed on the original bytes (:func:`_past_token`).
_NUMBER_SHAPES = bytes.maketrans(b"123456789+-E", b"00000000000e")
_LONG_DIGITS = 300
_RISKY_SHAPES = (b"0e000", b"0" * _LONG_DIGITS)
_DIGITS_ALONE = bytes(c if chr(c).isdigit() and c < 128 else 32 for c in range(256))
_NUMBER_BYTES = frozenset(b"0123456789.eE+-")
_BEFORE_NUMBER = frozenset(b":,[")


class Declined(Exception):
    """The fast parse leaves this input to the json module."""


def available() -> bool:
    return msgspec is not None


if msgspec is not None:
    _MEMBERS = msgspec.json.Decoder(dict[str, msgspec.Raw])
    _VALUE = msgspec.json.Decoder()
    _FAILURES: tuple[type[BaseException], ...] = (msgspec.DecodeError, RecursionError,
                                                   ValueError, TypeError)
    _UNSET = msgspec.UNSET

    # The names ``recorders.loading.interpret`` reads at the top of a document
    # and of an envelope's recording, and the objects the loader's plan walks
    # (``_KeptParse.TOP``), in one pass. Another name at the top is skipped
    # (checked, not built): nothing reads it. The snapshot is kept whole, less
    # its unread members, so it has a shape of its own.
    class _SnapshotShape(msgspec.Struct, forbid_unknown_fields=True):
        """A snapshot as agentfootprint writes it: the members no view reads
        kept raw, to be skipped; the others decoded. A snapshot with another
        name does not fit (the document is then walked name by name)."""

        sharedState: Any = msgspec.UNSET
        executionTree: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
        initialState: Any = msgspec.UNSET
        commitLog: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
        commitValues: Any = msgspec.UNSET
        writeProvenance: Any = msgspec.UNSET
        runId: Any = msgspec.UNSET
        subflowResults: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
        recorders: Any = msgspec.UNSET

    class _RecordingShape(msgspec.Struct):
        """A recording object."""

        snapshot: _SnapshotShape | None | msgspec.UnsetType = msgspec.UNSET
        events: Any = msgspec.UNSET
        structure: Any = msgspec.UNSET

    class _DocumentShape(_RecordingShape):
        """A recording or an envelope: every name either may have at the top."""

        format: Any = msgspec.UNSET
        producer: Any = msgspec.UNSET
        run: Any = msgspec.UNSET
        configuration: Any = msgspec.UNSET
        privacy: Any = msgspec.UNSET
        recording: _RecordingShape | None | msgspec.UnsetType = msgspec.UNSET
        # A Trace's and an artifact-store entry's names (recorders/read/trace.py, artifact.py).
        version: Any = msgspec.UNSET
        redaction: Any = msgspec.UNSET
        capturedAtMs: Any = msgspec.UNSET
        meta: Any = msgspec.UNSET
        payload: Any = msgspec.UNSET

    _DOCUMENT = msgspec.json.Decoder(_DocumentShape)

    class _PackedShape(msgspec.Struct):
        """A packed recording (``recorders/packed.py``): the
        recording kept as a recording is, its pooled values left as their texts."""

        format: Any = msgspec.UNSET
        recording: _RecordingShape | msgspec.UnsetType = msgspec.UNSET
        values: list[msgspec.Raw] | msgspec.UnsetType = msgspec.UNSET

    _PACKED = msgspec.json.Decoder(_PackedShape)
    # A document naming none of these is refused with the names it has.
    _SHAPE_NAMES = frozenset({"format", "snapshot", "events"})


def parse_kept(data: bytes, plan: dict) -> tuple[Any, tuple[str, ...], int]:
    """``data`` parsed as the json module would, without the members ``plan`` drops.

    ``plan`` maps a member name to None (skip it) or to the plan of the
    object it holds (walk it). Returns the document, the dropped names (each
    once, from the objects kept), and the number of characters the text has.
    Raises :class:`Declined` when the json module must decide.
    """
    view, chars = _checked(data)
    try:
        return (*_with_headroom(_HEADROOM_FRAMES, _document, view, plan), chars)
    except _FAILURES:
        raise Declined from None


def parse_kept_packed(data: bytes, plan: dict) -> tuple[dict, tuple[str, ...], int]:
    """:func:`parse_kept` for a packed recording, in the same one pass:
    ``{"format", "recording", "values"}`` with the recording's members kept
    and dropped as ``plan["recording"]`` says and ``values`` a list of each
    pooled value's JSON text (``msgspec.Raw``, a view of ``data``), decoded
    by ``recorders/packed.py`` when referred to. The same checks as
    :func:`parse_kept` hold over the whole input, the values included.
    Declined as it declines, and for a top that is not an object with a
    recording object and a list of values."""
    view, chars = _checked(data)
    try:
        shape = _with_headroom(_HEADROOM_FRAMES, _PACKED.decode, view)
        if shape.recording is _UNSET or shape.values is _UNSET:
            raise Declined
        recording, dropped = _with_headroom(_HEADROOM_FRAMES, _known_shape, shape.recording,
                                            plan.get("recording") or {})
    except _FAILURES:
        raise Declined from None
    document = {"format": shape.format, "recording": recording, "values": shape.values}
    return document, tuple(dict.fromkeys(dropped)), chars


def _checked(data: bytes) -> tuple[memoryview, int]:
    """``data`` past a byte-order mark, and its characters, once the checks
    msgspec does not make hold over all of it (Declined otherwise)."""
    if msgspec is None:
        raise Declined
    view = memoryview(data)
    if data.startswith(_BOM):
        view = view[len(_BOM):]
    chars = _utf8_characters(view)
    _refuse_risky_numbers(view)
    return view, chars


def _document(view: memoryview, plan: dict) -> tuple[Any, tuple[str, ...]]:
    first = bytes(view[:64]).lstrip(_WHITESPACE)[:1]
    if not first:
        raise Declined  # odd leading space: the json module's walk decides
    if first != b"{":
        return _VALUE.decode(view), ()
    try:
        document, dropped = _known_shape(_DOCUMENT.decode(view), plan)
        if not _SHAPE_NAMES & document.keys():
            # Neither shape: the loader's message lists the names found, so
            # every name must be kept.
            raise _WalkMembers
    except (msgspec.ValidationError, _WalkMembers):
        document, dropped = _object(view, plan)
    return document, tuple(dict.fromkeys(dropped))


class _WalkMembers(Exception):
    """The one-pass shapes do not fit this document: walk its objects name by name."""


def _known_shape(shape, plan: dict) -> tuple[dict, list[str]]:
    """A document (or its recording, or a snapshot) decoded in one of the
    shapes above, as a dict with ``plan`` applied, and the names dropped.

    Field order stands for the document's, which only the order of a dict's
    keys could show; equality does not see it."""
    document: dict = {}
    dropped: list[str] = []
    for name in shape.__struct_fields__:
        value = getattr(shape, name)
        if value is _UNSET:
            continue
        inner = plan.get(name, ...)
        if inner is None:
            dropped.append(name)
            continue
        if isinstance(value, msgspec.Raw):
            value = _VALUE.decode(value)
        elif isinstance(value, msgspec.Struct):
            value, names = _known_shape(value, inner)
            dropped += names
        document[name] = value
    return document, dropped


def _object(raw, plan: dict) -> tuple[dict, list[str]]:
    """The object ``raw`` with ``plan`` applied, and the names it dropped."""
    members = _MEMBERS.decode(raw)  # a repeated name keeps its last value, as in json
    result: dict = {}
    dropped: list[str] = []
    for name, value in members.items():
        inner = plan.get(name, ...)
        if inner is None:
            dropped.append(name)
        elif isinstance(inner, dict) and memoryview(value)[0] == _OPEN_OBJECT:
            result[name], nested = _object(value, inner)
            dropped += nested
        else:
            result[name] = _VALUE.decode(value)
    return result, dropped


def _with_headroom(frames: int, work, *args):
    if frames:
        return _with_headroom(frames - 1, work, *args)
    return work(*args)


def _utf8_characters(view: memoryview) -> int:
    """How many characters ``view`` decodes to; Declined if it is not UTF-8."""
    decode = codecs.utf_8_decode
    chars = 0
    start, end = 0, len(view)
    try:
        while start < end:
            text, used = decode(view[start:start + _SLICE], "strict", False)
            if not used:  # a sequence cut short by the end of the input
                raise Declined
            chars += len(text)
            start += used
    except UnicodeDecodeError:
        raise Declined from None
    return chars


def _refuse_risky_numbers(view: memoryview) -> None:
    """Declined if a number token has a 3+ digit exponent or 300+ digits in a row.

    Strings may hold such shapes (a hash like "1781e600"); a match counts only
    where a number token can stand, so those rarely send a file back.
    """
    end = len(view)
    for start in range(0, end, _SLICE):
        piece = bytes(view[start:start + _SLICE + _LONG_DIGITS]).translate(_NUMBER_SHAPES)
        for shape in _RISKY_SHAPES:
            found = piece.find(shape)
            while -1 < found < _SLICE:  # later finds belong to the next slice
                found = _past_token(view, start + found) - start
                found = piece.find(shape, found)


def _past_token(view: memoryview, at: int) -> int:
    """Where the run of number characters around ``at`` ends. Declined if
    that run stands where a number token can (at the start, or after ``:``,
    ``,`` or ``[``) and has an exponent of three or more digits or a run of
    :data:`_LONG_DIGITS` digits."""
    first = at
    while first > 0 and view[first - 1] in _NUMBER_BYTES:
        first -= 1
    end = len(view)
    while at < end and view[at] in _NUMBER_BYTES:
        at += 1
    before = first
    while before > 0 and view[before - 1] in _WHITESPACE:
        before -= 1
    if (before == 0 or view[before - 1] in _BEFORE_NUMBER) and _risky(bytes(view[first:at])):
        raise Declined
    return at


def _risky(token: bytes) -> bool:
    _, exponent_mark, exponent = token.lower().partition(b"e")
    if exponent_mark and len(exponent.lstrip(b"+-")) >= 3:
        return True
    return any(len(run) >= _LONG_DIGITS for run in token.translate(_DIGITS_ALONE).split())

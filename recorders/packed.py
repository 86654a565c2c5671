"""Expand a packed recording (``agentfootprint.recording.packed.v1``) into the plain one.

Newer agentfootprint (``packRecording``, after 9.62) writes a recording with
every repeated value stored once::

    {"format": "agentfootprint.recording.packed.v1",
     "values": [v0, v1, ...],
     "recording": {snapshot, events, structure}}

where ``{"$af:ref": n}`` anywhere stands for ``values[n]`` (a value may refer
to other values) and an object of the recording's own that has a key
``$af:ref`` or ``$af:esc`` is written ``{"$af:esc": <it>}``. Unpacking gives
back the plain recording's JSON byte for byte.

Expanded here with every value SHARED, not copied: a value referred to from a
thousand places is one object in a thousand places, so the expanded document
costs about what the packed one does. That sharing is also the danger: a few
KB can stand for terabytes once walked as a tree. So before anything is
expanded, the size of the plain JSON is measured over the packed form (each
value sized once, each node read once: work like the packed size) and a file
standing for more than ``max_bytes`` is refused (:class:`PackedTooLarge`, an
:class:`ExpansionRefused`). A reference that names no value, a value that
refers to itself, a malformed reference or escape, and a later ``packed.*``
format are refused by name (:class:`RecordingError`), never half-read.

Two ways in, with the same result:

- :func:`expand_packed` takes a parsed document (the loader's hook); the
  measure walks its objects. Parsed by the loader's json-module path (no
  msgspec, or a file the fast way is not sure of), the snapshot's unread
  members are dropped while parsing, before this sees them: the bound then
  covers everything that is built, not those members.
- :func:`parse_packed` takes the file's bytes (what the loader tries first):
  the size is measured over the JSON text (references found in it, each
  value's text once), the snapshot's unread members are measured but never
  built (as the loader does for a plain file), and only the values the kept
  part refers to are decoded. Anything it is not sure of is left to the first.

The expansion replaces references in place, in the freshly parsed document:
it is consumed. Nothing in the loader or the views writes into events (the
loader's path sharing replaces a list with an equal one), so a shared value
stays what every place that refers to it read.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from recorders import fast_parse
from recorders.deep_parse import parsing
from recorders.errors import ExpansionRefused, RecordingError
from recorders.values import describe

PACKED_FORMAT = "agentfootprint.recording.packed.v1"
FORMAT_FAMILY = "agentfootprint.recording.packed."
REF = "$af:ref"
ESC = "$af:esc"

MAX_EXPANDED_ENV = "LENS_MAX_EXPANDED_MB"
DEFAULT_MAX_EXPANDED_MB = 200.0
_MIB = 1024 * 1024
# The loader refuses JSON nested deeper than this; an expansion may not nest deeper either.
MAX_EXPANDED_DEPTH = 10_000
# A level of nesting is a frame of the expansion, a reference two more.
_EXPANSION_RECURSION_LIMIT = 3 * MAX_EXPANDED_DEPTH + 100

_json_string = json.encoder.encode_basestring  # the C encoder: JSON.stringify's escapes


class PackedTooLarge(ExpansionRefused):
    """A packed recording whose plain JSON would be more than ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        RecordingError.__init__(
            self, f"the packed recording stands for more than {_amount(limit)} of plain JSON, "
                  f"past the limit ({MAX_EXPANDED_ENV}); refused before expanding it")


def _amount(count: int) -> str:
    return f"{count / _MIB:,.0f} MiB" if count >= 10 * _MIB else f"{count:,} bytes"


def is_packed_format(value: Any) -> bool:
    """Whether ``value`` (a document's ``format``) names a packed recording, of any version."""
    return isinstance(value, str) and value.startswith(FORMAT_FAMILY)


def max_expanded_bytes() -> int:
    """``LENS_MAX_EXPANDED_MB`` (default 200, the archive's and the upload's) in bytes,
    read now; a value that is not a positive number leaves the default."""
    text = os.environ.get(MAX_EXPANDED_ENV, "")
    try:
        megabytes = float(text)
    except ValueError:
        megabytes = DEFAULT_MAX_EXPANDED_MB
    if not 0 < megabytes < float("inf"):
        megabytes = DEFAULT_MAX_EXPANDED_MB
    return int(megabytes * _MIB)


class ExpandedPacked(dict):
    """A packed document already expanded by :func:`parse_packed`: ``{"format",
    "recording"}`` with the plain recording in it. :func:`expand_packed` hands
    its recording back as it is."""


def expand_packed(document: dict, *, max_bytes: int) -> Any:
    """The plain recording a packed ``document`` stands for, its values shared.

    Raises :class:`PackedTooLarge` when the plain JSON would pass ``max_bytes``
    (measured first, nothing expanded), :class:`RecordingError` for a format
    other than v1, a missing or malformed part, a dangling reference or a cycle.
    ``document`` is a parsed JSON document (a tree); it is expanded in place."""
    if type(document) is ExpandedPacked:
        return document["recording"]
    values = _checked_parts(document)
    _measure_objects(document["recording"], values, max_bytes)
    return _Expansion(values.__getitem__, len(values)).expand(document["recording"])


def _checked_parts(document: dict) -> list:
    fmt = document.get("format")
    if fmt != PACKED_FORMAT:
        shown = repr(fmt)[:80] if isinstance(fmt, str) else describe(fmt)
        raise RecordingError(
            f"format {shown} is a packed format this version does not read; it reads "
            f"{PACKED_FORMAT}: open the file with a Lens that reads it, or unpack it with "
            "the agentfootprint release that wrote it")
    values = document.get("values")
    if not isinstance(values, list):
        raise RecordingError(f"values: expected the list of pooled values, found {describe(values)}")
    if "recording" not in document:
        raise RecordingError("recording: missing (a packed file holds its recording there)")
    return values


def _reserved_among_others(node: dict) -> bool:
    """An object with a reserved key and others: packRecording escapes such an object."""
    return REF in node or ESC in node


def _where(frames: list, key: Any, key_at: int, value_at: int) -> str:
    """Where the member ``key`` of the innermost frame is, for a message: from
    the recording's top, or from the value it lies in. Frames keep the key they
    hold in their parent at ``key_at`` and a value's index (-1 if none) at ``value_at``."""
    path = "recording"
    for frame in frames[1:]:
        if frame[value_at] >= 0:
            path = f"values[{frame[value_at]}]"
        else:
            path += _step(frame[key_at])
    return path if key is None else path + _step(key)


def _step(key: Any) -> str:
    if key is None:
        return ""
    return f"[{key}]" if isinstance(key, int) else f".{key}"


# ─── Measuring over objects ────────────────────────────────────────────


def _measure_objects(root: Any, values: list, max_bytes: int) -> int:
    """Bytes of the plain JSON ``root`` stands for, each value sized once.

    Iterative (a chain of values may be longer than Python's stack); stops at
    the first partial sum over ``max_bytes``: every part counted is part of the
    whole. A frame is [members, bytes so far, members so far, is an object,
    value index or -1, key in its parent]; a value's frame holds it as its one member."""
    count = len(values)
    sizes: list[int | None] = [None] * len(values)
    sizing = bytearray(count)  # 1 while a value is being sized: met again, a cycle
    frames: list[list] = [[iter(((None, root),)), 0, 0, False, -1, None]]
    while True:
        frame = frames[-1]
        opened = False
        for key, node in frame[0]:
            cls = node.__class__
            if cls is str:
                size = _string_bytes(node)
            elif cls is dict:
                if len(node) == 1 and REF in node:
                    index = node[REF]
                    if index.__class__ is not int or not 0 <= index < count:
                        index = _ref_index(index, count, _where(frames, key, 5, 4))
                    size = sizes[index]
                    if size is None:
                        if sizing[index]:
                            raise RecordingError(_cycle(_where(frames, key, 5, 4), index))
                        sizing[index] = 1
                        frames.append([iter(((None, values[index]),)), 0, 0, False, index, key])
                        opened = True
                        break
                else:
                    if len(node) == 1 and ESC in node:
                        node = _escaped(node, _where(frames, key, 5, 4))
                    elif _reserved_among_others(node):
                        raise RecordingError(_reserved(_where(frames, key, 5, 4)))
                    frames.append([iter(node.items()), 2, 0, True, -1, key])
                    opened = True
                    break
            elif cls is list:
                frames.append([iter(enumerate(node)), 2, 0, False, -1, key])
                opened = True
                break
            else:
                size = _scalar_bytes(node, frames, key)
            _add_member(frame, key, size, max_bytes)
        if opened:
            continue
        frames.pop()
        if frame[4] >= 0:
            sizes[frame[4]] = frame[1]
            sizing[frame[4]] = 0
        if len(frames) == 0:
            return frame[1]
        _add_member(frames[-1], frame[5], frame[1], max_bytes)


def _add_member(frame: list, key: Any, size: int, max_bytes: int) -> None:
    if frame[3]:  # an object's member: "name":value
        size += _string_bytes(key) + 1
    if frame[2]:
        size += 1  # the comma before it
    frame[2] += 1
    total = frame[1] + size
    if total > max_bytes:
        raise PackedTooLarge(max_bytes)
    frame[1] = total


def _scalar_bytes(node: Any, frames: list, key: Any) -> int:
    if node is None or node is True:
        return 4
    if node is False:
        return 5
    if node.__class__ is int or node.__class__ is float:
        return _number_bytes(node)
    raise RecordingError(f"{_where(frames, key, 5, 4)}: expected a JSON value, found "
                         f"{describe(node)}")


def _ref_index(index: Any, count: int, where: str) -> int:
    """The value a reference names, or the refusal that says what is wrong with it."""
    if index.__class__ is float and index.is_integer():
        index = int(index)  # JSON does not tell 3 from 3.0
    if index.__class__ is not int:
        raise RecordingError(f"{where}: a reference ({REF}) must name a value by its "
                             f"index, found {describe(index)}")
    if not 0 <= index < count:
        raise RecordingError(f"{where}: a reference names values[{index}], which this "
                             f"packed recording does not hold (it holds {count:,} values)")
    return index


def _cycle(where: str, index: int) -> str:
    return (f"{where}: values[{index}] refers to itself (through the values it holds): "
            "a cycle, which no recording can hold")


def _reserved(where: str) -> str:
    return (f"{where}: an object with the reserved key {REF!r} or {ESC!r} beside others, "
            "not escaped; packRecording writes such an object as {\"$af:esc\": ...}")


def _escaped(node: dict, where: str) -> dict:
    inner = node[ESC]
    if inner.__class__ is not dict:
        raise RecordingError(f"{where}: an escape ({ESC}) must hold the object it "
                             f"stands for, found {describe(inner)}")
    return inner


def _string_bytes(text: str) -> int:
    """UTF-8 bytes of ``text`` written as a JSON string, as ``JSON.stringify`` does."""
    quoted = _json_string(text)
    try:
        return len(quoted.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate half: JSON writes it as \\udxxx
        halves = sum(1 for char in quoted if "\ud800" <= char <= "\udfff")
        return len(quoted.encode("utf-8", "surrogatepass")) + 3 * halves


def _number_bytes(number: int | float) -> int:
    """Length of ``number`` as JavaScript prints it (a JSON number is a double)."""
    try:
        value = float(number)
    except OverflowError:
        return 4  # past double range: Infinity, which JSON writes as null
    if value != value or value in (float("inf"), float("-inf")):
        return 4
    if value == 0:
        return 1  # 0 and -0 both print as 0
    if number.__class__ is int and abs(number) < 10**15:
        return len(str(number))  # the usual case: a whole number a double holds exactly
    digits, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = digits.partition(".")
    both = whole + fraction
    significant = both.lstrip("0")
    # abs(value) = 0.<significant> × 10^point
    point = len(whole) - (len(both) - len(significant)) + (int(exponent) if exponent else 0)
    significant = significant.rstrip("0") or "0"
    count = len(significant)
    if count <= point <= 21:
        length = point
    elif 0 < point <= 21:
        length = count + 1
    elif -6 < point <= 0:
        length = 2 - point + count
    else:
        length = count + (count > 1) + 2 + len(str(abs(point - 1)))
    return length + (value < 0)


# ─── Expanding ─────────────────────────────────────────────────────────


class _Expansion:
    """Replace, in place, every reference with its value's one object and every
    escape with the object it holds; each value is expanded once (``value(i)``
    gives its packed form). Notes the deepest nesting of the result on the
    way, which may not pass :data:`MAX_EXPANDED_DEPTH` (the plain file's parse
    would be refused): a container's depth is handed down the walk, and a
    reference reaches its depth plus its value's height.

    Recursive, for speed: the measure has already walked the same structure
    iteratively and refused what is malformed, too deep a chain of values
    (the recursion limit is raised for it, as the parser's is) included."""

    def __init__(self, value, count: int, measured_as_text: bool = False) -> None:
        self.value = value
        self.count = count
        self.measured_as_text = measured_as_text
        self.done: dict[int, tuple[Any, int]] = {}  # value index: (object, height)
        self.opened: set[int] = set()
        self.deepest = 0  # of the structure being walked: the document, or a value

    def expand(self, root: Any) -> Any:
        holder = [root]
        try:
            with parsing(_EXPANSION_RECURSION_LIMIT):
                self._list(holder, -1)  # the root's own level is 1
        except RecursionError:
            self.deepest = MAX_EXPANDED_DEPTH + 1
        if self.deepest > MAX_EXPANDED_DEPTH:
            raise RecordingError(f"the packed recording expands to JSON nested deeper than "
                                 f"this reader allows (about {MAX_EXPANDED_DEPTH:,} levels)")
        return holder[0]

    def _value(self, index: Any) -> tuple[Any, int]:
        """Value ``index``, expanded, and its height (0 for a string or number)."""
        found = self.done.get(index)
        if found is None:
            if index.__class__ is not int or not 0 <= index < self.count:
                return self._value(_ref_index(index, self.count, "a reference"))
            if index in self.opened:
                raise RecordingError(_cycle(f"values[{index}]", index))
            self.opened.add(index)
            slot = [self.value(index)]
            outer, self.deepest = self.deepest, 0
            self._list(slot, -1)
            found = self.done[index] = (slot[0], self.deepest)
            self.deepest = outer
        return found

    # _dict and _list are one walk written twice, over items() and over
    # enumerate(): it visits every kept node of the file (about 105,000 on the
    # loop recording), the hottest loop of a packed open, so neither pays for
    # a shared body's dispatch on the container's type.
    def _dict(self, node: dict, depth: int) -> None:
        """Expand the members of ``node``, a container inside ``depth`` others, in place."""
        depth += 1
        if depth > self.deepest:
            self.deepest = depth
        done = self.done
        # Measured from the text, an escape anywhere was refused there, and a
        # reference key was taken for a reference: one beside other keys here
        # was not one (JSON.stringify never writes it so); the objects decide.
        if self.measured_as_text and REF in node:
            raise _NotSure
        for key, member in node.items():
            cls = member.__class__
            if cls is dict:
                if len(member) == 1:
                    if REF in member:
                        found = done.get(member[REF]) or self._value(member[REF])
                        node[key] = found[0]
                        if depth + found[1] > self.deepest:
                            self.deepest = depth + found[1]
                        continue
                    if ESC in member:
                        member = node[key] = _escaped(member, f"the member {key!r}")
                self._dict(member, depth)
            elif cls is list:
                self._list(member, depth)

    def _list(self, node: list, depth: int) -> None:
        """Expand the members of ``node``, a container inside ``depth`` others, in place."""
        depth += 1
        if depth > self.deepest:
            self.deepest = depth
        done = self.done
        for key, member in enumerate(node):
            cls = member.__class__
            if cls is dict:
                if len(member) == 1:
                    if REF in member:
                        found = done.get(member[REF]) or self._value(member[REF])
                        node[key] = found[0]
                        if depth + found[1] > self.deepest:
                            self.deepest = depth + found[1]
                        continue
                    if ESC in member:
                        member = node[key] = _escaped(member, f"the member [{key}]")
                self._dict(member, depth)
            elif cls is list:
                self._list(member, depth)


# ─── The fast way in: from the file's bytes ─────────────────────────────

# How agentfootprint writes the file (``JSON.stringify`` of {format, recording,
# values}): the format first. Another order is read by the loader's own parse
# and :func:`expand_packed`.
_LOOKS_PACKED = re.compile(
    rb'(?:\xef\xbb\xbf)?[ \t\n\r]*\{[ \t\n\r]*"format"[ \t\n\r]*:[ \t\n\r]*"'
    + re.escape(PACKED_FORMAT.encode()) + rb'"')
# Every "$af:" in a text, with the index when it goes on as a reference does
# in what JSON.stringify writes; any other is left to the objects (an escape,
# a reserved key or a text that merely holds the characters).
_RESERVED_TEXT = re.compile(rb'\$af:(?:ref":(0|[1-9][0-9]{0,17})\})?')
_REF_TEXT_LENGTH = len(b'{"$af:ref":}')
# A \u escape of a character JSON.stringify writes as itself could spell a
# reserved key; it writes \u only for control characters and surrogate halves.
_UNICODE_ESCAPE = re.compile(rb"\\u([0-9a-fA-F]{4})")
_BOM = b"\xef\xbb\xbf"
_WHITESPACE = b" \t\n\r"
# The top as JSON.stringify writes packRecording's result, around the recording's text.
_WRITTEN_HEAD = b'{"format":"' + PACKED_FORMAT.encode() + b'","recording":'
_VALUES_KEY = b',"values":'
# JSON.stringify writes no newline outside an indented file: one this early means indented.
_PRETTY_PROBE = 4096

if fast_parse.available():
    import msgspec

    class _PackedParts(msgspec.Struct):
        """The top of a packed file with its parts left as JSON text."""

        format: Any = msgspec.UNSET
        values: list[msgspec.Raw] | msgspec.UnsetType = msgspec.UNSET
        recording: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET

    _PARTS = msgspec.json.Decoder(_PackedParts)
    _VALUE = msgspec.json.Decoder()
    _DECODE_FAILURES: tuple[type[BaseException], ...] = (msgspec.DecodeError, RecursionError,
                                                          ValueError, TypeError)


class _NotSure(Exception):
    """The text does not read as agentfootprint writes it: the objects decide."""


def looks_packed(raw: bytes) -> bool:
    """Whether ``raw`` opens as agentfootprint writes a packed v1 recording."""
    return _LOOKS_PACKED.match(raw, 0, 512) is not None


def parse_kept(raw: bytes, plan: dict) -> tuple[Any, tuple[str, ...], int]:
    """:func:`recorders.fast_parse.parse_kept`, reading a packed recording as
    one (expanded, see :func:`parse_packed`); Declined as it declines, and for
    a packed file this way cannot be sure of, so that the json module parses it
    with every part kept for :func:`expand_packed`."""
    if looks_packed(raw):
        expanded = parse_packed(raw, plan, max_bytes=max_expanded_bytes())
        if expanded is None:
            raise fast_parse.Declined
        return expanded
    parsed = fast_parse.parse_kept(raw, plan)
    if isinstance(parsed[0], dict) and is_packed_format(parsed[0].get("format")):
        # Written in another order: the fast parse skipped its values.
        expanded = parse_packed(raw, plan, max_bytes=max_expanded_bytes())
        if expanded is None:
            raise fast_parse.Declined
        return expanded
    return parsed


def parse_packed(raw: bytes, plan: dict, *, max_bytes: int
                 ) -> tuple[ExpandedPacked, tuple[str, ...], int] | None:
    """A packed file's bytes, expanded: (the document, the names ``plan``
    dropped, the text's characters), as :func:`recorders.fast_parse.parse_kept`
    gives them; None when this way cannot be sure, and the loader parses the
    file itself (its hook then calls :func:`expand_packed`).

    One parse (:func:`recorders.fast_parse.parse_kept_packed`) keeps the
    recording as the loader keeps a plain one (the snapshot's unread members
    skipped, never built) and leaves each pooled value as its text. The
    plain size is measured over the JSON text: each value's text once, each
    reference in a text the size of its value, the unread members included.
    Only the values the kept part refers to are decoded, each once."""
    if not fast_parse.available():
        return None
    try:
        document, dropped, chars = fast_parse.parse_kept_packed(raw, plan)
    except fast_parse.Declined:
        return None
    if document["format"] != PACKED_FORMAT:
        return None
    text = memoryview(raw)[len(_BOM):] if raw.startswith(_BOM) else memoryview(raw)
    try:
        _refuse_escapes_that_spell_a_key(raw)
        texts, recording_text = _texts_as_written(text, document["values"])
        _measure_texts(text, recording_text, texts, max_bytes)
    except _NotSure:
        return None

    def value(index: int) -> Any:
        try:
            return _VALUE.decode(texts[index])
        except RecursionError:
            raise  # deep in a chain of values: the expansion says how deep is too deep
        except _DECODE_FAILURES:
            raise _NotSure from None

    try:
        recording = _Expansion(value, len(texts), measured_as_text=True).expand(
            document["recording"])
    except _NotSure:
        return None
    return ExpandedPacked(format=PACKED_FORMAT, recording=recording), dropped, chars


def _texts_as_written(text: memoryview, values: list) -> tuple[list, memoryview]:
    """The pooled values' texts and the recording's, as the measure reads
    them: compact JSON. Written by JSON.stringify (compact; the format, the
    recording, then the values), the recording's text is found from the
    values' lengths alone; otherwise the top is parsed again for it, and an
    indented file is measured as the compact JSON it stands for."""
    if b"\n" in bytes(text[:_PRETTY_PROBE]):  # indented
        return _compact_parts(text)
    end = len(text)
    while end and text[end - 1] in _WHITESPACE:
        end -= 1
    # ,"values":[v0,v1,...]} closes the file: "[", the texts, a comma between two, "]}".
    values_at = end - 2 - sum(map(len, values)) - max(len(values) - 1, 0) - 1
    key_at = values_at - len(_VALUES_KEY)
    if (key_at > len(_WRITTEN_HEAD) and text[:len(_WRITTEN_HEAD)] == _WRITTEN_HEAD
            and text[key_at:values_at + 1] == _VALUES_KEY + b"[" and text[end - 2:end] == b"]}"):
        return values, text[len(_WRITTEN_HEAD):key_at]
    try:
        parts = _PARTS.decode(text)
    except _DECODE_FAILURES:
        raise _NotSure from None
    return values, memoryview(parts.recording)


def _refuse_escapes_that_spell_a_key(raw: bytes) -> None:
    """:class:`_NotSure` when ``raw`` holds a \\u escape JSON.stringify would not
    write (it could spell a reserved key the text's search would miss)."""
    if raw.find(b"\\u") < 0:  # no escape at all: nothing to look at
        return
    for match in _UNICODE_ESCAPE.finditer(raw):
        code = int(match[1], 16)
        if code >= 0x20 and not 0xD800 <= code <= 0xDFFF:
            raise _NotSure


def _measure_texts(text: bytes, recording: bytes, values: list[bytes], max_bytes: int) -> int:
    """The plain size of the recording from the texts of the recording and of
    each value (found in the file's ``text``); :class:`PackedTooLarge` past ``max_bytes``.

    A text's plain size is its own length, less each reference's text, plus
    the size of the value referred to: exact for what JSON.stringify writes
    (compact, no escapes it would not write). :class:`_NotSure` when the text
    holds an escape object, a reserved key written otherwise, a dangling
    reference or a cycle: the objects then decide, and name the problem where it is."""
    try:
        return _TextSizes(values, max_bytes).plain_size(recording)
    except _OverLimit:
        # Sized from the text as written, where spaces, or a member beside the
        # recording, count too: measured again over the compact JSON, exactly.
        values, recording = _compact_parts(text)
        return _TextSizes(values, max_bytes, exact=True).plain_size(recording)


def _compact_parts(text: bytes) -> tuple[list, memoryview]:
    """The pooled values' texts and the recording's in the compact JSON of the
    packed file ``text``; :class:`_NotSure` if it cannot be read so."""
    try:
        parts = _PARTS.decode(_compact(text))
    except _DECODE_FAILURES:
        raise _NotSure from None
    return list(parts.values), memoryview(parts.recording)


class _OverLimit(Exception):
    """A size past the limit, measured over text that may not be compact."""


def _compact(text: bytes) -> bytes:
    return msgspec.json.format(text, indent=-1)


class _TextSizes:
    """Plain sizes from texts. A value's size is its text's length plus, for
    each reference in it, its value's size less the reference's own text:
    each value sized once, after the values it refers to (a walk with a stack
    of its own: a chain of values may be longer than Python's stack).

    Sizes stop counting one past ``max_bytes``: a value that large refuses any
    recording that reaches it, and a chain of values each doubling the last
    adds no more than that (Python's integers would grow with it)."""

    def __init__(self, values: list[bytes], max_bytes: int, exact: bool = False) -> None:
        self.values = values
        self.max_bytes = max_bytes
        self.exact = exact

    def over(self) -> Exception:
        return PackedTooLarge(self.max_bytes) if self.exact else _OverLimit()

    def plain_size(self, recording: bytes) -> int:
        nets = self._nets()
        try:
            size = len(recording) + sum(map(nets.__getitem__, _RESERVED_TEXT.findall(recording)))
        except KeyError:  # a dangling reference, or "$af:" written otherwise
            raise _NotSure from None
        if size > self.max_bytes:
            raise self.over()
        return size

    def _nets(self) -> dict[bytes, int]:
        """What a reference to each value adds to the length of the text it
        stands in, keyed by the digits it is written with. :class:`_NotSure`
        for a dangling reference, a cycle or "$af:" written otherwise: the
        objects' walk then names the problem where it is."""
        values, count = self.values, len(self.values)
        ceiling = self.max_bytes + 1
        nets: dict[bytes, int] = {}
        found: list[list[bytes] | None] = [None] * count
        open_values: set[int] = set()  # being sized: the path down from a root
        for root in range(count):
            stack = [root]
            while stack:
                index = stack[-1]
                inner = found[index]
                if inner is None:
                    inner = found[index] = _RESERVED_TEXT.findall(values[index])
                    if b"" in inner:
                        raise _NotSure
                    open_values.add(index)
                    waiting = False
                    for digits in inner:
                        if digits not in nets:
                            below = int(digits)
                            if below >= count or below in open_values:
                                raise _NotSure  # dangling, or a cycle
                            stack.append(below)
                            waiting = True
                    if waiting:
                        continue
                stack.pop()
                digits = b"%d" % index
                if digits in nets:
                    continue  # sized already, reached again through another value
                size = len(values[index]) + sum(map(nets.__getitem__, inner))
                nets[digits] = min(size, ceiling) - _REF_TEXT_LENGTH - len(digits)
                open_values.discard(index)
        return nets

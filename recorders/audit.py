"""Read and verify a hash-chained audit bundle (``agentfootprint.audit/1``).

agentfootprint's ``auditExport()`` strategy keeps one record per typed event
(model tokens left out by default) and one ``audit.genesis`` record before
the first event of each run, and writes them as ``{header, records,
finalHash}``; ``drain()`` writes the same shape for the records since the
last drain (a *segment*, whose ``header.chainHead`` is the previous
segment's ``finalHash``).

Each record is ``{seq, timestamp, eventType, payload, meta, prevHash, hash}``:
``hash`` is the SHA-256 (lowercase hex) of the UTF-8 bytes of the record
without its ``hash`` member, written in the canonical JSON the header names
(``afp-cjson/1``): object keys sorted by UTF-16 code unit, no whitespace,
strings and numbers exactly as JavaScript's ``JSON.stringify`` writes them.
``prevHash`` is the previous record's ``hash`` (for the first record, the
header's ``chainHead``: 64 zeros at the start of a chain). This module
re-computes every hash, walks the links, and names the first record that
breaks them, checking in the order agentfootprint's own ``verifyAuditBundle``
does.

It also turns the records back into typed events ``{type, payload, meta}``
for the views. Their payloads are what the export kept: by default tool
arguments are reduced to their key names, results to their type, and text to
its length (``"[120 chars]"``). The ``timestamp`` the export lifted out of
each event's meta is put back as ``meta.wallClockMs``.

What this owns: the canonical form, the hash walk, and records → typed events.
What it does not: parsing bytes, or making a :class:`~recorders.loading.Recording`
(``recorders/loading.py`` does both and calls :func:`read_audit_bundle`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from typing import Any

from recorders.catalogue import LLM_TOKEN
from recorders.errors import RecordingError
from recorders.gaps import Gap
from recorders.read.event_stream import stream_gaps
from recorders.values import describe, is_number

AUDIT_FORMAT = "agentfootprint.audit/1"
AUDIT_FORMAT_FAMILY = "agentfootprint.audit/"
HASH_ALGORITHM = "sha-256"
CANONICALIZATION = "afp-cjson/1"
ZERO_HASH = "0" * 64
GENESIS_TYPE = "audit.genesis"
# Records the audit chain writes of its own, not events the framework emitted:
# counted apart from the framework's typed events.
CHAIN_RECORD_TYPES = frozenset({GENESIS_TYPE})
TOKEN_TYPE = LLM_TOKEN
UNFINISHED_RUN = ("the records stop before the run's end: the bundle was taken while the run "
                  "was going (bundle() and drain() may be called mid-run), or the run crashed")
BOUNDED_PAYLOADS = ("payloads are bounded by the audit export: tool arguments are key names, "
                    "results types, content lengths")
# How the bounded export writes a result in place of its text: its type.
_BOUNDED_RESULT = re.compile(r"\[type: [a-z]+\]")


def is_bounded_result(value: object) -> bool:
    """Whether ``value`` is the bounded audit export's stand-in for a result
    (``[type: string]``): no words of the tool's, so not to be quoted as its own."""
    return isinstance(value, str) and _BOUNDED_RESULT.fullmatch(value) is not None

# Float64 holds every integer of at most this size exactly, and JavaScript
# writes each of them in plain digits.
_EXACT_INT = 2 ** 53
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_HIGH_UNIT = re.compile("[\ud800-\uffff]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


# ─── afp-cjson/1: canonical JSON as agentfootprint 9.62 writes it ──────


def canonical_json(value: Any) -> str:
    """``value`` (a parsed JSON tree) in canonical JSON; TypeError for anything
    JSON cannot hold.

    The json module writes the same text several times faster whenever its
    number layout and key order agree with JavaScript's, which a quick walk
    tells (:func:`_numbers_agree`, :func:`_order_may_differ`); otherwise, and
    for a tree nested deeper than it recurses, :func:`canonical_json_walk`."""
    if _numbers_agree(value):
        try:
            text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        except (RecursionError, TypeError, ValueError):
            text = None
        if text is not None and not _order_may_differ(text):
            if _LONE_SURROGATE.search(text):
                text = _LONE_SURROGATE.sub(_surrogate_escape, text)
            return text
    return canonical_json_walk(value)


def canonical_json_walk(value: Any) -> str:
    """:func:`canonical_json`, written piece by piece with a stack (any depth)."""
    parts: list[str] = []
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        kind = node.__class__
        if kind is _Literal:
            parts.append(node.text)
        elif kind is str:
            parts.append(js_string(node))
        elif node is None:
            parts.append("null")
        elif node is True:
            parts.append("true")
        elif node is False:
            parts.append("false")
        elif kind is int or kind is float:
            parts.append(js_number(node))
        elif isinstance(node, dict):
            keys = _sorted_keys(node)
            stack.append(_CLOSE_OBJECT)
            for i in range(len(keys) - 1, -1, -1):
                stack.append(node[keys[i]])
                stack.append(_Literal(("," if i else "") + js_string(keys[i]) + ":"))
            parts.append("{")
        elif isinstance(node, (list, tuple)):
            stack.append(_CLOSE_LIST)
            for i in range(len(node) - 1, -1, -1):
                stack.append(node[i])
                if i:
                    stack.append(_COMMA)
            parts.append("[")
        elif isinstance(node, str):
            parts.append(js_string(str(node)))
        elif is_number(node):
            parts.append(js_number(node))
        else:
            raise TypeError(f"{type(node).__name__} is not a JSON value")
    return "".join(parts)


def record_hash(record: dict) -> str:
    """The SHA-256 hex of ``record`` without its ``hash`` member, canonical JSON in UTF-8."""
    preimage = {key: value for key, value in record.items() if key != "hash"}
    return hashlib.sha256(canonical_json(preimage).encode("utf-8")).hexdigest()


def _numbers_agree(value: Any) -> bool:
    """Whether every number in ``value`` is written alike by Python's json module
    and JavaScript: an integer JavaScript holds exactly, or a fraction between
    1e-4 and 1e16 (where neither uses an exponent). ``1.0``, ``-0.0``, ``1e21``
    and ``1e-7`` are not."""
    stack = [value]
    while stack:
        node = stack.pop()
        kind = node.__class__
        if kind is dict:
            stack.extend(node.values())
        elif kind is list:
            stack.extend(node)
        elif kind is float:
            if node.is_integer() or not 1e-4 <= abs(node) < 1e16:
                return False
        elif kind is int:
            if not -_EXACT_INT <= node <= _EXACT_INT:
                return False
        elif kind is not str and kind is not bool and node is not None:
            return False
    return True


def _order_may_differ(text: str) -> bool:
    """Whether keys could sort differently by code point (Python) than by UTF-16
    unit (JavaScript): only when a character past U+FFFF meets one in U+D800..U+FFFF."""
    return _HIGH_UNIT.search(text) is not None and _ASTRAL.search(text) is not None


def _surrogate_escape(found: re.Match) -> str:
    return f"\\u{ord(found.group()):04x}"


def js_string(text: str) -> str:
    """A string as ``JSON.stringify`` writes it: only ``"``, ``\\`` and control
    characters escaped (``\\n`` style where one exists, else ``\\u00xx``), and
    half of a surrogate pair, which UTF-16 strings can hold, as ``\\udxxx``."""
    # The json module escapes exactly the same set without ensure_ascii, in the
    # same spelling (lowercase hex); it leaves a lone surrogate as it is.
    written = json.dumps(text, ensure_ascii=False)
    if _LONE_SURROGATE.search(written):
        written = _LONE_SURROGATE.sub(_surrogate_escape, written)
    return written


def js_number(value: int | float) -> str:
    """A JSON number as ``JSON.stringify`` writes the float64 JavaScript reads
    it as: shortest round-trip digits, plain from 1e-6 up to below 1e21 and
    with an exponent (``1e+21``, ``1.5e-7``) outside that, ``-0`` as ``0``, and
    a value past float64 range (Infinity in JavaScript) as ``null``."""
    if isinstance(value, int):
        if -_EXACT_INT <= value <= _EXACT_INT:
            return str(value)
        try:
            value = float(value)  # correctly rounded, as JavaScript reads the literal
        except OverflowError:
            return "null"
    if not math.isfinite(value):
        return "null"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    # repr gives the shortest digits that read back as the same float, as
    # ECMAScript's Number::toString does; only the layout differs.
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # value = 0.<digits> × 10**point
    point = len(whole) + int(exponent or 0) - (len(whole + fraction) - len(digits))
    digits = digits.rstrip("0")
    count = len(digits)
    if count <= point <= 21:
        text = digits + "0" * (point - count)
    elif 0 < point <= 21:
        text = digits[:point] + "." + digits[point:]
    elif -6 < point <= 0:
        text = "0." + "0" * -point + digits
    else:
        power = point - 1
        power_text = ("+" if power >= 0 else "-") + str(abs(power))
        text = digits[0] + ("." + digits[1:] if count > 1 else "") + "e" + power_text
    return sign + text


def _sorted_keys(node: dict) -> list[str]:
    keys = list(node)
    for key in keys:
        if not key.isascii():
            # JavaScript compares UTF-16 code units: a character past U+FFFF
            # (two units, the first U+D800..U+DBFF) sorts before U+E000..U+FFFF.
            return sorted(keys, key=_utf16_units)
    return sorted(keys)


def _utf16_units(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


class _Literal:
    """Punctuation already written, waiting on the serializer's stack."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


_COMMA, _CLOSE_LIST, _CLOSE_OBJECT = _Literal(","), _Literal("]"), _Literal("}")


# ─── The bundle ─────────────────────────────────────────────────────────


@dataclass(frozen=True)
class AuditCheck:
    """What verifying the chain found.

    ``first_bad_record`` is the seq of the first record that breaks the chain
    (for a missing record, the seq expected there); None when the chain is
    intact, or when only the header's record count disagrees and no record
    can be named. ``problem`` says what broke, in a sentence.
    """

    records: int
    chain_intact: bool
    first_bad_record: int | None
    problem: str | None
    first_seq: int
    chain_head: str
    final_hash: str

    @property
    def segment(self) -> bool:
        """A ``drain()`` segment: the chain started before this file (a header
        that mixes a chain start's seq 0 or zero hash with the other is no
        segment, but a broken chain)."""
        return self.first_seq > 0 and self.chain_head != ZERO_HASH

    def status(self) -> str:
        """One sentence: intact with how many records, or where and why it broke."""
        if self.chain_intact:
            counted = "1 record" if self.records == 1 else f"{self.records} records"
            return f"hash chain intact: {counted}"
        if self.first_bad_record is None:
            return f"hash chain broken: {self.problem}"
        return f"hash chain broken at record seq {self.first_bad_record}: {self.problem}"

    def to_wire(self) -> dict[str, Any]:
        return {"records": self.records, "chainIntact": self.chain_intact,
                "firstBadRecord": self.first_bad_record}


@dataclass
class AuditBundle:
    header: dict
    check: AuditCheck
    # Every record as {type, payload, meta}, genesis records included (type audit.genesis).
    typed_events: list[dict]

    @property
    def records(self) -> int:
        return self.check.records

    @property
    def chain_intact(self) -> bool:
        return self.check.chain_intact

    @property
    def first_bad_record(self) -> int | None:
        return self.check.first_bad_record

    @property
    def library_version(self) -> str | None:
        library = self.header.get("library")
        version = library.get("version") if isinstance(library, dict) else None
        return version if isinstance(version, str) else None


def is_audit_document(document: Any) -> bool:
    """Whether a parsed document is, or is meant to be, an audit bundle (of any
    version): its header says so, or it has the bundle's records beside a header
    or a finalHash (so a bundle that lost its header is refused as one)."""
    if not isinstance(document, dict):
        return False
    header = document.get("header")
    if isinstance(header, dict):
        fmt = header.get("format")
        if isinstance(fmt, str) and fmt.startswith(AUDIT_FORMAT_FAMILY):
            return True
    return "records" in document and ("header" in document or "finalHash" in document)


def read_audit_bundle(document: Any) -> AuditBundle:
    """Verify a parsed audit bundle and turn its records into typed events.

    A broken chain is a finding (``check``), not an error: the records are
    still shown. RecordingError, naming the problem, for what is not a bundle
    this version can check: a missing or malformed header, another format,
    hash algorithm or canonicalization, records or finalHash missing."""
    header, records, final_hash = _parts(document)
    check = _verify(header, records, final_hash)
    typed_events: list[dict] = []
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise RecordingError(f"records[{index}]: expected an object, found {describe(record)}")
        kind = record.get("eventType")
        if not isinstance(kind, str):
            raise RecordingError(f"records[{index}].eventType: expected a string, found "
                                 + (describe(kind) if "eventType" in record else "nothing"))
        typed_events.append(_typed_event(record))
    return AuditBundle(header=header, check=check, typed_events=typed_events)


def audit_gaps(check: AuditCheck, events: list[dict]) -> list[Gap]:
    """What a person must know about an audit bundle opened as a run, in plain
    words: the chain's state (the whole file's), and of ``events`` (the records
    of the run shown, as typed events) how their payloads were kept and which
    genesis record anchors them."""
    gaps = [Gap("audit-chain", check.status())]
    if check.segment:
        if check.records:
            span = f"records seq {check.first_seq}–{check.first_seq + check.records - 1}"
        else:
            span = f"no records (the next would be seq {check.first_seq})"
        gaps.append(Gap("audit-segment", (
            f"a drain() segment of a longer audit chain: {span}; the records before seq "
            f"{check.first_seq} are in earlier segments, and this one was verified from its "
            f"chainHead {check.chain_head[:12]}…")))
    genesis = [event for event in events if event.get("type") == GENESIS_TYPE]
    gaps.append(Gap("audit-payloads", _payload_sentence(_payload_modes(genesis))))
    gaps.extend(_genesis_gaps(genesis, events, check.segment))
    gaps.extend(_unfinished_gaps(events, check.segment))
    gaps.append(Gap("no-boundary-log", (
        "an audit bundle has no boundary log, snapshot or structure: steps need the boundary "
        "log, so there are none; calls, tools, context, causes, the timeline and the route "
        "come from the records")))
    if not any(event.get("type") == TOKEN_TYPE for event in events):
        gaps.append(Gap("no-tokens", "the audit export leaves out streamed model tokens "
                        "(stream.token) unless told to keep them"))
    return gaps


def _unfinished_gaps(events: list[dict], segment: bool) -> list[Gap]:
    """Calls started and not ended, and a run the records stop before the end of,
    as an event stream's are told (the same reading), in an audit bundle's words."""
    gaps = []
    for gap in stream_gaps(events):
        if gap.message.startswith("the stream stops"):
            if segment:
                continue  # a segment may hold the end of a run begun in an earlier one
            gap = Gap(gap.code, UNFINISHED_RUN)
        gaps.append(gap)
    return gaps


def _payload_modes(genesis: list[dict]) -> list[str]:
    """The payload modes genesis records declare, in order, each once."""
    modes = (event["payload"].get("payloadMode") for event in genesis
             if isinstance(event.get("payload"), dict))
    return list(dict.fromkeys(mode for mode in modes if isinstance(mode, str)))


def _payload_sentence(modes: list[str]) -> str:
    if modes == ["bounded"]:
        return BOUNDED_PAYLOADS
    if modes == ["verbatim"]:
        return ("payloads are as the run emitted them (the audit export's verbatim mode), "
                "cut to 256 characters per text and 32 items per list")
    if not modes:
        return ("no genesis record here says how payloads were kept; by default "
                + BOUNDED_PAYLOADS)
    return ("the genesis records name several payload modes ("
            + ", ".join(_quoted(mode) for mode in modes) + "); in bounded mode " + BOUNDED_PAYLOADS)


def _genesis_gaps(genesis: list[dict], events: list[dict], segment: bool) -> list[Gap]:
    """Each run's genesis record said once; a run without one in ``events`` said too."""
    gaps: list[Gap] = []
    anchored: set = set()
    for event in genesis:
        payload = event["payload"] if isinstance(event.get("payload"), dict) else {}
        meta = event["meta"] if isinstance(event.get("meta"), dict) else {}
        facts = []
        agent = payload.get("agent")
        if isinstance(agent, str):
            facts.append(f"agent {_quoted(agent)}")
        library = payload.get("library")
        version = library.get("version") if isinstance(library, dict) else None
        if isinstance(version, str):
            facts.append(f"agentfootprint {_quoted(version)[1:-1]}")
        versions = payload.get("versions")
        if isinstance(versions, dict) and versions:
            facts.append("versions " + ", ".join(
                f"{_quoted(str(name))[1:-1]} {_quoted(str(value))[1:-1]}"
                for name, value in list(versions.items())[:6]))
        run_id = payload.get("runId", meta.get("runId"))
        run = _quoted(run_id) if isinstance(run_id, str) else "(no run id)"
        said = f": {', '.join(facts)}" if facts else ""
        gaps.append(Gap("audit-genesis", f"run {run} is anchored by its genesis record "
                                         f"(audit.genesis){said}"))
        anchored.add(meta.get("runId"))
    unanchored: list[str] = []
    for event in events:
        meta = event.get("meta")
        run = meta.get("runId") if isinstance(meta, dict) else None
        if isinstance(run, str) and run not in anchored and run not in unanchored:
            unanchored.append(run)
    if unanchored:
        runs = ", ".join(_quoted(run) for run in unanchored[:4])
        more = f" and {len(unanchored) - 4} more" if len(unanchored) > 4 else ""
        where = ("it is in an earlier segment" if segment
                 else "the export writes one before each run's first record")
        gaps.append(Gap("audit-genesis", f"no genesis record for run {runs}{more} in this file "
                                         f"({where})"))
    return gaps


def _parts(document: Any) -> tuple[dict, list, str]:
    if not isinstance(document, dict):
        raise RecordingError(f"expected an audit bundle object, found {describe(document)}")
    header = document.get("header")
    if not isinstance(header, dict):
        raise RecordingError("header: expected the audit bundle's header object, found "
                             + ("nothing" if "header" not in document else describe(header)))
    fmt = header.get("format")
    if fmt != AUDIT_FORMAT:
        if isinstance(fmt, str):
            raise RecordingError(f"header.format {_quoted(fmt)} is not supported; this version "
                                 f"reads {AUDIT_FORMAT}")
        found = describe(fmt) if "format" in header else "nothing"
        raise RecordingError(f"header.format: expected '{AUDIT_FORMAT}' (an audit bundle's "
                             f"header), found {found}")
    for name, supported in (("hashAlgorithm", HASH_ALGORITHM),
                            ("canonicalization", CANONICALIZATION)):
        value = header.get(name)
        if value != supported:
            shown = _quoted(value) if isinstance(value, str) else describe(value)
            raise RecordingError(f"header.{name} {shown} is not supported; {AUDIT_FORMAT} "
                                 f"bundles are checked with {supported}")
    for name, expected, ok in (("firstSeq", "a whole number", _is_seq),
                               ("chainHead", "a hash string", _is_str)):
        value = header.get(name)
        if not ok(value):
            raise RecordingError(f"header.{name}: expected {expected}, found "
                                 + ("nothing" if name not in header else describe(value)))
    records = document.get("records")
    if not isinstance(records, list):
        raise RecordingError("records: expected the list of audit records, found "
                             + ("nothing" if "records" not in document else describe(records)))
    final_hash = document.get("finalHash")
    if not isinstance(final_hash, str):
        raise RecordingError("finalHash: expected a hash string, found "
                             + ("nothing" if "finalHash" not in document else describe(final_hash)))
    return header, records, final_hash


def _verify(header: dict, records: list, final_hash: str) -> AuditCheck:
    """The chain walk, in verifyAuditBundle's order of checks. Unlike it, a
    record count that disagrees with the header does not stop the walk, so the
    record where the chain breaks is named as well."""
    first_seq = int(header["firstSeq"])
    chain_head = header["chainHead"]
    problems: list[str] = []
    bad: int | None = None

    declared = header.get("recordCount")
    count_differs = not (is_number(declared) and declared == len(records))
    if count_differs:
        shown = _number_text(declared) if is_number(declared) else describe(declared)
        problems.append(f"the header's recordCount {shown} does not match the "
                        f"{len(records)} records in the file")

    # A chain start is seq 0 on the zero hash, both ways round: otherwise the
    # first records (the genesis with them) could be cut off unseen.
    if first_seq == 0 and chain_head != ZERO_HASH:
        bad = 0
        problems.insert(0, "a chain that starts at seq 0 must start from the zero hash, "
                           "and the header's chainHead is not it")
    elif chain_head == ZERO_HASH and first_seq != 0:
        bad = first_seq
        problems.insert(0, f"the header's chainHead is the zero hash (a chain start) but its "
                           f"firstSeq is {first_seq}, not 0")
    else:
        bad, reason = _walk(records, first_seq, chain_head, final_hash)
        if reason is not None:
            problems.insert(0, reason)
        if bad is None and count_differs and is_number(declared):
            # Every record present checks out: the first one the header counts
            # and the file lacks (or the first the file has beyond the count).
            bad = first_seq + min(len(records), max(int(declared), 0))

    return AuditCheck(
        records=len(records),
        chain_intact=not problems,
        first_bad_record=bad,
        problem="; ".join(problems) if problems else None,
        first_seq=first_seq,
        chain_head=chain_head,
        final_hash=final_hash,
    )


def _walk(records: list, first_seq: int, chain_head: str, final_hash: str
          ) -> tuple[int | None, str | None]:
    """(seq, reason) of the first record that fails, or of finalHash; (None, None) if none."""
    previous = chain_head
    for index, record in enumerate(records):
        expected = first_seq + index
        if not isinstance(record, dict):
            return expected, f"the record at seq {expected} is not an object"
        seq = record.get("seq")
        if not (is_number(seq) and seq == expected):
            shown = _number_text(seq) if is_number(seq) else describe(seq)
            return expected, f"the record there carries seq {shown} (a record is missing, " \
                             "added or out of order)"
        if record.get("prevHash") != previous:
            return expected, "its prevHash is not the hash of the record before it"
        try:
            recomputed = record_hash(record)
        except TypeError as exc:  # not reachable from parsed JSON; said, never raised
            return expected, f"it cannot be written as canonical JSON ({exc})"
        if recomputed != record.get("hash"):
            return expected, "its content does not match its hash (edited or corrupted)"
        previous = recomputed
    if final_hash != previous:
        return (first_seq + len(records) - 1 if records else first_seq,
                "finalHash is not the hash of the last record")
    return None, None


def _typed_event(record: dict) -> dict:
    """A record as the typed event it stands for; ``timestamp`` back in meta as ``wallClockMs``."""
    meta = record.get("meta")
    timestamp = record.get("timestamp")
    if isinstance(meta, dict) and "wallClockMs" not in meta and is_number(timestamp):
        meta = {"wallClockMs": timestamp, **meta}
    event = {"type": record.get("eventType"), "payload": record.get("payload")}
    if "meta" in record:
        event["meta"] = meta
    return event


def _is_seq(value: Any) -> bool:
    return is_number(value) and math.isfinite(value) and value >= 0 and value == int(value)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _number_text(value: Any) -> str:
    return js_number(value)


def _quoted(text: str, limit: int = 60) -> str:
    shown = text if text.isprintable() else repr(text[: limit * 2])[1:-1]
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return f"'{shown}'"


def chain_record_counts(typed_counts: dict[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """``typed_counts`` split into (framework events, the chain's own records)."""
    framework = {kind: n for kind, n in typed_counts.items() if kind not in CHAIN_RECORD_TYPES}
    chain = {kind: n for kind, n in typed_counts.items() if kind in CHAIN_RECORD_TYPES}
    return framework, chain

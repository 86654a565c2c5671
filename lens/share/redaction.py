"""Masking what a shared run must not carry, with the same mask for the same value.

What is masked (``--redact``), wherever a run carries text:

- ``key``: API keys and tokens in their providers' shapes (OpenAI ``sk-``/
  ``sk-proj-``, Anthropic ``sk-ant-``, GitHub ``ghp_``/``gho_``/…/
  ``github_pat_``, Slack ``xox…-``, Google ``AIza…``, Stripe ``sk_live_``/
  ``rk_live_``/…), JSON Web Tokens, the token after ``Bearer``/``Basic``, AWS
  access key ids (``AKIA``/``ASIA``…), private-key blocks, the value of a
  secret-looking assignment (``password=…``, ``api_key: …``,
  ``aws_secret_access_key = …``) and of a JSON member with such a name
  (``{"password": "…"}``);
- ``email``: e-mail addresses (not ``icon@2x.png``);
- ``card``: card numbers, 15 to 19 digits, plain or grouped by spaces or
  dashes, with a card network's first digit and a valid Luhn check digit (a
  number failing Luhn is left alone; so are 13-digit millisecond times);
- ``phone``: ``+`` international numbers (8 to 15 digits), North American
  ``(415) 555-0134``/``415-555-0134`` and European ``0``-prefixed grouped
  numbers (``020 7946 0958``, ``06 12 34 56 78``); a bare digit run, a date,
  a time, a version or an id is not a phone number;
- ``ssn``: US social security numbers written ``123-45-6789`` (as issued: not
  area 000, 666 or 9xx, group 00 or serial 0000);
- ``pattern``: what the user's own expressions match (``--redact-pattern``);
  a pattern with a group named ``mask`` masks only that group.

Each distinct value becomes ``[kind n]``, numbered by first appearance, and
the same value gets the same mask everywhere in the export, so a redacted run
still reads ("[email 1] asked for a refund; [email 1] was told no").

Where it looks: every string and every object key at any depth; text that is
itself JSON (a tool's arguments or result given as a string, an artifact
store's recording text) is parsed and looked into, whatever its escapes
(``\\u0040`` for ``@``); percent-encoded text (``alice%40example.com`` in a
URL) is decoded to look and masked in its encoded form; a value found in one
place is masked wherever else it occurs (plain, percent-encoded or
JSON-escaped), also as the cut-off start of a shortened summary (``Customer
alice@ex…``); a card number written as a JSON number becomes its mask. Text
that was streamed is looked at whole: the chunks of one answer or reasoning
(:mod:`lens.share.chunk_streams`) are joined, masked, and the masked whole is
written back over them; base64 that decodes to text
(:mod:`lens.share.base64_text`) is masked in what it says and written back as
base64. Values
that overlap are masked together, so no character of either stays. (Limits:
a value of fewer than 4 or more than 8,192 characters, or past the first
2,000 values of a run, is masked where it was found, not looked for again.)

What is never masked, and why: the fields Lens and agentfootprint read to
place, pair and name steps. A mask there would not hide anything a person
typed (they hold names and ids made by the program) but could unpair a tool
call from its result or turn a known event type into an unknown one. They
are: an event's ``type`` and ``meta`` (run id, stage id, subflow and
composition paths, times; but not the ids an application chooses,
:data:`IDENTITY_FIELDS`, also in an envelope's ``run``: an e-mail as a session
id is masked, with one mask everywhere) and its fields naming stages, subflows, branches,
tools, tool-call ids, models, providers, slots and sources
(:data:`EVENT_FIELDS`); the same names at the top of a typed event's payload
(:data:`PAYLOAD_FIELDS`); an envelope's ``format``, ``producer``, ``run`` and
``privacy``; the snapshot's ``runId`` and its recorders' names; the build-time
structure's ids, names and types (:data:`STRUCTURE_FIELDS`); and the names of
an event's, payload's, snapshot's or structure's fields (not the keys of the
data they hold). Numbers other than card-shaped integers are never touched.
Everything else (payloads, arguments, results, messages, prompts, the
snapshot's sharedState, commit log and execution tree) is text to mask.

The user's patterns run in a child process with a time budget per pattern
(:mod:`lens.share.pattern_worker`); the built-in patterns use bounded or
possessive repeats only (a failed match goes back over a few groups at most), so they
take time linear in the text.

API, for the exports and the app's Share dialog::

    redactor = Redactor(patterns=[r"order A-\\d+"])    # RedactionError: invalid pattern
    plan = redactor.plan([document])                 # what will be masked
    redacted, report = plan.apply(document)          # a new document; the input is unchanged
    preview = redactor.preview(document)             # plan + apply, nothing written:
    preview.counts      # {"email": 2, "key": 1}: distinct values masked, per kind
    preview.places      # {"email": 5, "key": 1}: how many places were masked
    preview.examples    # {"email": ["[email 1]", "[email 2]"]}
    preview.size_bytes  # the redacted export's size (``serialize`` decides the format)
    texts, report = redactor.redact_texts(["mail bob@example.org", "…"])   # loose texts
    texts, report = redactor.redact_texts(texts, base=plan)   # going on from a plan:
                                                  # its values keep their masks

Another export (HTML, OTLP) is best built from the run file as
``export recording`` redacts it (:func:`lens.share.recording_export.export_recording`
gives the redacted bytes and the report): the structural fields are known
there, and every view then shows masked values only. Its tests can plant
secrets with ``tests/share/planted_secrets.py``.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import stat
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence
from urllib.parse import quote, quote_plus, unquote, unquote_plus

from lens.share.base64_text import Base64Run, base64_runs
from lens.share.chunk_streams import CHUNK_TYPES, ChunkStreams, chunk_of, joined
from lens.share.chunk_streams import spread as spread_chunks
from recorders.deep_parse import parsing
from recorders.packed import is_packed_format

KINDS = ("key", "email", "card", "phone", "ssn", "pattern")
_SAID = {"ssn": "SSN"}  # how a kind is said to a person, when not as it is written
EXAMPLES_PER_KIND = 3
# Seconds one user pattern may take over the whole export (all its texts).
PATTERN_SECONDS = 5.0
# A value found once is also masked wherever else it occurs, when at least this long
# (shorter ones, e.g. a 3-character password, are masked only where they were found).
MIN_ELSEWHERE_CHARS = 4
# At most this many values are looked for elsewhere (one regex of all of them runs
# over every text): past it, those found by where they stand first. A run where a
# broad pattern of the user's matches tens of thousands of values stays usable;
# each value is still masked wherever it was found.
ELSEWHERE_LIMIT = 2000
# Nor a value longer than this (a private-key block or a JWT is shorter; a run of
# text caught by ``password=`` to its end is not looked for again as a whole).
MAX_ELSEWHERE_CHARS = 8192
# Its JSON-escaped forms are looked for when it has at most this many characters to escape.
MAX_ESCAPED_CHARS = 64
# The shortest cut-off start of a value masked in a shortened summary (``alice.…``);
# shorter, it is as likely a name or a word as a cut value.
MIN_CUT_CHARS = 6
_RECURSION_LIMIT = 10_100  # as the loader's (recorders.loading.PARSE_RECURSION_LIMIT)

# ─── What is structural ────────────────────────────────────────────────

EVENT_FIELDS = frozenset({
    "type", "meta", "runtimeStageId", "subflowPath", "depth", "ts", "commitIdxBefore",
    "commitIdxAfter", "isRoot", "subflowId", "localSubflowId", "parentSubflowId",
    "childName", "subflowName", "primitiveKind", "slotKind", "isAgentInternal", "decider",
    "chosen", "target", "iteration", "toolName", "toolCallId", "model", "provider",
    "stopReason", "slot", "source", "sourceId", "asRole", "asRecency", "compositionId",
    "kind", "name", "actorArrow", "toolCallCount", "durationMs",
})
PAYLOAD_FIELDS = frozenset({
    "toolName", "toolCallId", "slot", "source", "sourceId", "model", "provider",
    "stopReason", "chosen", "kind", "asRole", "asRecency", "agentId", "runId",
    "contentHash", "compositionId", "subflowId", "runtimeStageId",
})
ROOT_FIELDS = frozenset({"format", "producer", "run", "privacy", "version", "redaction",
                         "capturedAtMs", "meta", "header", "manifestVersion"})
RECORDER_FIELDS = frozenset({"name", "id", "preferredOperation", "meta"})
# Identifiers an application may fill with personal data (an e-mail as the session
# id): in an event's ``meta`` and an envelope's ``run`` these are looked into as
# text (the same value gets the same mask everywhere); the other fields there stay.
IDENTITY_FIELDS = frozenset({"sessionId", "userId", "conversationId", "threadId",
                             "customerId", "accountId", "tenantId"})
STRUCTURE_FIELDS = frozenset({"id", "name", "type", "subflowId", "subflowName",
                              "localSubflowId", "isSubflowRoot", "stageId", "kind"})

# Contexts of the walk: what a value is, which decides what of it is masked.
_CONTENT, _STRUCTURAL, _EVENT, _PAYLOAD, _ROOT, _SNAPSHOT, _RECORDERS, _RECORDER, \
    _STRUCTURE, _META = range(10)
# Where an object's keys are field names of the format, not data.
_NAMED_FIELDS = frozenset({_EVENT, _PAYLOAD, _ROOT, _SNAPSHOT, _RECORDER, _STRUCTURE, _META})


def _is_event(value: dict) -> bool:
    """An agentfootprint event: a typed one (its meta names a run, stage or time)
    or a boundary one (a stage id and a subflow path). A tool's result shaped
    ``{type, meta}`` (many APIs answer so) is not one, and is masked as content."""
    if value.get("type").__class__ is not str:
        return False
    meta = value.get("meta")
    if meta.__class__ is dict:
        return "runtimeStageId" in meta and ("wallClockMs" in meta or "runId" in meta)
    return (value.get("runtimeStageId").__class__ is str
            and value.get("subflowPath").__class__ is list)


def _is_nested_run(value: Any) -> bool:
    """A recording or envelope given as text inside another file (an artifact store's)."""
    return isinstance(value, dict) and (
        value.get("format") == "agentfootprint.recording.v1"
        or (isinstance(value.get("snapshot"), dict) and "recorders" in value["snapshot"]))


def _member_context(context: int, key: str) -> int:
    if context == _CONTENT:
        return _CONTENT
    if context == _EVENT:
        if key == "meta":
            return _META
        if key in EVENT_FIELDS:
            return _STRUCTURAL
        return _PAYLOAD if key == "payload" else _CONTENT
    if context == _PAYLOAD:
        return _STRUCTURAL if key in PAYLOAD_FIELDS else _CONTENT
    if context == _META:
        return _CONTENT if key in IDENTITY_FIELDS else _STRUCTURAL
    if context == _ROOT:
        if key in ("run", "meta"):
            return _META
        if key in ROOT_FIELDS:
            return _STRUCTURAL
        return {"recording": _ROOT, "snapshot": _SNAPSHOT,
                "structure": _STRUCTURE}.get(key, _CONTENT)
    if context == _SNAPSHOT:
        return {"runId": _STRUCTURAL, "recorders": _RECORDERS}.get(key, _CONTENT)
    if context == _RECORDER:
        return _STRUCTURAL if key in RECORDER_FIELDS else _CONTENT
    if context == _STRUCTURE:
        return _STRUCTURAL if key in STRUCTURE_FIELDS else _STRUCTURE
    return _CONTENT


def _object_context(context: int, value: dict) -> int:
    """The context an object gets from where it sits (an event is an event anywhere)."""
    if context in (_CONTENT, _PAYLOAD) and _is_event(value):
        return _EVENT
    if context == _RECORDERS:
        return _RECORDER
    return context


def _item_context(context: int) -> int:
    """The context of a list's items: recorders stay recorders, the structure stays
    the structure, anything else is content (its events recognised by their shape)."""
    return context if context in (_RECORDERS, _STRUCTURE, _CONTENT) else _CONTENT


# ─── The built-in detectors ────────────────────────────────────────────

_SECRET_NAMES = frozenset({
    "password", "passwd", "pwd", "passphrase", "secret", "clientsecret", "apikey",
    "xapikey", "apisecret", "accesstoken", "refreshtoken", "authtoken", "idtoken",
    "sessiontoken", "token", "bearertoken", "authorization", "proxyauthorization",
    "cookie", "setcookie", "privatekey", "secretkey", "awssecretaccesskey",
    "secretaccesskey", "awssessiontoken", "signingkey", "webhooksecret",
})


_SECRET_NAME_SEPARATORS = re.compile(r"[-_.\s]")
_secret_name_memo: dict[str, bool] = {}


def is_secret_name(key: str) -> bool:
    """A JSON member whose value is a secret by its name (``api_key``, ``Password``…)."""
    known = _secret_name_memo.get(key)
    if known is None:
        known = len(key) <= 40 and _SECRET_NAME_SEPARATORS.sub("", key).lower() in _SECRET_NAMES
        if len(_secret_name_memo) < 100_000:  # a run has a few hundred field names
            _secret_name_memo[key] = known
    return known


_FILE_SUFFIXES = frozenset({"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "js",
                            "mjs", "ts", "tsx", "jsx", "css", "json", "map", "txt", "py"})


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _card_ok(text: str) -> bool:
    digits = text.replace(" ", "").replace("-", "")
    if not 15 <= len(digits) <= 19 or digits[0] not in "23456":
        return False
    if len(digits) != len(text):
        if " " in text and "-" in text:
            return False
        groups = [len(g) for g in re.split(r"[ -]", text)]
        if groups not in ([4, 4, 4, 4], [4, 4, 4, 4, 3], [4, 6, 5], [4, 4, 4, 4, 2, 1],
                          [4, 4, 4, 7], [6, 13]):
            return False
    return luhn_valid(digits)


def _ssn_ok(text: str) -> bool:
    """A US social security number as issued: area 001-899 but 666, group and serial not 0."""
    area, group, serial = text.split("-")
    return area not in ("000", "666") and area < "900" and group != "00" and serial != "0000"


def _digit_count(text: str) -> int:
    return sum(c.isdigit() for c in text)


def _international_phone_ok(text: str) -> bool:
    return 8 <= _digit_count(text) <= 15


def _national_phone_ok(text: str) -> bool:
    return 9 <= _digit_count(text) <= 12


def _key_body_ok(text: str) -> bool:
    """A random-looking key: letters and digits both, not words joined by dashes."""
    return bool(re.search(r"\d", text)) and bool(re.search(r"[A-Za-z]", text))


def _bearer_ok(text: str) -> bool:
    return bool(re.search(r"\d", text)) or len(text) >= 20


def _assignment_ok(text: str) -> bool:
    return not text.startswith(tuple(f"[{kind} " for kind in KINDS))


def _email_ok(text: str) -> bool:
    return text.rsplit(".", 1)[-1].lower() not in _FILE_SUFFIXES


@dataclass(frozen=True)
class Detector:
    """One built-in shape: ``regex`` finds it, ``group`` is the part masked,
    ``accept`` (if any) must agree with that part."""

    kind: str
    regex: re.Pattern
    group: int = 0
    accept: Callable[[str], bool] | None = None
    needs: str | None = None  # a character the text must hold for the regex to run
    # When ``accept`` refuses a match of separated groups, try it without its last
    # groups ("4111 1111 1111 1111 0" holds a card and a 0).
    trim: bool = False


_ALNUM_BEFORE = r"(?<![A-Za-z0-9])"
_ALNUM_AFTER = r"(?![A-Za-z0-9])"
# Digits standing alone: not inside a word, an id, a decimal, a date or a path.
_NUM_BEFORE = r"(?<![\w+\-./:])"
_NUM_AFTER = r"(?![\w\-/:]|\.\d)"

BUILTIN_DETECTORS: tuple[Detector, ...] = (
    Detector("key", re.compile(
        r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[\s\S]{1,20000}?-----END [A-Z ]{0,40}"
        r"PRIVATE KEY-----"), needs="-"),
    Detector("key", re.compile(
        _ALNUM_BEFORE + r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}+"),
        accept=_key_body_ok, needs="-"),
    Detector("key", re.compile(
        _ALNUM_BEFORE + r"(?:gh[pousr]_[A-Za-z0-9]{30,}+|github_pat_[A-Za-z0-9_]{20,}+)"),
        needs="_"),
    Detector("key", re.compile(_ALNUM_BEFORE + r"xox[abposre]-[A-Za-z0-9\-]{10,}+"),
             accept=_key_body_ok, needs="-"),
    Detector("key", re.compile(_ALNUM_BEFORE + r"AIza[0-9A-Za-z_\-]{30,}+")),
    Detector("key", re.compile(
        _ALNUM_BEFORE + r"(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{10,}+|"
        + _ALNUM_BEFORE + r"whsec_[0-9A-Za-z]{20,}+"), needs="_"),
    Detector("key", re.compile(
        _ALNUM_BEFORE + r"eyJ[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]*+"),
        needs="."),
    Detector("key", re.compile(_ALNUM_BEFORE + r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}"
                               + _ALNUM_AFTER)),
    Detector("key", re.compile(r"(?i:\b(?:bearer|basic))[ \t]++([A-Za-z0-9._~+/=\-]{8,}+)"),
             group=1, accept=_bearer_ok),
    Detector("key", re.compile(
        r"(?i:" + _ALNUM_BEFORE + r"(?:aws_secret_access_key|aws_session_token|"
        r"secret_access_key|client[_-]?secret|api[_-]?key|api[_-]?secret|access[_-]?token|"
        r"auth[_-]?token|refresh[_-]?token|passwor[dt]|passwd|pwd|secret|token))"
        r"[\"']?[ \t]*+[:=][ \t]*+[\"']?([^\s\"'`,;&<>]{6,}+)"),
        group=1, accept=_assignment_ok),
    Detector("email", re.compile(
        r"(?<![\w.%+\-])[A-Za-z0-9._%+\-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}"
        r"[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24}+(?![\w\-])"), accept=_email_ok, needs="@"),
    Detector("card", re.compile(
        # Every card layout starts with four digits together.
        _NUM_BEFORE + r"\d{4}(?:[ \-]?\d){11,15}" + _NUM_AFTER), accept=_card_ok, trim=True),
    Detector("phone", re.compile(
        r"(?<![\w+])\+(?:\d{8,15}|\d{1,3}(?:[ .\-]?\(\d{1,4}\))?(?:[ .\-]\d{1,5}){1,5})"
        + _NUM_AFTER),
        accept=_international_phone_ok, needs="+", trim=True),
    Detector("phone", re.compile(
        _NUM_BEFORE + r"(?:1[ .\-])?(?:\(\d{3}\)[ ]?|\d{3}[ .\-])\d{3}[ .\-]\d{4}" + _NUM_AFTER)),
    Detector("phone", re.compile(
        _NUM_BEFORE + r"0\d{1,4}(?:[ .\-]\d{2,8}){1,4}" + _NUM_AFTER),
        accept=_national_phone_ok, trim=True),
    Detector("ssn", re.compile(_NUM_BEFORE + r"\d{3}-\d{2}-\d{4}" + _NUM_AFTER),
             accept=_ssn_ok, needs="-"),
)
_HAS_DIGITS = re.compile(r"\d\D?\d")
_MASK_SHAPE = re.compile(r"\[(?:" + "|".join(KINDS) + r") \d+\]")
_ELLIPSIS = re.compile(r"\u2026|\.\.\.")
_MAX_CUTS = 50  # ellipses looked behind in one text
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_CARD_INTEGER_DIGITS = range(15, 20)


def _builtin_spans(text: str) -> list[tuple[int, int, str, bool]]:
    """(start, end, kind, by context): the last is true for a value found by what
    stands before it (``Bearer``, ``password=``), which may stand alone elsewhere."""
    found: list[tuple[int, int, str, bool]] = []
    digits = None
    for detector in BUILTIN_DETECTORS:
        if detector.needs is not None and detector.needs not in text:
            continue
        if detector.kind in ("card", "phone"):
            if digits is None:
                digits = _HAS_DIGITS.search(text) is not None
            if not digits:
                continue
        at = 0
        while (match := detector.regex.search(text, at)) is not None:
            start, end = match.span(detector.group)
            at = match.end()
            if end <= start:
                at = max(at, match.start() + 1)
                continue
            if detector.accept is not None and not detector.accept(text[start:end]):
                if not detector.trim:
                    continue
                end = _trimmed(text, start, end, detector.accept)
                if end is None:
                    # Refused: a number may still start further in ("0 4111 1111 1111
                    # 1111"); its matches are short, so looking again costs little.
                    at = match.start() + 1
                    continue
                at = end
            found.append((start, end, detector.kind, detector.group != 0))
    return found


def _trimmed(text: str, start: int, end: int, accept: Callable[[str], bool]) -> int | None:
    """The longest end before ``end``, at a separator, where ``accept`` takes the
    text; tried from the longest, while it holds 8 digits (no number kind has fewer)."""
    digits = sum(c.isdigit() for c in text[start:end])
    for cut in range(end - 1, start, -1):
        if text[cut].isdigit():
            digits -= 1
            if digits < 8:
                return None
        elif text[cut] in " .-" and text[cut - 1].isdigit() and accept(text[start:cut]):
            return cut
    return None


def _cover(spans: Iterable[tuple]) -> list[list[tuple]]:
    """Spans (``(start, end, ...)``) as groups that mask every character any of them
    covers: a span inside another (or inside those before it) is dropped, spans
    that partly overlap are one group. Of spans alike, the one listed first stays
    (the built-in kinds come before the user's patterns)."""
    ordered = sorted(enumerate(spans), key=lambda item: (item[1][0], item[1][0] - item[1][1],
                                                        item[0]))
    groups: list[list[tuple]] = []
    end = -1
    for _, span in ordered:
        if span[0] >= end:
            groups.append([span])
            end = span[1]
        elif span[1] > end:  # overlaps the group and goes on past it
            groups[-1].append(span)
            end = span[1]
    return groups


def _assembled(text: str, spans: list[tuple[int, int, Any, str]]
               ) -> tuple[str, Counter | None]:
    """``text`` with ``spans`` (start, end, kind or kinds, mask) masked, and how
    many places of each kind; (text, None) when there is nothing to mask."""
    if not spans:
        return text, None
    counts: Counter = Counter()
    pieces = []
    at = 0
    for group in _cover(spans):
        start, end = group[0][0], max(span[1] for span in group)
        pieces.append(text[at:start])
        # Values that overlap are masked together: no character of either stays.
        pieces.append("".join(dict.fromkeys(span[3] for span in group)))
        for span in group:
            if span[2].__class__ is str:
                counts[span[2]] += 1
            else:
                counts.update(span[2])
        at = end
    pieces.append(text[at:])
    return "".join(pieces), counts


def _packed_values(document: Any) -> list | None:
    """A packed recording's table of shared values (None for any other document)."""
    if document.__class__ is dict and is_packed_format(document.get("format")):
        values = document.get("values")
        return values if values.__class__ is list else None
    return None


# ─── User patterns ─────────────────────────────────────────────────────


class RedactionError(Exception):
    """A pattern that cannot be used: invalid, matching the empty text, or too slow."""


def compile_pattern(source: str) -> re.Pattern:
    """A user pattern, compiled; RedactionError (one line) when it is unusable."""
    shown = source if len(source) <= 60 else source[:59] + "…"
    try:
        pattern = re.compile(source)
    except (re.error, RecursionError, OverflowError, ValueError) as exc:
        where = f" at position {exc.pos}" if getattr(exc, "pos", None) is not None else ""
        message = getattr(exc, "msg", None) or str(exc)
        raise RedactionError(f"--redact-pattern {shown!r} is not a valid regular expression: "
                             f"{message}{where}") from None
    if pattern.fullmatch("") is not None:
        raise RedactionError(f"--redact-pattern {shown!r} matches the empty text, so it "
                             "would mask nothing in particular; make it match at least "
                             "one character")
    return pattern


def read_pattern_file(path: str) -> list[str]:
    """The patterns of a file, one a line; blank lines and ``#`` comments skipped."""
    return [pattern for _, pattern in read_pattern_lines(path)]


# A pattern file is a person's list of expressions: a few KB. Past this it is not one
# (``/dev/zero``, a run file given by mistake), and reading it whole would be unbounded.
MAX_PATTERN_FILE_BYTES = 1024 * 1024


def read_pattern_lines(path: str) -> list[tuple[int, str]]:
    """:func:`read_pattern_file`'s patterns with their line numbers (from 1).
    RedactionError (one line) for a file that is not a regular file (a FIFO
    is not waited on, a device not read) or is over MAX_PATTERN_FILE_BYTES."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(descriptor, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise RedactionError(f"cannot read the pattern file {path!r}: not a regular "
                                     "file (a folder, a pipe or a device)")
            data = handle.read(MAX_PATTERN_FILE_BYTES + 1)
    except OSError as exc:
        raise RedactionError(f"cannot read the pattern file {path!r}: "
                             f"{exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL byte in the name
        raise RedactionError(f"cannot read the pattern file {path!r}: {exc}") from None
    if len(data) > MAX_PATTERN_FILE_BYTES:
        raise RedactionError(f"the pattern file {path!r} is over "
                             f"{MAX_PATTERN_FILE_BYTES // 1024:,} KB: not a list of patterns")
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise RedactionError(f"the pattern file {path!r} is not UTF-8 text") from None
    return [(number, line) for number, line in enumerate(lines, 1)
            if line.strip() and not line.lstrip().startswith("#")]


def patterns_of(given: Sequence[str], pattern_file: str | None) -> list[str]:
    """The patterns given one by one, then those of ``pattern_file`` (RedactionError
    naming the file's line of an unusable one)."""
    patterns = list(given)
    if pattern_file:
        for number, pattern in read_pattern_lines(pattern_file):
            try:
                compile_pattern(pattern)
            except RedactionError as exc:
                raise RedactionError(f"{pattern_file} line {number}: {exc}") from None
            patterns.append(pattern)
    return patterns


_WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pattern_worker.py")


def _user_spans(sources: Sequence[str], texts: list[str], seconds: float
                ) -> list[list[tuple[int, int, int]]]:
    """Per pattern, its matches as (text index, start, end), each pattern given at
    most ``seconds`` over all the texts (RedactionError naming the one that was not)."""
    if not sources or not texts:
        return [[] for _ in sources]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False,
                                     encoding="ascii") as job:
        json.dump({"patterns": list(sources), "texts": texts}, job)
    try:
        return _run_worker(sources, job.name, seconds)
    finally:
        os.unlink(job.name)


def _run_worker(sources: Sequence[str], job: str, seconds: float
                ) -> list[list[tuple[int, int, int]]]:
    process = subprocess.Popen([sys.executable, "-I", "-S", _WORKER, job],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    results: list[list[tuple[int, int, int]]] = []
    pending = b""
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            # The first budget also covers starting the worker and reading the texts.
            deadline = time.monotonic() + seconds + 2.0
            while len(results) < len(sources):
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    shown = sources[len(results)]
                    shown = shown if len(shown) <= 60 else shown[:59] + "…"
                    raise RedactionError(
                        f"--redact-pattern {shown!r} took more than {seconds:g} s over this "
                        "run (a pattern that backtracks, like (a+)+$?); simplify it")
                chunk = os.read(process.stdout.fileno(), 1 << 20)
                if not chunk:
                    error = process.stderr.read().decode("utf-8", "replace").strip()
                    last = error.splitlines()[-1] if error else "it stopped"
                    raise RedactionError(f"the redaction patterns could not be run: {last}")
                pending += chunk
                while b"\n" in pending and len(results) < len(sources):
                    line, pending = pending.split(b"\n", 1)
                    results.append([tuple(span) for span in json.loads(line)])
                    deadline = time.monotonic() + seconds
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        process.stdout.close()
        process.stderr.close()
    return results


# ─── The plan: what is masked ──────────────────────────────────────────


@dataclass
class Report:
    """What one redaction masked: distinct values and places, per kind; no values."""

    counts: dict[str, int] = field(default_factory=dict)
    places: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def summary(self) -> str:
        """One line for a person: ``masked 2 emails (5 places), 1 key (1 place)``."""
        if not self.counts:
            return "nothing matched the redaction patterns; nothing was masked"
        parts = []
        for kind in KINDS:
            count = self.counts.get(kind)
            if count:
                places = self.places.get(kind, 0)
                parts.append(f"{count} {_SAID.get(kind, kind)}{'' if count == 1 else 's'} "
                             f"({places} place{'' if places == 1 else 's'})")
        return "masked " + ", ".join(parts)


@dataclass
class Preview(Report):
    """A report with the size of the redacted export, for the Share dialog."""

    size_bytes: int = 0

    def to_wire(self) -> dict[str, Any]:
        return {"counts": self.counts, "places": self.places, "examples": self.examples,
                "sizeBytes": self.size_bytes}


class Plan:
    """The values one redaction masks and their masks, found over whole documents;
    :meth:`apply` writes them over a document (and any other of the same export)."""

    def __init__(self, spans: dict[str, list[tuple[int, int, str]]],
                 masks: dict[str, str], kinds: dict[str, str],
                 nested: dict[str, tuple[Any, int]], elsewhere: Sequence[str],
                 base64: dict[str, list[Base64Run]] | None = None) -> None:
        self._spans = spans        # text -> its findings (start, end, kind)
        self._base64 = base64 or {}  # text -> its base64 runs that decode to text
        # The streams of the document being rewritten (innermost last), and its
        # packed values table (None when it is not packed).
        self._stream_stack: list[ChunkStreams] = []
        self._values: list | None = None
        self.masks = masks         # value -> mask, in order of first appearance
        self._kinds = kinds        # value -> kind
        self._nested = nested      # JSON text -> (its parsed value, its context)
        self._memo: dict[str, tuple[str, Counter | None]] = {}  # text -> masked, counts
        # Each value looked for elsewhere (long enough, and ``elsewhere`` holds it),
        # and its percent-encoded forms.
        looked_for = [v for v in elsewhere
                      if MIN_ELSEWHERE_CHARS <= len(v) <= MAX_ELSEWHERE_CHARS]
        self._forms: dict[str, str] = {}
        for value in looked_for:
            for form in _encodings(value):
                self._forms.setdefault(form, value)
        self._forms.update((value, value) for value in masks)
        self._elsewhere = _literal_pattern(
            [*looked_for, *(f for f, v in self._forms.items() if f != v)])
        # Their JSON-escaped forms (``dave\\u0040example.com`` in JSON text, or in
        # a cut-off summary of JSON text that cannot be parsed), looked for only in
        # texts holding a backslash.
        self._escaped = _escaped_pattern(looked_for)
        self._cut_values = [v for v in looked_for if len(v) > MIN_CUT_CHARS]

    def apply(self, document: Any, *, root: bool = True) -> tuple[Any, Report]:
        """The document with every finding masked, and what was masked. ``root``:
        the document is a whole file (its top is read as a recording, envelope,
        Trace…); False for a piece of one."""
        places: Counter = Counter()
        if not self.masks:  # nothing to mask: the document as it is
            return document, self.report(places)
        with parsing(_RECURSION_LIMIT):
            values = self._values
            self._values = _packed_values(document)
            try:
                result = self._rewrite_with_streams(document, _ROOT if root else _CONTENT,
                                                    places)
            finally:
                self._values = values
        return result, self.report(places)

    def _rewrite_with_streams(self, document: Any, context: int, places: Counter) -> Any:
        """:meth:`_rewrite` of one document, its streamed chunks then masked as
        the texts they join into (a value split over chunks is masked too)."""
        streams = ChunkStreams()
        self._stream_stack.append(streams)
        try:
            result = self._rewrite(document, context, places)
        finally:
            self._stream_stack.pop()
        if streams:
            self._mask_streams(streams, places)
        return result

    def _mask_streams(self, streams: ChunkStreams, places: Counter) -> None:
        """Each stream's chunks set from its joined text masked: what a chunk
        alone would have masked is masked too."""
        for chunks in streams.streams():
            text = joined(chunks)
            spans = self._found(text)
            at = 0
            for chunk in chunks:
                spans += [(start + at, end + at, kind, mask)
                          for start, end, kind, mask in self._found(chunk.text)]
                at += len(chunk.text)
            masked, counts = _assembled(text, spans)
            if counts is not None:
                places.update(counts)
            nested = self._nested.get(text)
            if nested is not None:
                rewritten, counts = self._nested_json(masked, counts, *nested)
                if rewritten != masked:  # written anew: the whole goes in the first chunk
                    pieces = [rewritten] + [""] * (len(chunks) - 1)
                    self._set_chunks(chunks, pieces)
                    continue
            if masked == text:
                continue
            groups = [(group[0][0], max(span[1] for span in group),
                       "".join(dict.fromkeys(span[3] for span in group)))
                      for group in _cover(spans)]
            self._set_chunks(chunks, spread_chunks(text, [len(c.text) for c in chunks], groups))

    @staticmethod
    def _set_chunks(chunks: list, pieces: list[str]) -> None:
        for chunk, piece in zip(chunks, pieces):
            if chunk.holder is not None and piece != chunk.text:
                chunk.holder["content"] = piece

    def report(self, places: Counter) -> Report:
        counts = Counter(self._kinds.values())
        examples: dict[str, list[str]] = {kind: [] for kind in KINDS if counts[kind]}
        for value, mask in self.masks.items():
            shown = examples[self._kinds[value]]
            if len(shown) < EXAMPLES_PER_KIND:
                shown.append(mask)
        return Report({k: counts[k] for k in KINDS if counts[k]},
                      {k: places[k] for k in KINDS if places[k]}, examples)

    def mask_text(self, text: str) -> str:
        """One text masked as it is anywhere in the document (for an export that
        shows a piece of a run in its own words)."""
        with parsing(_RECURSION_LIMIT):
            return self._text(text, Counter())

    # The walk: a new document, the input left as it was.
    def _rewrite(self, value: Any, context: int, places: Counter) -> Any:
        kind = value.__class__
        if kind is str:
            return value if context == _STRUCTURAL else self._text(value, places)
        if kind is dict:
            if context == _STRUCTURAL:
                return value
            context = _object_context(context, value)
            chunk = (chunk_of(value, self._values) if self._stream_stack
                     and value.get("type").__class__ is str else None)
            return self._rewrite_dict(value, context, places, chunk)
        if kind is list:
            if context == _STRUCTURAL:
                return value
            inner = _item_context(context)
            return [self._text(item, places) if item.__class__ is str
                    else self._rewrite(item, inner, places) for item in value]
        if kind is int and context in (_CONTENT, _PAYLOAD) and value > 0:
            text = str(value)
            if len(text) in _CARD_INTEGER_DIGITS and text in self.masks:
                places[self._kinds[text]] += 1
                return self.masks[text]
        return value

    def _rewrite_dict(self, value: dict, context: int, places: Counter,
                      chunk: tuple | None = None, raw_key: str | None = None) -> dict:
        """An object rewritten. ``chunk``: the object is a streamed chunk (its
        stream key, index and text), whose payload's content is left for
        :meth:`_mask_streams`; ``raw_key``: the member copied as it is (that content)."""
        keys_are_data = context not in _NAMED_FIELDS
        out: dict = {}
        for key, member in value.items():
            inner = _member_context(context, key) if key.__class__ is str else _CONTENT
            if key == raw_key:
                new = member
            elif chunk is not None and key == "payload" and member.__class__ is dict:
                new = self._rewrite_dict(member, _object_context(inner, member), places,
                                         raw_key="content")
                self._stream_stack[-1].add(chunk[0], chunk[1], chunk[2], new)
            elif member.__class__ is str:
                if inner == _STRUCTURAL:
                    new = member
                elif inner == _CONTENT and member in self.masks and is_secret_name(key):
                    new = self.masks[member]  # a secret by its name: all of it
                    places[self._kinds[member]] += 1
                else:
                    new = self._text(member, places)
            else:
                new = self._rewrite(member, inner, places)
            if keys_are_data and key.__class__ is str:
                key = self._text(key, places)
                while key in out:  # two keys masked alike: both kept
                    key += "\u2032"
            out[key] = new
        return out

    def _text(self, text: str, places: Counter) -> str:
        done = self._memo.get(text)
        if done is None:
            done = self._memo[text] = self._mask(text)
        if done[1] is not None:
            places.update(done[1])
        return done[0]

    def _mask(self, text: str) -> tuple[str, Counter | None]:
        masked, counts = _assembled(text, self._found(text))
        nested = self._nested.get(text)
        if nested is not None:
            masked, counts = self._nested_json(masked, counts, *nested)
        return masked, counts

    def _found(self, text: str) -> list[tuple[int, int, Any, str]]:
        """What of ``text`` is masked: (start, end, kind, mask); for a base64 run
        whose decoded text is masked, its kinds (a Counter) and the masked text's base64."""
        spans = [(start, end, kind, self._value_mask(text[start:end]))
                 for start, end, kind in self._spans.get(text, ())]
        for pattern in (self._elsewhere, self._escaped if "\\" in text else None):
            if pattern is None:
                continue
            for match in pattern.finditer(text):
                start, end = match.span()
                found = match.group()
                if ((found[0].isalnum() and start and text[start - 1].isalnum()
                     and not _PERCENT_ESCAPE.match(text, start - 3))
                        or (found[-1].isalnum() and end < len(text) and text[end].isalnum())):
                    continue  # inside a longer word or number: not this value
                value = self._value_of(found)
                spans.append((start, end, self._kinds[value], self.masks[value]))
        if self._cut_values and ("\u2026" in text or "..." in text):
            spans += self._cut_spans(text, spans)
        runs = self._base64.get(text)
        if runs:
            for run in runs:
                if any(span[0] < run.end and run.start < span[1] for span in spans):
                    continue  # masked as it stands (a key, a Bearer credential)
                kinds: Counter = Counter()
                decoded = self._text(run.decoded, kinds)
                if decoded != run.decoded:
                    spans.append((run.start, run.end, kinds, run.encoded(decoded)))
        return spans

    def _value_of(self, found: str) -> str:
        """The value a found form stands for: itself, percent-encoded or JSON-escaped."""
        value = self._forms.get(found)
        return value if value is not None else self._forms[json_unescaped(found)]

    def _value_mask(self, found: str) -> str:
        mask = self.masks.get(found)
        return mask if mask is not None else self.masks[self._value_of(found)]

    def _cut_spans(self, text: str, spans: list[tuple[int, int, str, str]]
                   ) -> list[tuple[int, int, str, str]]:
        """Values whose start was cut off where a shortened text says so (``…`` or
        ``...``, at its end or not): (start, end, kind, mask) for each."""
        found: list[tuple[int, int, str, str]] = []
        ends = [m.start() for m in _ELLIPSIS.finditer(text, 0)][:_MAX_CUTS]
        for stem_end in ends:
            if any(span[0] < stem_end <= span[1] for span in spans):
                continue  # inside something masked already
            floor = max((span[1] for span in spans if span[1] <= stem_end), default=0)
            best = self._cut_before(text, stem_end, floor)
            if best is not None:
                start, value = best
                found.append((start, stem_end, self._kinds[value], self.masks[value]))
        return found

    def _cut_before(self, text: str, stem_end: int, floor: int) -> tuple[int, str] | None:
        """The earliest start of a value's beginning that ends at ``stem_end``."""
        best: tuple[int, str] | None = None
        for value in self._cut_values:
            start = max(floor, stem_end - len(value) + 1)
            while True:
                start = text.find(value[0], start, stem_end - MIN_CUT_CHARS + 1)
                if start < 0:
                    break
                if (text.startswith(value[: stem_end - start], start)
                        and (start == 0 or not (text[start - 1].isalnum()
                                                and value[0].isalnum()))):
                    if best is None or start < best[0]:
                        best = (start, value)
                    break
                start += 1
        return best

    def _nested_json(self, masked: str, counts: Counter | None, parsed: Any, context: int
                     ) -> tuple[str, Counter | None]:
        """JSON text: masked as text when that masks all its parsed values would;
        otherwise (an escaped value, a mask across its syntax) written anew from them."""
        inner: Counter = Counter()
        values = self._values
        self._values = _packed_values(parsed)
        try:
            rewritten = self._rewrite_with_streams(parsed, context, inner)
        finally:
            self._values = values
        try:
            same = json.loads(masked) == rewritten
        except (ValueError, RecursionError):
            same = False
        if same:
            return masked, counts
        return json.dumps(rewritten, ensure_ascii=False, separators=(",", ":")), inner or None


def _encodings(value: str) -> set[str]:
    """How a value may be written percent-encoded in a URL or a form."""
    # A lone surrogate half has no UTF-8 form: its bytes as Python would write them.
    forms = {quote(value, safe=safe, errors="surrogatepass")
             for safe in ("", "!~*'()", "@:/+=&;,$!~*'()?#")}
    forms.add(quote_plus(value, safe="", errors="surrogatepass"))
    lower = {re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), f) for f in forms}
    return {f for f in forms | lower if f != value}


_JSON_ESCAPE = re.compile(r"\\+(?:u([0-9A-Fa-f]{4})|(/))")


def json_unescaped(text: str) -> str:
    """``text`` with JSON's ``\\uXXXX`` and ``\\/`` escapes undone (also when their
    backslash was escaped again, in JSON text inside JSON text)."""
    return _JSON_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else "/", text)


def _escaped_pattern(values: Iterable[str]) -> re.Pattern | None:
    """Any of ``values`` with any of its other-than-alphanumeric characters written as
    a JSON escape (``\\u0040`` or ``\\/``); the plain form is :func:`_literal_pattern`'s."""
    pieces = []
    for value in sorted(values, key=len, reverse=True):
        if value.isalnum() or sum(not c.isalnum() for c in value) > MAX_ESCAPED_CHARS:
            continue
        chars = []
        for char in value:
            if char.isalnum():
                chars.append(re.escape(char))
            else:
                slash = r"|\\+/" if char == "/" else ""
                chars.append(f"(?:{re.escape(char)}|\\\\+(?i:u{ord(char):04x}){slash})")
        pieces.append("".join(chars))
    return re.compile("|".join(pieces)) if pieces else None


def _literal_pattern(values: Iterable[str]) -> re.Pattern | None:
    """Any of ``values``, the longest first. Plain alternatives, so that the regex
    engine scans for their first characters (boundaries are checked after)."""
    ordered = sorted(values, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, ordered))) if ordered else None


# ─── The redactor ──────────────────────────────────────────────────────


class Redactor:
    """Finds what to mask (:meth:`plan`), masks it (:meth:`redact`), or says
    what it would mask and how large the export would be (:meth:`preview`).

    ``builtin``: the built-in kinds (keys, e-mail, cards, phones); ``patterns``:
    the user's regular expressions (RedactionError, one line, for an invalid
    one); ``pattern_seconds``: each user pattern's time over one export
    (:data:`PATTERN_SECONDS` when not given)."""

    def __init__(self, patterns: Sequence[str] = (), builtin: bool = True,
                 pattern_seconds: float | None = None) -> None:
        self.builtin = builtin
        self.patterns = [p.pattern for p in map(compile_pattern, patterns)]
        self.pattern_seconds = PATTERN_SECONDS if pattern_seconds is None else pattern_seconds

    def plan(self, documents: Iterable[Any], *, root: bool = True,
             base: Plan | None = None) -> Plan:
        """What to mask over all ``documents`` (the files of one export: the same
        value gets the same mask in all of them). ``base``: a plan of the same
        export made before (e.g. over the recording a page or spans were built
        from), whose values keep their masks and whose numbering goes on."""
        scan = _Scan()
        with parsing(_RECURSION_LIMIT):
            for document in documents:
                scan.document(document, _ROOT if root else _CONTENT)
        texts = list(scan.texts)
        found: dict[str, list[tuple[int, int, str, bool]]] = {}
        if self.builtin:
            for text in texts:
                spans = _builtin_spans(text)
                if spans:
                    found[text] = spans
        for matches in _user_spans(self.patterns, texts, self.pattern_seconds):
            for index, start, end in matches:
                found.setdefault(texts[index], []).append((start, end, "pattern", False))
        for text in found:
            if "[" in text:  # a mask from an earlier pass is not looked into again
                masks_in = [m.span() for m in _MASK_SHAPE.finditer(text)]
                if masks_in:
                    found[text] = [span for span in found[text] if not any(
                        span[0] < end and start < span[1] for start, end in masks_in)]
        masks: dict[str, str] = dict(base.masks) if base is not None else {}
        kinds: dict[str, str] = dict(base._kinds) if base is not None else {}  # noqa: SLF001
        numbers: Counter = Counter(kinds.values())

        def add(value: str, kind: str) -> None:
            if value not in masks:
                numbers[kind] += 1
                masks[value] = f"[{kind} {numbers[kind]}]"
                kinds[value] = kind

        spans_of: dict[str, list[tuple[int, int, str]]] = {}
        # Values found by where they stand (a password member, after "Bearer", in
        # decoded text): first to be looked for elsewhere when there are very many.
        by_context: dict[str, None] = {}
        for text in texts:
            forced = scan.forced.get(text) if self.builtin else None
            if forced is not None:
                add(text, forced)
                by_context[text] = None
            decoded = text in scan.decoded_only
            spans = [span for group in _cover(found.get(text, ())) for span in group]
            for start, end, kind, context in spans:
                add(text[start:end], kind)
                if context or decoded:
                    by_context[text[start:end]] = None
            if spans and not decoded:
                spans_of[text] = [span[:3] for span in spans]
        if len(masks) <= ELSEWHERE_LIMIT:
            elsewhere = list(masks)
        else:
            elsewhere = list(dict.fromkeys([*by_context, *masks]))[:ELSEWHERE_LIMIT]
        return Plan(spans_of, masks, kinds, scan.nested, elsewhere, scan.base64)

    def redact(self, document: Any) -> tuple[Any, Report]:
        """A redacted copy of one whole document, and what was masked."""
        return self.plan([document]).apply(document)

    def redact_texts(self, texts: Sequence[str], base: Plan | None = None
                     ) -> tuple[list[str], Report]:
        """Loose texts masked with one plan (the same value, the same mask),
        each as text of a run: nothing in them is read as a structural field.
        ``base``: as for :meth:`plan` (the recording's plan, for texts built
        from the redacted recording: its masks are kept and not masked again)."""
        texts = list(texts)
        plan = self.plan([texts], root=False, base=base)
        masked, report = plan.apply(texts, root=False)
        return masked, report

    def preview(self, document: Any,
                serialize: Callable[[Any], bytes] | None = None) -> Preview:
        """What :meth:`redact` would mask, and the size in bytes of the export
        (``serialize`` writes it; compact JSON by default); nothing is written."""
        redacted, report = self.redact(document)
        data = (serialize or _compact_json)(redacted)
        return Preview(report.counts, report.places, report.examples, len(data))


def _compact_json(document: Any) -> bytes:
    with parsing(_RECURSION_LIMIT):
        return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass")


class _Scan:
    """The first pass: every distinct text (strings, keys, JSON text's values,
    decoded URL text) in order of first appearance, and the values that are
    secrets by where they sit (a ``password`` member, a card-shaped integer)."""

    def __init__(self) -> None:
        self.texts: dict[str, None] = {}
        self.decoded_only: set[str] = set()
        self.forced: dict[str, str] = {}
        self.nested: dict[str, tuple[Any, int]] = {}
        self.base64: dict[str, list[Base64Run]] = {}
        self._streams = ChunkStreams()
        self._values: list | None = None

    def document(self, document: Any, context: int) -> None:
        """Walk one document, then look at each of its streams as one text."""
        streams, values = self._streams, self._values
        self._streams, self._values = ChunkStreams(), _packed_values(document)
        try:
            self.walk(document, context)
            for chunks in self._streams.streams():
                if len(chunks) > 1:
                    self.text(joined(chunks))
        finally:
            self._streams, self._values = streams, values

    def walk(self, value: Any, context: int) -> None:
        # Strings are most of a run and repeat (histories are copied into every
        # step): a text already met is passed over here, without a call.
        texts = self.texts
        kind = value.__class__
        if kind is str:
            if context != _STRUCTURAL and (value not in texts or self.decoded_only):
                self.text(value)
        elif kind is dict:
            if context == _STRUCTURAL:
                return
            context = _object_context(context, value)
            event_type = value.get("type")
            # Only a chunk event costs a call (a type may be any JSON value, unhashable too).
            if event_type.__class__ is str and event_type in CHUNK_TYPES:
                chunk = chunk_of(value, self._values)
                if chunk is not None:
                    self._streams.add(*chunk)
            keys_are_data = context not in _NAMED_FIELDS
            for key, member in value.items():
                if key.__class__ is not str:
                    continue
                if keys_are_data and (key not in texts or self.decoded_only):
                    self.text(key)
                inner = _member_context(context, key)
                if member.__class__ is str:
                    if inner == _STRUCTURAL:
                        continue
                    if inner == _CONTENT and member and is_secret_name(key):
                        self.forced.setdefault(member, "key")
                    if member not in texts or self.decoded_only:
                        self.text(member)
                else:
                    self.walk(member, inner)
        elif kind is list:
            if context == _STRUCTURAL:
                return
            inner = _item_context(context)
            for item in value:
                if item.__class__ is str:
                    if item not in texts or self.decoded_only:
                        self.text(item)
                else:
                    self.walk(item, inner)
        elif kind is int and context in (_CONTENT, _PAYLOAD) and value > 0:
            text = str(value)
            if len(text) in _CARD_INTEGER_DIGITS and _card_ok(text):
                self.forced.setdefault(text, "card")
                self.texts.setdefault(text)

    def text(self, text: str) -> None:
        if text in self.texts:
            self.decoded_only.discard(text)  # met as itself too: masked where it is
            return
        self.texts[text] = None
        stripped = text.strip()
        if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
            try:
                parsed = json.loads(text)
            except (ValueError, RecursionError):
                parsed = None
            if isinstance(parsed, (dict, list)):
                context = _ROOT if _is_nested_run(parsed) else _CONTENT
                self.nested[text] = (parsed, context)
                self.document(parsed, context)
        decodings = []
        if "\\" in text:
            decodings.append(json_unescaped(text))
        if "%" in text and _PERCENT_ESCAPE.search(text):
            decodings += (unquote(text), unquote_plus(text))
        if decodings:
            for decoded in decodings:
                if decoded != text and decoded not in self.texts:
                    self.text(decoded)
                    self.decoded_only.add(decoded)
        runs = base64_runs(text)
        if runs:
            # Masked where they stand, as base64 of the masked text: looked into as texts.
            self.base64[text] = runs
            for run in runs:
                self.text(run.decoded)

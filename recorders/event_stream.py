"""Decode the NDJSON event stream agentfootprint's ``fileObservability`` appends.

The file holds one ``JSON.stringify(event)`` per line: the typed events
``{type, payload, meta}`` exactly as ``runner.on('*')`` delivers them, with no
header and no run facts. The writer appends in batches, so a file being
written can end in the middle of a line; :class:`EventStreamDecoder` keeps
that partial line until the rest arrives (a follower feeds it what was
appended; the loader feeds it a whole file and calls ``finish``).

Several runs may be appended to one file; only ``meta.runId`` tells them
apart (:func:`split_runs`).

This module only turns bytes into events. Whether an event is well formed
for the views is the loader's check (``recorders/loading.py``).
"""

from __future__ import annotations

import json
import math
from typing import Any

from recorders import fast_parse
from recorders.deep_parse import parsing
from recorders.errors import RecordingError
from recorders.values import describe

_NEWLINE = b"\n"
_BOM = b"\xef\xbb\xbf"
# A line nested deeper than this is refused, as the loader refuses a deep file.
_PARSE_RECURSION_LIMIT = 10_100


def _reject_constant(name: str) -> Any:
    raise ValueError(f"it contains the constant {name}, which is not standard JSON")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise ValueError(f"the number {literal[:40]} is too large to represent")
    return value


class EventStreamDecoder:
    """Bytes of an NDJSON event stream in, whole events out; a partial last line
    is kept for the next feed.

    ``lines_read`` counts the complete lines consumed (blank lines included), so
    an error names the line of the file it is on, counted from 1. A byte-order
    mark at the very start is skipped.
    """

    def __init__(self) -> None:
        self.lines_read = 0
        self._pending = bytearray()
        self._at_start = True
        self._decoder = json.JSONDecoder(parse_constant=_reject_constant,
                                         parse_float=_finite_float)

    @property
    def pending_bytes(self) -> int:
        """Bytes of an unfinished last line held for the next feed."""
        return len(self._pending)

    def feed(self, chunk: bytes | bytearray) -> list[dict]:
        """The events completed by ``chunk``. RecordingError names the line
        number of a line that is not a JSON object."""
        if not chunk:
            return []
        pending = self._pending
        pending += chunk
        if self._at_start:
            if len(pending) < len(_BOM) and _BOM.startswith(bytes(pending)):
                return []  # maybe a mark split across feeds: wait for more
            if pending.startswith(_BOM):
                del pending[: len(_BOM)]
            self._at_start = False
        end = pending.rfind(_NEWLINE)
        if end < 0:
            return []
        whole = bytes(pending[: end + 1])
        del pending[: end + 1]
        with parsing(_PARSE_RECURSION_LIMIT):
            events = _all_at_once(whole)
            if events is not None:
                self.lines_read += len(events)
                return events
            events = []
            for line in whole.split(_NEWLINE)[:-1]:
                self.lines_read += 1
                event = self._event(line, self.lines_read)
                if event is not None:
                    events.append(event)
        return events

    def finish(self) -> list[dict]:
        """The last line when it has no newline but is complete JSON (the writer
        ended without one). An unfinished line (JSON cut short, as while a batch
        is being appended) gives nothing and stays in ``pending_bytes``; any
        other bad last line raises RecordingError with its number."""
        if not self._pending or bytes(self._pending).isspace():
            return []
        line = bytes(self._pending)
        number = self.lines_read + 1
        try:
            text = self._text(line, number)
            with parsing(_PARSE_RECURSION_LIMIT):
                value = self._decoder.decode(text)
        except json.JSONDecodeError as exc:
            if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
                return []  # cut short: the rest has not been written yet
            raise RecordingError(self._bad_line(number, exc)) from None
        except RecordingError:
            # Bytes cut in the middle of a character: also an unfinished line.
            if _cut_inside_character(line):
                return []
            raise
        except (ValueError, RecursionError) as exc:
            raise RecordingError(self._bad_line(number, exc)) from None
        self._pending.clear()
        self.lines_read = number
        return [self._checked(value, number)]

    # ── one line ──

    def _event(self, line: bytes, number: int) -> dict | None:
        if not line.strip():
            return None  # a blank line carries nothing
        text = self._text(line, number)
        try:
            value = self._decoder.decode(text)
        except (ValueError, RecursionError) as exc:
            raise RecordingError(self._bad_line(number, exc)) from None
        return self._checked(value, number)

    @staticmethod
    def _text(line: bytes, number: int) -> str:
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordingError(
                f"line {number} of the event stream is not valid UTF-8 "
                f"(byte {exc.start}: {exc.reason})") from None

    @staticmethod
    def _checked(value: Any, number: int) -> dict:
        if not isinstance(value, dict):
            raise RecordingError(
                f"line {number} of the event stream: expected an event object, "
                f"found {describe(value)}")
        return value

    @staticmethod
    def _bad_line(number: int, exc: Exception) -> str:
        if isinstance(exc, RecursionError):
            return (f"line {number} of the event stream is nested deeper than this "
                    "reader allows")
        if isinstance(exc, json.JSONDecodeError):
            return (f"line {number} of the event stream is not valid JSON: "
                    f"{exc.msg} (column {exc.colno})")
        return f"line {number} of the event stream is not valid JSON: {exc}"


def _all_at_once(whole: bytes) -> list[dict] | None:
    """The events of ``whole`` (complete lines) parsed in one pass, as the JSON
    list their lines make once each newline is a comma, by the loader's fast
    parser (``recorders/fast_parse.py``, which gives what the json module would
    or declines). None when it declines or the lines are not one object each
    (a blank line, a bad one): they are then read line by line, and a bad
    line is named by its number."""
    if not fast_parse.available() or b"\n\n" in whole or whole.startswith(_NEWLINE):
        return None
    try:
        document, _, _ = fast_parse.parse_kept(
            b"[" + whole[:-1].replace(_NEWLINE, b",") + b"]", {})
    except fast_parse.Declined:
        return None
    if (not isinstance(document, list) or len(document) != whole.count(_NEWLINE)
            or not all(isinstance(event, dict) for event in document)):
        return None
    return document


def _cut_inside_character(line: bytes) -> bool:
    """True when ``line`` decodes except for a multi-byte character cut at its end."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.end == len(line) and exc.reason == "unexpected end of data"
    return False


def run_id_of(event: dict) -> str | None:
    """The event's ``meta.runId`` when it is a string."""
    meta = event.get("meta")
    if isinstance(meta, dict):
        run_id = meta.get("runId")
        if isinstance(run_id, str):
            return run_id
    return None


def split_runs(events: list[dict]) -> list[list[dict]]:
    """The events of each run, by ``meta.runId``, runs in order of first appearance.

    An event without a run id (agentfootprint delivers a few after the run with
    no meta) stays with the run of the event before it; before any run id, with
    the first run that appears. No run ids at all: one run. No events: none.
    """
    if not events:
        return []
    runs: dict[str | None, list[dict]] = {}
    leading: list[dict] = []  # events before the first run id
    current: str | None = None
    for event in events:
        run_id = run_id_of(event) if isinstance(event, dict) else None
        if run_id is None:
            if current is None:
                leading.append(event)
            else:
                runs[current].append(event)
            continue
        current = run_id
        bucket = runs.get(run_id)
        if bucket is None:
            bucket = runs[run_id] = []
            if len(runs) == 1 and leading:
                bucket.extend(leading)
                leading = []
        bucket.append(event)
    if not runs:
        return [leading]
    return list(runs.values())

"""The NDJSON event stream ``fileObservability`` appends: typed events only,
one run per ``meta.runId`` (empty while nothing is written yet); also a lone
typed event, an event stream of one line.

Besides the reader, this module says what a stream's typed events show of
how far its run got (:func:`stream_gaps`, which an audit bundle's records are
read by too), and reads one run of a stream batch by batch as it is written
(:class:`GrowingStreamRun`, what ``lens/follow.py`` follows a file with), with
the same checks and gaps as a whole stream read at once.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from recorders.catalogue import (AGENT_TURN_END, AGENT_TURN_START, COMPOSITION_ENTER,
                                 COMPOSITION_EXIT, LLM_END, LLM_START, TOOL_END, TOOL_START)
from recorders.deep_parse import PARSE_RECURSION_LIMIT, parsing
from recorders.errors import RecordingError
from recorders.event_types import KNOWN_TYPED_TYPES
from recorders.event_stream import EventStreamDecoder, split_runs
from recorders.gaps import Gap
from recorders.read.model import LoadedFile, NestedReader, Recording
from recorders.read.names import EVENT_STREAM
from recorders.surrogates import mend_lone_surrogates, mended_gap
from recorders.validation import recording_gaps, validate_typed
from recorders.values import shown_text

STREAM_ONLY_GAP = Gap(
    "no-boundary-log",
    "an event stream (fileObservability) holds the typed events only: no boundary log, "
    "snapshot or structure. Calls, served context, tools, causes, the timeline and the "
    "route are read from the typed events; steps need the boundary log, which the run's "
    "recording, envelope or Trace carries")


# ─── Sniffing ──────────────────────────────────────────────────────────


def is_one_typed_event(document: Any) -> bool:
    """A lone ``{type, payload, meta}``: an event stream of one line."""
    return (isinstance(document, dict) and isinstance(document.get("type"), str)
            and ("meta" in document or "payload" in document)
            and not {"events", "snapshot", "format", "recording"} & document.keys())


_NON_SPACE_BYTES = re.compile(rb"[^ \t\r\n]")
_NON_SPACE_TEXT = re.compile(r"[^ \t\r\n]")

def is_blank(raw: bytes | str) -> bool:
    """Nothing but whitespace (and a byte-order mark)."""
    if isinstance(raw, str):
        return _NON_SPACE_TEXT.search(raw.removeprefix("\ufeff")) is None
    return _NON_SPACE_BYTES.search(raw.removeprefix(b"\xef\xbb\xbf")) is None


def is_stream_text(raw: bytes | str) -> bool:
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
    return isinstance(first, dict) and is_one_typed_event(first)


# ─── Reading ───────────────────────────────────────────────────────────


def read_text(raw: bytes | str, nested: NestedReader) -> LoadedFile:
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
    recordings = [stream_run(run, where.format(index + 1)) for index, run in enumerate(runs)]
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
    return LoadedFile(EVENT_STREAM, recordings, notes=notes)


_ESCAPED_HALF = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def read(document: dict, nested: NestedReader) -> Recording:
    """A lone typed event: an event stream of one line."""
    return stream_run([document], "events")


def stream_run(events: list, where: str) -> Recording:
    """One run of an event stream: typed events, no boundary log."""
    recording = Recording(
        source_kind=EVENT_STREAM,
        typed_events=events,
        boundary_events=[],
        has_typed_stream=True,
        has_boundary_log=False,
    )
    check_typed_events(recording, where)
    recording.gaps.extend(stream_run_gaps(recording, events))
    return recording


def check_typed_events(recording: Recording, where: str) -> None:
    """Check and count a stream's typed events into ``recording`` (RecordingError
    naming ``where`` and the event), as every typed stream is checked."""
    validate_typed(recording, where)


def stream_run_gaps(recording: Recording, events: list[dict]) -> list[Gap]:
    """The gaps of a stream's run once its events are checked: no boundary log,
    how far the run got, and what every run is told."""
    return [STREAM_ONLY_GAP, *stream_gaps(events), *recording_gaps(recording, None)]


class GrowingStreamRun:
    """One run of an event stream read batch by batch while it is written.

    Owns: the run's events so far, each batch checked as a whole stream's
    events are (:func:`check_typed_events`) before it is taken in, their counts,
    and the few events its gaps are said of, so :meth:`recording` costs the
    events' list copy and not a walk of them all again. Does not own: decoding
    lines, telling runs apart (``meta.runId``), or any fold of the events
    (a follower feeds its own evidence builder the same batches).
    """

    # The types stream_gaps reads; every other event it passes over.
    _GAP_TYPES = frozenset({AGENT_TURN_START, AGENT_TURN_END, COMPOSITION_ENTER,
                            COMPOSITION_EXIT, LLM_START, LLM_END, TOOL_START, TOOL_END})

    def __init__(self) -> None:
        self.events: list[dict] = []
        self._typed_counts: Counter[str] = Counter()
        self._without_meta: Counter[str] = Counter()
        self._run_ids: dict[str, None] = {}
        # The run's first event and every event of a type the gaps read.
        self._gap_events: list[dict] = []

    @staticmethod
    def check(events: list[dict], where: str) -> Recording:
        """``events`` checked as a whole stream's are (RecordingError naming
        ``where`` and the event), taken in nowhere: a probe of their counts."""
        probe = Recording(source_kind=EVENT_STREAM, typed_events=events, boundary_events=[],
                          has_typed_stream=True, has_boundary_log=False)
        check_typed_events(probe, where)
        return probe

    def add(self, events: list[dict], where: str) -> None:
        """Check ``events`` and take them in; on a RecordingError none of them is."""
        probe = self.check(events, where)
        self._typed_counts.update(probe.typed_counts)
        self._without_meta.update(probe.typed_without_meta)
        self._run_ids.update(dict.fromkeys(probe.typed_run_ids))
        gap_events = self._gap_events
        if not gap_events and events:
            gap_events.append(events[0])
            gap_events.extend(e for e in events[1:] if e.get("type") in self._GAP_TYPES)
        else:
            gap_events.extend(e for e in events if e.get("type") in self._GAP_TYPES)
        self.events.extend(events)

    def recording(self, kind: str = EVENT_STREAM) -> Recording:
        """A :class:`Recording` of the events so far (its own list of them),
        with the gaps a whole stream of the same events is given."""
        known = dict(self._typed_counts)
        recording = Recording(
            source_kind=kind, typed_events=list(self.events), boundary_events=[],
            has_typed_stream=True, has_boundary_log=False, typed_counts=known,
            typed_run_ids=list(self._run_ids),
            unknown_typed_types={k: v for k, v in known.items() if k not in KNOWN_TYPED_TYPES},
            typed_without_meta=dict(self._without_meta))
        recording.gaps.extend(stream_run_gaps(recording, self._gap_events))
        return recording


# ─── How far the run got ───────────────────────────────────────────────


def stream_gaps(events: list[dict]) -> list[Gap]:
    """What an event stream's events say of how far the run got: an end
    never written, calls started and not ended."""
    opened = closed = 0
    calls = {LLM_START: 0, LLM_END: 0, TOOL_START: 0, TOOL_END: 0}
    open_tools: dict[Any, str] = {}
    for event in events:
        kind = event.get("type")
        if kind in (AGENT_TURN_START, COMPOSITION_ENTER):
            opened += 1
        elif kind in (AGENT_TURN_END, COMPOSITION_EXIT):
            closed += 1
        if kind in calls:
            calls[kind] += 1
        if kind in (TOOL_START, TOOL_END):
            payload = event.get("payload")
            call_id = payload.get("toolCallId") if isinstance(payload, dict) else None
            if kind == TOOL_START:
                name = payload.get("toolName") if isinstance(payload, dict) else None
                open_tools[call_id if call_id is not None else object()] = (
                    name if isinstance(name, str) else "a tool")
            else:
                open_tools.pop(call_id, None)
    gaps: list[Gap] = []
    if events and (opened == 0 or closed < opened):
        gaps.append(Gap(
            "unbalanced",
            "the stream stops before the run's end: it is still being written, or the run "
            "crashed (a crashed run's stream simply stops, with no error event)"))
    model_open = calls[LLM_START] - calls[LLM_END]
    if model_open > 0:
        gaps.append(Gap("unbalanced", f"{model_open} model call{'s' if model_open > 1 else ''} "
                        "started and not ended (stream.llm_start without stream.llm_end)"))
    tool_open = max(calls[TOOL_START] - calls[TOOL_END], len(open_tools))
    if tool_open > 0:
        names = sorted(set(open_tools.values()))
        named = f": {', '.join(shown_text(n) for n in names[:6])}" if names else ""
        gaps.append(Gap("unbalanced", f"{tool_open} tool call{'s' if tool_open > 1 else ''} "
                        f"started and not ended (stream.tool_start without stream.tool_end)"
                        f"{named}"))
    return gaps

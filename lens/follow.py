"""Follow a run while it is written: a growing event stream, folded as it grows.

:class:`FollowedFile` watches one path. Each :meth:`FollowedFile.poll` reads
what was appended since the last one and folds it: the NDJSON event stream
``fileObservability`` appends (one event per line, in batches, a partial last
line kept until its rest arrives) is decoded by
:class:`recorders.event_stream.EventStreamDecoder`, taken in by one
:class:`recorders.read.event_stream.GrowingStreamRun` per run (checked as the
loader checks a whole stream) and fed to its :class:`recorders.evidence.build.EvidenceBuilder`
per run (``meta.runId``, as :func:`recorders.event_stream.split_runs` splits a
whole file). The work per poll is proportional to what was appended; the file
is never read again from its start.

Rotation (``maxBytes``): the writer renames ``<path>`` to ``<path>.1``
(replacing an older ``.1``) and appends to a new ``<path>``. The follower
keeps the descriptor of the generation it is reading, so when the file at
``<path>`` is another one (device and inode) it reads the old descriptor to
its end first, then a whole generation that was rotated in between (a ``.1``
it never held), then the new file: no event is lost or read twice, a line
cut at the rotation included. (A third rotation before the next poll would
overwrite a generation no reader held: with a flush a second and a poll
every 0.1 s that takes a follower stalled for seconds.) A file shorter than
what was read (truncated in place, as ``logrotate copytruncate`` does) is
read again from its start as the next generation. Given a path with a
stream's ``.1`` beside it, ``.1`` is read first, as the loader does.

One line is held until its newline arrives, and no longer than
:func:`line_limit` bytes (the loader's ``LENS_MAX_EXPANDED_MB``): a line is
one event, or a whole recording written on one line, and the loader builds
no more plain JSON than that from one file. A longer line stops the follow
with a RecordingError naming it. While a line is unfinished the summary says
how much of it is held (``unfinishedLine``). Bytes are read once: the first
line is sniffed from what was read, not read again on each poll.

A whole recording or envelope (not a stream) at the path is reopened as a
whole each time it changes: a file rewritten in place is different content,
not an append, and the summary says which it is (``kind``). A write caught
half done (the JSON ends early) is read again at the next change.

Status of the run being written (the run of the newest event):

- ``waiting``: nothing written yet (the writer claims the file empty);
- ``running``: its end not seen, and the file grew less than ``idle_seconds``
  ago (:data:`IDLE_SECONDS` by default; the writer flushes every second while
  events come, so a model or tool call that takes longer than this without
  any other event reads as stopped until the next event arrives);
- ``ended``: its end was seen: the root's ``agent.turn_end`` (the Agent's
  ``final`` stage) or ``composition.exit``, or an ``error.fatal``;
- ``stopped-without-end``: no end, and no growth for ``idle_seconds``. A run
  whose composition crashed simply stops writing, which looks exactly like
  this; the calls still open are named in :meth:`FollowedFile.summary`.

:meth:`FollowedFile.summary` counts exactly on every poll. Its newest likely
cause is found over the grown index (:func:`lens.evidence.causes.likely_causes`
on :meth:`FollowedFile.open_run`), again only when the time since it was
last found is :data:`_CAUSE_COST_FACTOR` times what finding it cost (or it
cost under :data:`_CAUSE_FREE_SECONDS`): a stream appended faster than that
gets the cause a moment after the counts, and following stays proportional.

Does not own: decoding lines (:mod:`recorders.event_stream`), the evidence
fold (:mod:`recorders.evidence.build`), the causes
(:mod:`lens.evidence.causes`), printing (``lens_cli/follow_command.py``), or the
app page.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Any, Callable

from recorders import boundary_names
from recorders.catalogue import AGENT_TURN_END, COMPOSITION_EXIT, ERROR_FATAL
from recorders.deep_parse import collector_paused
from recorders.errors import NothingWrittenYet, RecordingError
from recorders.event_stream import EventStreamDecoder, run_id_of
from recorders.evidence import ModelCall, ToolCall
from recorders.evidence.build import EvidenceBuilder
from recorders.evidence.records import CONSUMER_SCOPE
from recorders import packed
from recorders.read import event_stream as stream_kind, names
from recorders.loading import LoadedFile, Recording, load_file
from recorders.read.registry import kind_named
from lens.evidence.causes import likely_causes
from lens.follow_summary import FollowSummary
from lens.run import OpenRun

WAITING, RUNNING, ENDED, STOPPED = "waiting", "running", "ended", "stopped-without-end"
STATUSES = (WAITING, RUNNING, ENDED, STOPPED)

EVENT_STREAM = names.EVENT_STREAM
# Seconds without growth, the run's end unseen, after which it reads as stopped.
IDLE_SECONDS = 30.0
# Bytes read from the file per system call.
_READ_BYTES = 1 << 20
# ... and to find the first line, to tell a stream from a whole recording.
_SNIFF_BYTES = 1 << 16
# The most one line may hold before its newline: see :func:`line_limit`.
LINE_LIMIT_SETTING = packed.MAX_EXPANDED_ENV
# The likely causes are found again over the grown index at most when the
# time since they were last found is this many times what finding them cost:
# a stream appended faster than that gets its counts on every poll and its
# newest cause a moment later, and following stays proportional to the stream.
_CAUSE_COST_FACTOR = 4.0
# Finding them costs less than this on a run of usual size: then always found again.
_CAUSE_FREE_SECONDS = 0.005
# Causes that are the calls still running while the run is: not causes yet.
_OPEN_CALL_KINDS = frozenset({"tool did not end", "model call did not end"})
# A run's end: these types at the root scope (an Agent's ends in its ``final`` stage).
_END_TYPES = frozenset({AGENT_TURN_END, COMPOSITION_EXIT})
_FINAL_SEGMENT = "final"
_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
# What bytes.lstrip passes over before a file's first line tells its kind.
_NOT_BLANK = re.compile(rb"[^ \t\n\r\x0b\x0c]")


class FollowedRun:
    """One run of the stream (one ``meta.runId``): its events as read, the
    evidence folded so far, and whether its end was seen."""

    def __init__(self, run_id: str | None) -> None:
        self.run_id = run_id
        self.stream = stream_kind.GrowingStreamRun()
        self.evidence = EvidenceBuilder()
        self.ended_at: int | None = None  # position of the event that ended it
        self._open: tuple[int, OpenRun] | None = None

    @property
    def events(self) -> list[dict]:
        """The run's events read so far (the stream's own list: read, never change)."""
        return self.stream.events

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    def add(self, events: list[dict], where: str) -> None:
        """Check ``events`` as the loader checks a stream (RecordingError naming
        ``where``; then none of them is taken in) and fold them."""
        start = len(self.events)
        self.stream.add(events, where)
        self.evidence.feed(events)
        if self.ended_at is None:
            for offset, event in enumerate(self.events[start:]):
                if _ends_run(event):
                    self.ended_at = start + offset
                    break

    def open_calls(self) -> list[str]:
        """The model and tool calls started and not ended, named."""
        return [_call_name(record) for record in self.evidence.open_calls()]

    def open_run(self, kind: str = EVENT_STREAM) -> OpenRun:
        """An :class:`OpenRun` over what was folded; the same one until more is."""
        cached = self._open
        if cached is not None and cached[0] == len(self.events):
            return cached[1]
        recording = self.recording(kind)
        opened = OpenRun.from_parts(recording, self.evidence.snapshot(recording.typed_events))
        self._open = (len(self.events), opened)
        return opened

    def recording(self, kind: str = EVENT_STREAM) -> Recording:
        """A :class:`Recording` of the events read so far (its own list of them)."""
        return self.stream.recording(kind)


@dataclass
class _Generation:
    """One file of the stream being read: its descriptor, identity and decoder."""

    fd: int
    ident: tuple[int, int]
    name: str
    offset: int = 0
    decoder: EventStreamDecoder = field(default_factory=EventStreamDecoder)
    # The bytes after the last newline read (an unfinished line), not yet
    # given to the decoder: it gets whole lines only, so they are held once.
    pending: bytearray = field(default_factory=bytearray)
    # Bytes read while sniffing its first line (before ``offset``), not yet taken in.
    unread: bytearray = field(default_factory=bytearray)
    # The size of ``pending`` when it was last tried as one whole JSON text.
    tried_whole: int = -1


class FollowedFile:
    """A file followed while it is written; see the module doc."""

    def __init__(self, path: str | os.PathLike, *, idle_seconds: float = IDLE_SECONDS,
                 clock: Callable[[], float] = time.time,
                 opener: Callable[[Path], int] | None = None,
                 shown_as: str | None = None) -> None:
        self.path = Path(path)
        # How messages name the file: its path by default; a server names it as
        # its page does (folder label and path within), not by where it lies.
        self.shown = str(self.path) if shown_as is None else shown_as
        # How a path is opened: by default as it is; a server passes one that
        # opens beneath its configured folder without following symlinks, so a
        # file swapped for a symlink between two polls is refused, not read.
        self._opener = opener or _open_plain
        self.idle_seconds = idle_seconds
        self._clock = clock
        self.kind: str | None = None  # EVENT_STREAM, or the whole file's kind
        self.notes: list[str] = []    # plain sentences: rotations, rewrites, cut lines
        self.runs: list[FollowedRun] = []
        self._runs_by_id: dict[str | None, FollowedRun] = {}
        self._current: FollowedRun | None = None   # the run being written (shown)
        self._last_run: FollowedRun | None = None  # the run of the newest event with an id
        self._generation: _Generation | None = None
        self._finished: dict[tuple[int, int], int] = {}  # generations read: ident -> bytes
        self._started = False
        self._last_growth: float | None = None  # wall-clock seconds
        self.events_read = 0
        self.error: RecordingError | None = None  # a bad line stops the follow here
        # A whole recording or envelope: its identity when read, and what it gave.
        self._document_key: tuple | None = None
        self._document: OpenRun | None = None
        self._loaded: LoadedFile | None = None
        self._document_ended = False
        # The newest cause: (key, headline), what finding it cost, and when.
        self._cause: tuple[Any, str | None] = (None, None)
        self._cause_cost = 0.0
        self._cause_at = float("-inf")

    # ── reading ──────────────────────────────────────────────────────

    def poll(self) -> bool:
        """Read and fold what was written since the last poll; True when
        anything was. RecordingError names the file and line of a line that
        is not an event (what came before it stays folded)."""
        if self.error is not None:
            raise self.error
        try:
            # As for a parse: the collector paused while the batch is folded.
            with collector_paused():
                return self._poll()
        except RecordingError as exc:
            self.error = exc
            raise

    def _poll(self) -> bool:
        if self.kind is not None and self.kind != EVENT_STREAM:
            return self._poll_document()
        if not self._started:
            read_whole = self._start()
            if not self._started:
                return False
            if self.kind is not None and self.kind != EVENT_STREAM:
                return read_whole
        before = self.events_read
        changed = self._read_generation()
        if self.kind is not None and self.kind != EVENT_STREAM:
            return True  # its first line told a whole recording: read as one
        try:
            now = self._stat(self.path)
        except FileNotFoundError:
            now = None  # renamed, and the writer has not made the new file yet
        generation = self._generation
        if now is not None and generation is not None:
            if _ident(now) != generation.ident:
                changed |= self._next_generation(now)
            elif now.st_size < generation.offset:
                changed |= self._truncated()
        elif now is not None and generation is None:
            opened = _open_regular(self.path, self._opener, self.shown)
            if opened is not None:
                self._generation = _Generation(opened[0], _ident(opened[1]), opened[2])
                changed |= self._read_generation()
        if self.kind is not None and self.kind != EVENT_STREAM:
            return True
        if changed:
            self._last_growth = self._clock()
        return changed or self.events_read != before

    def _start(self) -> bool:
        """Open the stream: ``<path>.1`` first when a stream's older part sits
        beside it. True when the path held a whole recording, and it was read."""
        main = _open_regular(self.path, self._opener, self.shown)
        if main is None and self.path.exists() and not self.path.is_file():
            raise RecordingError(f"cannot follow {self.shown!r}: not a regular file "
                                 "(a folder, a pipe or a device)")
        main_head = bytearray()
        if main is not None:
            try:
                kind, main_head = _sniff_file(main[0], self.shown)
            except RecordingError:
                os.close(main[0])
                raise
            if kind is not None and kind != EVENT_STREAM:
                self._started = True
                self._generation = _Generation(main[0], _ident(main[1]), main[2])
                return self._whole(kind)  # a whole recording: .1 has nothing to do with it
        older = _open_regular(Path(f"{self.path}.1"), self._opener, f"{self.shown}.1")
        older_head = bytearray()
        if older is not None:
            try:
                older_kind, older_head = _sniff_file(older[0], f"{self.shown}.1")
            except RecordingError:
                os.close(older[0])
                if main is not None:
                    os.close(main[0])
                raise
            if older_kind != EVENT_STREAM or (
                    main is not None and _ident(older[1]) == _ident(main[1])):
                os.close(older[0])
                older = None
        first = older or main
        if first is None:
            return False
        if older is not None and main is not None:
            os.close(main[0])  # opened again once .1 is read
        fd, info, name = first
        self._started = True
        self._last_growth = info.st_mtime
        # What the sniff read is taken in by the next read, not read again.
        head = older_head if older is not None else main_head
        self._generation = _seeded(fd, info, name, head)
        return False

    def _whole(self, kind: str) -> bool:
        """The path holds a whole recording (``kind``): read as such."""
        generation = self._generation
        os.close(generation.fd)
        self._generation = None
        self.kind = kind
        return self._poll_document()

    def _sniffing(self, generation: _Generation) -> bool:
        """Whether ``generation``'s first line still decides the file's kind."""
        return self.kind is None and generation.name == str(self.path)

    def _read_generation(self) -> bool:
        """Read the generation being read to its current end and fold it:
        each byte read once, from where the last read ended."""
        generation = self._generation
        if generation is None:
            return False
        limit = line_limit()
        changed = False
        if generation.unread:
            data, generation.unread = generation.unread, bytearray()
            changed = True
            if self._take(generation, data, limit):
                return True
        while True:
            chunk = os.pread(generation.fd, _READ_BYTES, generation.offset)
            if not chunk:
                break
            generation.offset += len(chunk)
            changed = True
            if self._take(generation, chunk, limit):
                return True
        if self._sniffing(generation) and generation.tried_whole != len(generation.pending) \
                and _ends_as_object(generation.pending):
            # At the end of what is written, a first line with no newline may
            # be a whole recording on one line: tried once per size it reaches.
            generation.tried_whole = len(generation.pending)
            kind = _sniff(generation.pending, whole=True)
            if kind is not None and kind != EVENT_STREAM:
                return self._whole(kind)
            if kind == EVENT_STREAM:
                self.kind = EVENT_STREAM
        return changed

    def _take(self, generation: _Generation, data: bytes | bytearray, limit: int) -> bool:
        """Take in ``data``, the bytes read next: its whole lines folded, the
        rest held (at most ``limit`` bytes of one line). True when the first
        line told the path holds a whole recording, and it was read as one."""
        pending = generation.pending
        if self._sniffing(generation):
            if not pending and isinstance(data, bytearray):
                generation.pending = pending = data  # the sniff's bytes, held as they are
            else:
                pending += data
            if b"\n" not in data:
                # No newline yet: only the line's first bytes can tell (gzip, a
                # list, not JSON); the whole line is not parsed again each read.
                kind = _sniff(pending[:_SNIFF_BYTES], whole=False) \
                    if len(pending) - len(data) < _SNIFF_BYTES else None
                if kind is not None and kind != EVENT_STREAM:
                    return self._whole(kind)
                if kind is None:
                    self._check_unfinished(generation, limit)
                    return False
            else:
                kind = _sniff(pending, whole=False)
                if kind is not None and kind != EVENT_STREAM:
                    return self._whole(kind)
                if kind is None:
                    # Only blank lines before an unfinished first line: count them.
                    cut = pending.rfind(b"\n")
                    generation.decoder.feed(bytes(pending[: cut + 1]))
                    del pending[: cut + 1]
                    self._check_unfinished(generation, limit)
                    return False
            self.kind = EVENT_STREAM
            data = bytes(pending)
            pending.clear()
        elif self.kind is None:
            self.kind = EVENT_STREAM  # a stream's .1, read first
        cut = data.rfind(b"\n")
        if cut < 0:
            pending += data
            self._check_unfinished(generation, limit)
            return False
        # The held line, now ended: refused too if it ran past the limit.
        self._check_unfinished(generation, limit, length=len(pending) + data.find(b"\n"))
        pending += data[: cut + 1]  # the held line's end, and the lines after it
        generation.pending = bytearray(data[cut + 1:])
        self._fold(generation, pending)
        self._check_unfinished(generation, limit)
        return False

    def _check_unfinished(self, generation: _Generation, limit: int, *,
                          length: int | None = None) -> None:
        """RecordingError when the line being held (``length`` bytes of it,
        by default all that is held) is longer than ``limit``."""
        length = len(generation.pending) if length is None else length
        if length > limit:
            raise _too_long(self._words(generation.name), generation.decoder.lines_read + 1,
                            limit, self.events_read)

    def _next_generation(self, now: os.stat_result) -> bool:
        """The file at the path is another one: finish the old, read any whole
        generation rotated in between, then the new one from its start."""
        old = self._generation
        changed = self._read_generation()
        self._end_generation(old)
        rotated_path = f"{self.path}.1"
        rotated = _open_regular(Path(rotated_path), self._opener, f"{self.shown}.1")
        if rotated is None:
            if old.name == str(self.path):
                self.notes.append(f"{self.shown} was replaced by another file (not rotated to "
                                  ".1); reading the new file from its start")
        else:
            fd, info, name = rotated
            ident = _ident(info)
            # A .1 this follower read already is the same file, as long as it
            # holds what was read of it (an inode freed and used again does not).
            if ident != _ident(now) and self._finished.get(ident) != info.st_size:
                self.notes.append(f"{self.shown}.1 was written and rotated between two reads; "
                                  "read whole")
                self._generation = _Generation(fd, ident, name)
                changed |= self._read_generation()
                self._end_generation(self._generation)
            else:
                os.close(fd)
        opened = _open_regular(self.path, self._opener, self.shown)
        self._generation = None
        if opened is not None:
            fd, info, name = opened
            try:
                kind, head = _sniff_file(fd, self.shown, self.events_read)
            except RecordingError:
                os.close(fd)
                raise
            self._generation = _seeded(fd, info, name, head)
            if kind is not None and kind != EVENT_STREAM:
                os.close(fd)
                self._generation = None
                self.kind = kind
                self.notes.append(f"{self.shown} now holds a whole {kind}; reopened as a whole")
                return self._poll_document() or True
            changed |= self._read_generation()
        return changed

    def _truncated(self) -> bool:
        generation = self._generation
        self._end_generation(generation, close=False)
        self.notes.append(f"{self.shown} became shorter than what was read ({generation.offset} "
                          "bytes): read again from its start as the next part of the stream")
        self._generation = _Generation(generation.fd, generation.ident, generation.name)
        return self._read_generation()

    def _end_generation(self, generation: _Generation, *, close: bool = True) -> None:
        """The file ``generation`` reads will not grow again: its last line,
        when it has no newline, is read if whole and reported if cut."""
        self._finished[generation.ident] = generation.offset
        try:
            last_line = bytes(generation.pending)
            generation.pending = bytearray()
            generation.decoder.feed(last_line)  # no newline: held by the decoder for finish
            events = generation.decoder.finish()
            if events:
                self._route(events, generation, first_line=generation.decoder.lines_read - 1,
                            lines=lambda: last_line)
            elif generation.decoder.pending_bytes:
                self.notes.append(
                    f"{generation.name} ends in the middle of line "
                    f"{generation.decoder.lines_read + 1} ({generation.decoder.pending_bytes} "
                    "bytes cut short): that event was not written whole")
        finally:
            if close:
                os.close(generation.fd)

    def _fold(self, generation: _Generation, whole: bytes | bytearray) -> None:
        """Decode and fold ``whole``, complete lines (it ends in a newline)."""
        lines_before = generation.decoder.lines_read
        try:
            events = generation.decoder.feed(whole)
        except RecordingError as exc:
            # Fold the whole lines before the bad one, then stop there.
            text = whole
            cut = text.rfind(b"\n")
            good: list[dict] = []
            decoder = EventStreamDecoder()
            decoder.lines_read = lines_before
            try:
                for line in text[:cut].split(b"\n"):
                    good += decoder.feed(line + b"\n")
            except RecordingError:
                pass
            if good:
                self._route(good, generation, first_line=lines_before,
                            lines=lambda: text[:cut])
            raise RecordingError(f"{self._words(generation.name)}: {exc} (the {self.events_read} events "
                                 "before it were read)") from None
        if events:
            self._route(events, generation, first_line=lines_before,
                        lines=lambda: whole[:-1])

    def _route(self, events: list[dict], generation: _Generation, *, first_line: int,
               lines: Callable[[], bytes]) -> None:
        """Hand each event to its run (``meta.runId``; an event without one
        stays with the run before it), in order, a run's events together."""
        segment: list[dict] = []
        target: FollowedRun | None = None
        start = 0
        for at, event in enumerate(events):
            run = self._run_for(event)
            if run is not target and segment:
                self._add(target, segment, events, start, generation, first_line, lines)
                segment = []
                start = at
            target = run
            segment.append(event)
        if segment:
            self._add(target, segment, events, start, generation, first_line, lines)

    def _run_for(self, event: dict) -> FollowedRun:
        rid = run_id_of(event)
        if rid is None:
            if self._last_run is None:
                self._last_run = self._current = self._new_run(None)
            return self._last_run
        run = self._runs_by_id.get(rid)
        if run is None:
            leading = self._runs_by_id.get(None)
            if leading is not None and len(self.runs) == 1:
                # Events before the first run id belong to the first run.
                del self._runs_by_id[None]
                leading.run_id = rid
                run = self._runs_by_id[rid] = leading
            else:
                run = self._new_run(rid)
        self._last_run = run
        if rid != CONSUMER_SCOPE or self._current is None:
            # The application's own events (pause, runner.emit) are not the run being written.
            self._current = run
        return run

    def _new_run(self, rid: str | None) -> FollowedRun:
        run = FollowedRun(rid)
        self.runs.append(run)
        self._runs_by_id[rid] = run
        return run

    def _add(self, run: FollowedRun, segment: list[dict], batch: list[dict], start: int,
             generation: _Generation, first_line: int, lines: Callable[[], bytes]) -> None:
        try:
            run.add(segment, "events")
        except RecordingError:
            # Name the line: check one event at a time to find it.
            for offset, event in enumerate(segment):
                line = _line_number(lines(), first_line, start + offset)
                try:
                    stream_kind.GrowingStreamRun.check(
                        [event], f"{self._words(generation.name)} line {line}")
                except RecordingError as exc:
                    good = segment[:offset]
                    if good:
                        run.add(good, "events")
                        self.events_read += len(good)
                    raise RecordingError(f"{exc} (the {self.events_read} events before it "
                                         "were read)") from None
            raise
        self.events_read += len(segment)

    def _words(self, name: str | Path) -> str:
        """The file ``name`` (the followed path or its ``.1``) as messages name it."""
        name = str(name)
        if name == str(self.path):
            return self.shown
        if name == f"{self.path}.1":
            return f"{self.shown}.1"
        return name

    def _stat(self, path: Path) -> os.stat_result:
        """The file now at ``path``, as the opener reaches it (FileNotFoundError
        when there is none, or none that is a regular file): identity and size
        come from the descriptor, never from following a name."""
        opened = _open_regular(path, self._opener, self._words(path))
        if opened is None:
            raise FileNotFoundError(str(path))
        os.close(opened[0])
        return opened[1]

    # ── a whole recording or envelope ────────────────────────────────

    def _poll_document(self) -> bool:
        try:
            info = self._stat(self.path)
        except FileNotFoundError:
            return False  # an atomic rewrite between its rename steps
        key = (_ident(info), info.st_size, info.st_mtime_ns)
        if key == self._document_key:
            return False
        self._last_growth = max(self._clock() if self._document_key else info.st_mtime,
                                info.st_mtime)
        self._document_key = key
        data = _read_regular(self.path, self._opener, self.shown)
        if data is None:
            return False
        try:
            loaded = load_file(data, name=self.path.name)
        except RecordingError as exc:
            if "truncated" in str(exc) or "ends early" in str(exc):
                return False  # caught half written: read again at the next change
            raise RecordingError(f"{self.shown}: {exc}") from None
        if not loaded.runs:
            return False
        if self._document is not None:
            self.notes.append(f"{self.shown} was rewritten; reopened as a whole")
        recording = loaded.runs[-1]
        self.kind = loaded.kind
        self._loaded = loaded
        self._document = OpenRun(recording)
        self._document_ended = _document_ended(recording)
        return True

    # ── what is known ────────────────────────────────────────────────

    @property
    def current(self) -> FollowedRun | None:
        """The run of the newest event (the one being written)."""
        return self._current

    @property
    def status(self) -> str:
        if self._document is not None:
            if self._document_ended:
                return ENDED
            return STOPPED if self.idle_for() > self.idle_seconds else RUNNING
        run = self._current
        if run is None:
            return WAITING
        if run.ended:
            return ENDED
        return STOPPED if self.idle_for() > self.idle_seconds else RUNNING

    @property
    def unfinished_bytes(self) -> int:
        """Bytes held of a line still being written (no newline after them
        yet; never more than :func:`line_limit`), 0 when there is none."""
        generation = self._generation
        if generation is None or self._document is not None:
            return 0
        held = generation.pending
        return 0 if not held or held.isspace() else len(held)

    def _unfinished_line(self) -> str | None:
        """The summary's sentence on the line being held, when there is one."""
        held = self.unfinished_bytes
        if not held:
            return None
        number = self._generation.decoder.lines_read + 1
        return (f"line {number} is not finished yet: {held:,} bytes of it read and held, "
                f"waiting for its newline (a line may hold up to {line_limit():,} bytes, "
                f"{LINE_LIMIT_SETTING})")

    def idle_for(self) -> float:
        """Seconds since the file last grew (as far as polls saw, or its mtime)."""
        if self._last_growth is None:
            return 0.0
        return max(0.0, self._clock() - self._last_growth)

    def open_run(self, run_id: str | None = None) -> OpenRun:
        """An :class:`OpenRun` over what was read of the run being written (or
        of ``run_id``): cheap, the same object until more is read.
        RecordingError when nothing was written yet."""
        if self._document is not None:
            return self._document
        run = self._current if run_id is None else self._runs_by_id.get(run_id)
        if run is None:
            if run_id is None:
                raise NothingWrittenYet("the event stream has nothing written yet")
            raise RecordingError(f"the stream holds no run {run_id!r}")
        return run.open_run()

    def summary(self) -> FollowSummary:
        """What is known now (nothing that changes by itself with time: a
        printer prints it again only when it changed)."""
        status = self.status
        notes = tuple(self.notes)
        if self._document is not None:
            run = self._document
            evidence = run.evidence
            open_calls = [_call_name(c) for c in evidence.calls if not c.ended] + \
                [_call_name(t) for t in evidence.tool_calls if not t.ended]
            return FollowSummary(
                file=self.shown, kind=self.kind, status=status, run_id=run.run_id,
                runs=len(self._loaded.runs), typed_events=len(run.recording.typed_events),
                model_calls=len(evidence.calls), tool_calls=len(evidence.tool_calls),
                failed_tool_calls=sum(1 for t in evidence.tool_calls if t.failed),
                open_calls=tuple(open_calls),
                newest_cause=self._newest_cause((id(run), status), lambda: run, status),
                notes=notes)
        run = self._current
        kind = self.kind or EVENT_STREAM
        unfinished = self._unfinished_line()
        if run is None:
            return FollowSummary(file=self.shown, kind=kind, status=status,
                                 unfinished_line=unfinished, notes=notes)
        evidence = run.evidence
        return FollowSummary(
            file=self.shown, kind=kind, status=status, run_id=run.run_id, runs=len(self.runs),
            typed_events=len(run.events), events_in_file=self.events_read,
            model_calls=evidence.model_calls, tool_calls=evidence.tool_calls,
            failed_tool_calls=evidence.failed_tool_calls, open_calls=tuple(run.open_calls()),
            newest_cause=self._newest_cause((id(run), len(run.events), status),
                                            run.open_run, status),
            unfinished_line=unfinished, notes=notes)

    def _newest_cause(self, key: Any, opened: Callable[[], OpenRun], status: str) -> str | None:
        """The headline of the likely cause resting on the newest event (the
        open calls count only once the run stopped without an end)."""
        known_key, headline = self._cause
        if key == known_key:
            return headline
        started = perf_counter()
        if known_key is not None and self._cause_cost > _CAUSE_FREE_SECONDS and \
                started - self._cause_at < _CAUSE_COST_FACTOR * self._cause_cost:
            return headline  # found again once the time since pays for it
        run = opened()
        causes = likely_causes(run.evidence)
        if status != STOPPED:
            causes = tuple(c for c in causes if c.kind not in _OPEN_CALL_KINDS)
        newest = max(causes, key=lambda c: max(c.events, default=-1), default=None)
        headline = newest.headline if newest is not None else None
        self._cause = (key, headline)
        self._cause_at = perf_counter()
        self._cause_cost = self._cause_at - started
        return headline

    def close(self) -> None:
        """Let go of the file's descriptor."""
        if self._generation is not None:
            os.close(self._generation.fd)
            self._generation = None

    def __enter__(self) -> FollowedFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def recording_beside(stream_path: str | os.PathLike, run_id: str | None) -> Path | None:
    """The full recording ``fileRecordingSink`` wrote for ``run_id`` in the
    stream's folder (``<runId>.json``, written atomically at the run's end),
    when it is there; None otherwise, or for a run id no file may be named by."""
    if not run_id or run_id.strip(".") == "" or any(c in run_id for c in "/\\\0:"):
        return None
    candidate = Path(stream_path).parent / f"{run_id}.json"
    try:
        # lstat: a symlink named like the recording is not it (it is not followed).
        return candidate if stat.S_ISREG(os.lstat(candidate).st_mode) else None
    except (OSError, ValueError):
        return None


# ─── Small helpers ─────────────────────────────────────────────────────


def _ident(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


def _open_plain(path: Path) -> int:
    return os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))


def _open_regular(path: Path, opener: Callable[[Path], int] = _open_plain,
                  shown: str | None = None) -> tuple[int, os.stat_result, str] | None:
    """(descriptor, its stat, name) of a regular file, or None when there is
    none; a refusal names the file as ``shown`` (its path by default)."""
    shown = str(path) if shown is None else shown
    try:
        fd = opener(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise RecordingError(f"cannot read {shown!r}: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL byte or an unencodable character in the name
        raise RecordingError(f"cannot read {shown!r}: {exc}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        return None
    return fd, info, str(path)


def _read_regular(path: Path, opener: Callable[[Path], int] = _open_plain,
                  shown: str | None = None) -> bytes | None:
    opened = _open_regular(path, opener, shown)
    if opened is None:
        return None
    fd = opened[0]
    with open(fd, "rb") as handle:
        return handle.read()


def line_limit() -> int:
    """The most bytes one line of a followed file may hold before its newline:
    the loader's ``LENS_MAX_EXPANDED_MB`` (:func:`recorders.packed.max_expanded_bytes`,
    read now; 200 MiB by default), the most plain JSON it builds from one file.
    A line is one event, or a whole recording written on one line, so no line
    the loader would read is longer; a longer one is refused, not held."""
    return packed.max_expanded_bytes()


def _too_long(shown: str, number: int, limit: int, events_read: int) -> RecordingError:
    return RecordingError(
        f"{shown}: line {number} of the event stream runs past {limit:,} bytes, the most one "
        f"line may hold ({LINE_LIMIT_SETTING}; one event, or a whole recording on one line, "
        f"is never larger); not read (the {events_read} events before it were read)")


def _seeded(fd: int, info: os.stat_result, name: str, head: bytearray) -> _Generation:
    """A generation whose first ``head`` bytes were read by :func:`_sniff_file`:
    its next read takes them in rather than reading them again."""
    generation = _Generation(fd, _ident(info), name, offset=len(head), unread=head)
    if head and b"\n" not in head:
        generation.tried_whole = len(head)  # the sniff tried it as one whole JSON text
    return generation


def _ends_as_object(held: bytearray) -> bool:
    """Whether ``held`` ends with ``}`` but for blanks; only its last
    :data:`_SNIFF_BYTES` are looked at (a line ending in more blanks than
    that is not taken for a whole document until its newline comes)."""
    return bytes(held[-_SNIFF_BYTES:]).rstrip().endswith(b"}")


def _sniff_file(fd: int, shown: str, events_read: int = 0) -> tuple[str | None, bytearray]:
    """:func:`_sniff` of the file's first line (read whole: a compact
    recording is one long line, but no longer than :func:`line_limit`, or
    RecordingError says so), and the bytes read for it; at its end without a
    newline, the whole text decides when it is complete JSON."""
    limit = line_limit()
    head = bytearray()
    while True:
        chunk = os.pread(fd, _SNIFF_BYTES, len(head))
        if not chunk:
            break
        head += chunk
        if b"\n" in chunk:
            break
        if len(head) > limit:
            raise _too_long(shown, 1, limit, events_read)
    return _sniff(head, whole=True), head


def _sniff(head: bytes | bytearray, *, whole: bool) -> str | None:
    """EVENT_STREAM when the first line is a typed event, 'recording' for a
    whole document (gzip, a list, an object that is not an event), None when
    nothing tells yet (empty, or the first line unfinished). Without a newline
    the line is parsed only when it is ``whole`` (all the file holds now) and
    ends as an object does: a line still being written is not parsed again
    and again. ``head`` is looked into in place: only the first line is copied,
    and only to parse it."""
    found = _NOT_BLANK.search(head, len(_BOM) if head.startswith(_BOM) else 0)
    if found is None:
        return None
    start = found.start()
    opening = bytes(head[start:start + len(_GZIP_MAGIC)])
    if opening.startswith(_GZIP_MAGIC) or opening.startswith(b"["):
        return names.RECORDING
    if not opening.startswith(b"{"):
        return EVENT_STREAM  # not JSON at all: the stream's decoder names the line
    end = head.find(b"\n", start)
    newline = end >= 0
    if not newline:
        if not (whole and _ends_as_object(head)):
            return None  # unfinished (an object ends with its brace): not decided yet
        end = len(head)
    try:
        value = json.loads(head[start:end])
    except (ValueError, RecursionError):
        # A first line that is not whole JSON: a pretty-printed document, or a
        # stream's first line half written.
        return names.RECORDING if newline else None
    # The event stream's own sniff (the registry's), as the loader asks it.
    return EVENT_STREAM if kind_named(EVENT_STREAM).sniff(value) else names.RECORDING


def _ends_run(event: dict) -> bool:
    kind = event.get("type")
    if kind == ERROR_FATAL:
        return True
    if kind not in _END_TYPES:
        return False
    meta = event.get("meta")
    path = meta.get("subflowPath") if isinstance(meta, dict) else None
    if not isinstance(path, list):
        return False
    if path and path[-1] == _FINAL_SEGMENT:
        path = path[:-1]
    return not path


def _document_ended(recording: Recording) -> bool:
    if recording.complete is True:
        return True
    if recording.boundary_counts.get(boundary_names.RUN_EXIT):
        return True
    return any(isinstance(e, dict) and _ends_run(e) for e in recording.typed_events)


def _call_name(record: ModelCall | ToolCall) -> str:
    if isinstance(record, ToolCall):
        return f"tool {record.name or '(no name recorded)'} (event {record.start_event_index})"
    model = f" {record.model}" if record.model else ""
    return f"model call{model} (event {record.start_event_index})"


def _line_number(lines: bytes, lines_before: int, index: int) -> int:
    """The file line of the ``index``-th event of a feed whose whole lines are
    ``lines`` (blank lines carry no event)."""
    seen = -1
    for number, line in enumerate(lines.split(b"\n"), start=lines_before + 1):
        if line.strip():
            seen += 1
            if seen == index:
                return number
    return lines_before + index + 1


__all__ = ["FollowedFile", "FollowedRun", "recording_beside", "line_limit", "IDLE_SECONDS",
           "STATUSES",
           "WAITING", "RUNNING", "ENDED", "STOPPED", "EVENT_STREAM"]

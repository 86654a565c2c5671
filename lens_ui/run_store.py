"""What the server holds for all its sessions, within one memory budget.

Two kinds of things are held: **open runs** (one :class:`lens.run.OpenRun`
per file, shared by every session that shows it, keyed by the sha256 of the
file) and **uploaded bytes** (one copy per distinct file, kept so a session
can go back to an earlier upload and a reload can reopen it). Both count
against one budget, in bytes:

- an open run counts :data:`RETAINED_PER_BYTE` × its JSON size (measured:
  1.1× to 2.6× with both projections built), and while it is being opened
  :data:`OPENING_PER_BYTE` × (measured peak 6.2× to 7.0×), so opening is
  refused up front when it cannot fit, rather than after the memory is spent;
- what pages derive from a run and keep (:meth:`ServerStore.memo`: event
  tables, a scope's steps and diagram, the timeline, likely causes, a
  comparison of two runs…) counts an estimate per byte of JSON measured for
  its kind, and goes when its run (or any other run it was built from) goes;
- uploaded bytes count their length.

Only one run is opened at a time, so two opening peaks never stack. A run
that a live session shows is never dropped (a click never re-parses); when
room is needed the least recently used run that no session shows goes first,
and when nothing can go the request is refused with :class:`OverBudget`.

Sessions are told apart by their id. A session's uploads belong to its
:class:`Lease`; when the session has been gone for the grace period (checked
through the ``is_live`` callable) its lease and the bytes only it held are
dropped. The grace period runs from when the session left, not from the
store's next use: while any lease is held, a daemon thread (the *grace
ticker*, :meth:`ServerStore.watch_sessions`) looks at the sessions every
:func:`watch_period` seconds (at most 1 s, a tenth of the grace when that is
shorter) and wakes when a grace period ends, so an idle server drops a gone
session's uploads at most one period late; it stops when no lease is left
and holds no reference that keeps the store alive. An upload is found from
another session only by its full digest (:meth:`ServerStore.find_upload`),
which is what a shared link carries.

Pure Python and thread-safe; ``lens_ui/runs.py`` wires it to Streamlit.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Iterator, TypeVar

from lens.wording import plural

RETAINED_PER_BYTE = 3.0
OPENING_PER_BYTE = 7.0
MAX_UPLOADS_PER_SESSION = 4

Run = TypeVar("Run")
MB = 1024 * 1024


class OverBudget(Exception):
    """The server cannot hold this within its memory budget now (one line, for the user)."""


@dataclass(frozen=True)
class HeldUpload:
    digest: str
    info: Any  # what the app shows for it (name, label, time); never read here
    size: int


@dataclass
class Lease:
    """One browser session's hold: the run it shows and the uploads it keeps."""

    session_id: str
    current: str | None = None  # digest of the run on screen
    uploads: OrderedDict = field(default_factory=OrderedDict)  # digest → HeldUpload, oldest first
    gone_since: float | None = None  # when the session was first seen gone (store clock)


@dataclass
class _Entry(Generic[Run]):
    run: Run
    json_bytes: int
    memo: dict = field(default_factory=dict)  # key → value derived from the run
    memo_costs: dict = field(default_factory=dict)  # key → its estimated bytes
    memo_needs: dict = field(default_factory=dict)  # key → the other runs it was built from

    @property
    def cost(self) -> int:
        return int(self.json_bytes * RETAINED_PER_BYTE) + sum(self.memo_costs.values())

    def forget(self, key: Any) -> None:
        for table in (self.memo, self.memo_costs, self.memo_needs):
            table.pop(key, None)


@dataclass(frozen=True)
class Usage:
    runs_bytes: int
    uploads_bytes: int
    budget_bytes: int
    runs: int
    sessions: int

    @property
    def used_bytes(self) -> int:
        return self.runs_bytes + self.uploads_bytes


def watch_period(grace_s: float) -> float:
    """How often the grace ticker looks at the sessions: at most 1 s, and a
    tenth of the grace period when that is shorter (how late a gone
    session's uploads may be dropped)."""
    return max(0.01, min(1.0, grace_s / 10))


class ServerStore(Generic[Run]):
    """Open runs and uploaded bytes of every session, within ``budget_bytes``;
    and the grace ticker that drops a gone session's lease on time.

    With ``grace_ticker=True`` (what the app runs) a daemon thread keeps the
    grace clock; without it a gone session is noticed only when the store is
    next used, or when :meth:`watch_sessions` is called (tests stepping a
    fake ``clock`` do that). ``is_live`` must be cheap and safe on any thread:
    the ticker calls it under the store's lock.
    """

    def __init__(self, budget_bytes: int, is_live: Callable[[str], bool], grace_s: float,
                 clock: Callable[[], float] = time.monotonic,
                 on_release: Callable[[Any], None] | None = None,
                 grace_ticker: bool = False) -> None:
        self.budget_bytes = budget_bytes
        self._is_live = is_live
        self._grace_s = grace_s
        self._clock = clock
        self._on_release = on_release
        self._grace_ticker = grace_ticker
        self._ticker: threading.Thread | None = None  # running while leases are held
        self._lock = threading.RLock()
        self._opening = threading.Lock()
        self._runs: OrderedDict[str, _Entry] = OrderedDict()
        self._blobs: dict[str, bytes] = {}
        self._leases: dict[str, Lease] = {}
        self._reserved = 0
        self._released: list = []  # runs dropped, to hand to on_release outside the lock

    # ── sessions ─────────────────────────────────────────────────────

    def show(self, session_id: str, digest: str | None) -> None:
        """Session ``session_id`` now shows the run ``digest`` (kept while it does)."""
        with self._lock:
            self._lease(session_id).current = digest

    def usage(self) -> Usage:
        with self._lock:
            self._prune()
            return self._usage()

    def watch_sessions(self) -> float | None:
        """One look of the grace ticker: note when each session holding a lease
        was first seen gone, drop the leases (and the uploads only they held)
        of sessions gone for the grace period. Returns the seconds until the
        next look is due (one period, or less when a grace period ends
        sooner), or None when no lease is left and the ticker may stop."""
        return self._look(None)

    def _look(self, ticker: threading.Thread | None) -> float | None:
        with self._lock:
            self._prune()
            if not self._leases:
                if ticker is not None and self._ticker is ticker:
                    self._ticker = None  # under the lock: the next lease starts a new one
                return None
            now = self._clock()
            ends = [lease.gone_since + self._grace_s - now for lease in self._leases.values()
                    if lease.gone_since is not None]
            return max(0.0, min([watch_period(self._grace_s), *ends]))

    # ── uploads ──────────────────────────────────────────────────────

    def add_upload(self, session_id: str, digest: str, info: Any,
                   data: bytes) -> list[HeldUpload]:
        """Keep ``data`` for the session (one copy per digest, server-wide).

        Returns the uploads the session let go to stay within
        :data:`MAX_UPLOADS_PER_SESSION` (oldest first, never the one on
        screen). Raises :class:`OverBudget` when the bytes cannot be held.
        """
        try:
            return self._add_upload(session_id, digest, info, data)
        finally:
            self._hand_back_released()

    def _add_upload(self, session_id: str, digest: str, info: Any,
                    data: bytes) -> list[HeldUpload]:
        with self._lock:
            self._prune()
            lease = self._lease(session_id)
            if digest not in self._blobs:
                self._make_room(len(data), what="this upload")
                self._blobs[digest] = data
            lease.uploads.pop(digest, None)
            lease.uploads[digest] = HeldUpload(digest, info, len(self._blobs[digest]))
            dropped: list[HeldUpload] = []
            for old in list(lease.uploads.values()):
                if len(lease.uploads) <= MAX_UPLOADS_PER_SESSION:
                    break
                if old.digest not in (digest, lease.current):
                    dropped.append(lease.uploads.pop(old.digest))
            self._drop_unheld_blobs()
            return dropped

    def session_uploads(self, session_id: str) -> list[HeldUpload]:
        """This session's uploads, newest first."""
        with self._lock:
            lease = self._leases.get(session_id)
            return list(reversed(lease.uploads.values())) if lease else []

    def upload_bytes(self, session_id: str, digest: str) -> bytes | None:
        """The bytes of one of this session's uploads (None if it has no such upload)."""
        with self._lock:
            lease = self._leases.get(session_id)
            if lease is None or digest not in lease.uploads:
                return None
            return self._blobs.get(digest)

    def find_upload(self, session_id: str, digest: str) -> HeldUpload | None:
        """Take into this session an upload the server holds for any session,
        asked for by its full digest (what a link carries); None when no live
        session (or one within its grace period) holds it."""
        with self._lock:
            self._prune()
            if digest not in self._blobs:
                return None
            held = next(lease.uploads[digest] for lease in self._leases.values()
                        if digest in lease.uploads)
            lease = self._lease(session_id)
            lease.uploads.pop(digest, None)
            lease.uploads[digest] = held
            return held

    # ── open runs ────────────────────────────────────────────────────

    def refuse_if_never_fits(self, json_bytes: int) -> None:
        """Raise :class:`OverBudget` when opening a file of ``json_bytes``
        (expanded) could not fit even in an empty server: checked before the
        file queues for its open, so such a file never waits."""
        need = int(json_bytes * OPENING_PER_BYTE)
        if need > self.budget_bytes:
            raise OverBudget(
                f"opening this run needs about {need / MB:,.0f} MB, more than the server's "
                f"whole memory budget ({self.budget_bytes / MB:,.0f} MB); ask the operator "
                "to raise LENS_MEMORY_BUDGET_MB")

    def open(self, digest: str, read: Callable[[], bytes],
             build: Callable[[bytes], Run]) -> Run:
        """The open run of ``digest``; if not held, ``build(read())``.

        ``read()`` gives the file's JSON bytes (decompressed, within the
        app's own limit); the budget is checked against their opening peak
        before anything is built. Opens run one at a time; a run already held
        is handed back without waiting for them.
        """
        held = self._held(digest)
        if held is not None:
            return held
        with self._opening:
            held = self._held(digest)
            if held is not None:
                return held
            data = read()
            with self._holding(int(len(data) * OPENING_PER_BYTE), "opening this run"):
                run = build(data)
            with self._lock:
                self._runs[digest] = _Entry(run, len(data))
            return run

    @contextmanager
    def reserving(self, need: int, what: str) -> Iterator[None]:
        """Hold ``need`` bytes of the budget for the length of the block (work
        that is not an open run, such as indexing an archive file): taken in
        turn with the opens, room made as for one; :class:`OverBudget` when
        nothing can go to make it."""
        with self._opening:
            with self._holding(need, what):
                yield

    @contextmanager
    def _holding(self, need: int, what: str) -> Iterator[None]:
        """The budget held for one open's peak; the caller holds ``_opening``."""
        try:
            with self._lock:
                self._prune()
                self._make_room(need, what=what)
                self._reserved = need
        finally:
            self._hand_back_released()
        try:
            yield
        finally:
            with self._lock:
                self._reserved = 0

    def _held(self, digest: str) -> Run | None:
        with self._lock:
            held = self._runs.get(digest)
            if held is None:
                return None
            self._runs.move_to_end(digest)
            return held.run

    def memo(self, digest: str, key: Any, build: Callable[[], Any], *,
             per_json_byte: float = 0.0, with_runs: tuple[str, ...] = ()) -> Any:
        """A value derived from the run ``digest`` (and from the runs
        ``with_runs``, if any), built once and dropped with any of them.

        It counts ``per_json_byte`` × the JSON size of the runs it comes from
        against the budget (an estimate measured for each kind of value).
        When even dropping the runs no session shows cannot make room for it,
        or a run it comes from is no longer held, it is handed back without
        being kept, and built again when asked.
        """
        with self._lock:
            entry = self._runs.get(digest)
            if entry is not None and key in entry.memo:
                return entry.memo[key]
        value = build()
        try:
            with self._lock:
                return self._keep_memo(digest, key, value, per_json_byte, with_runs)
        finally:
            self._hand_back_released()

    def _keep_memo(self, digest: str, key: Any, value: Any, per_json_byte: float,
                   with_runs: tuple[str, ...]) -> Any:
        sources = [self._runs.get(d) for d in (digest, *with_runs)]
        if None in sources:
            return value
        entry = sources[0]
        if key in entry.memo:
            return entry.memo[key]
        cost = int(per_json_byte * sum(source.json_bytes for source in sources))
        try:
            self._make_room(cost, what="a view of this run", keep={digest, *with_runs})
        except OverBudget:
            return value
        entry.memo[key], entry.memo_costs[key] = value, cost
        if with_runs:
            entry.memo_needs[key] = frozenset(with_runs)
        return value

    def holds_run(self, digest: str) -> bool:
        with self._lock:
            return digest in self._runs

    # ── inside ───────────────────────────────────────────────────────

    def _lease(self, session_id: str) -> Lease:
        lease = self._leases.get(session_id)
        if lease is None:
            lease = self._leases[session_id] = Lease(session_id)
            if self._grace_ticker and self._ticker is None:
                self._start_ticker()
        lease.gone_since = None
        return lease

    def _start_ticker(self) -> None:
        """Start the grace ticker (under the lock, as a lease is made)."""
        ticker = threading.Thread(target=_tick_until_no_lease, args=(weakref.ref(self),),
                                  name="lens-upload-grace", daemon=True)
        self._ticker = ticker
        ticker.start()

    def _usage(self) -> Usage:
        return Usage(runs_bytes=sum(e.cost for e in self._runs.values()),
                     uploads_bytes=sum(len(b) for b in self._blobs.values()),
                     budget_bytes=self.budget_bytes, runs=len(self._runs),
                     sessions=len(self._leases))

    def _prune(self) -> None:
        """Drop the leases of sessions gone longer than the grace period."""
        now = self._clock()
        for session_id, lease in list(self._leases.items()):
            if self._is_live(session_id):
                lease.gone_since = None
            elif lease.gone_since is None:
                lease.gone_since = now
            elif now - lease.gone_since >= self._grace_s:
                del self._leases[session_id]
        self._drop_unheld_blobs()

    def _drop_unheld_blobs(self) -> None:
        held = {digest for lease in self._leases.values() for digest in lease.uploads}
        for digest in [d for d in self._blobs if d not in held]:
            del self._blobs[digest]

    def _make_room(self, need: int, what: str, keep: set[str] = frozenset()) -> None:
        shown = {lease.current for lease in self._leases.values()} | keep
        while True:
            usage = self._usage()
            if usage.used_bytes + self._reserved + need <= self.budget_bytes:
                return
            spare = next((d for d in self._runs if d not in shown), None)
            if spare is None:
                raise OverBudget(
                    f"the server's memory budget ({self.budget_bytes / MB:,.0f} MB) cannot hold "
                    f"{what} (about {need / MB:,.0f} MB) now: {usage.used_bytes / MB:,.0f} MB "
                    f"is in use by {plural(usage.runs, 'open run')} and uploads of "
                    f"{plural(usage.sessions, 'session')}; try again later, or ask the operator to raise "
                    "LENS_MEMORY_BUDGET_MB")
            self._released.append(self._runs.pop(spare).run)
            self._forget_built_from(spare)

    def _forget_built_from(self, digest: str) -> None:
        """Drop what other runs keep that was built from the run ``digest`` too."""
        for entry in self._runs.values():
            for key in [k for k, needs in entry.memo_needs.items() if digest in needs]:
                entry.forget(key)

    def _hand_back_released(self) -> None:
        """Tell ``on_release`` of the runs dropped, outside the store's lock
        (it may run the collector, and other sessions' steps need the lock)."""
        with self._lock:
            released, self._released = self._released, []
        if self._on_release is not None:
            for run in released:
                self._on_release(run)


def _tick_until_no_lease(store_ref: "weakref.ReferenceType[ServerStore]") -> None:
    """The grace ticker's loop. It holds the store only while looking, so a
    store nobody uses any more (a cleared cache, a finished test) is collected
    and the loop ends."""
    me = threading.current_thread()
    while True:
        store = store_ref()
        if store is None:
            return
        delay = store._look(me)
        del store
        if delay is None:
            return
        time.sleep(delay)

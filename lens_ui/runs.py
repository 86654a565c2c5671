"""Open runs for the app: :func:`lens.run.open_run` behind the server's store.

A run comes from a source (``lens_ui/sources.py``: a sample, an upload, an
archive file, a followed file) that gives the file's bytes; the file is read
through the one loader (:func:`recorders.loading.load_file`), which says what
kind of file it is and which runs it holds. Everything is keyed by the sha256
of the file's bytes (and, for a file with several runs, which run), computed
once per upload (or once per sample file) and carried in the session. Open
runs and uploaded bytes live in one :class:`lens_ui.run_store.ServerStore` for
the whole server, within its memory budget (``lens_ui/server_limits.py``): an
open run is shared, never copied, and the slider only indexes into what was
built. What depends on the scope on screen (its step list, the map of model
calls onto it, and its diagram) is kept with the run through the
:class:`StoreCache` each open run is made with, so a slider move only looks
things up, and goes when the run goes. What the file says as a whole
(its kind, its runs, a bug report's words, notes) is kept with the run too
(:class:`FileFacts`).

The collector policy (``lens_ui/collector.py``) is applied here, where runs
are kept: a large open run and its views are frozen once built.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import streamlit as st

from recorders import loading
from lens.wording import plural
from recorders.errors import NothingWrittenYet, RecordingError
from recorders.loading import LoadedFile, Recording, gunzip
from recorders.precheck import precheck
from lens.file_runs import RunInFile, runs_in_file
from lens.link import pick_run
from lens.run import OpenRun
from lens.run_facts import runs_held
from lens_ui import collector
from lens_ui.held import server_store, session_id
from lens_ui.server_limits import server_limits
from lens_ui.sources import (ARCHIVE, FOLLOW, SAMPLE, UPLOAD, RunSource, SampleSource,
                             UploadSource, digest_of)

__all__ = ["ARCHIVE", "FOLLOW", "SAMPLE", "UPLOAD", "RunSource", "LoadedRun", "StoreCache",
           "FileFacts", "digest_of", "open_run", "open_source", "run_in_file",
           "sample_choice", "upload_choice", "server_store", "session_id"]

_GZIP_MAGIC = b"\x1f\x8b"
FILE_FACTS = ("file facts",)  # the store's memo key for a run's FileFacts
# What FileFacts cost per byte of the run's JSON: a line of words per run and a
# bug report's texts, a small fraction of the file (an upper bound, not measured).
FILE_FACTS_PER_JSON_BYTE = 0.01
# The parts of a bug report shown beside its run, in this order.
REPORT_FIELDS = (("title", "Title"), ("stepsToReproduce", "Steps to reproduce"),
                 ("expected", "Expected"), ("actual", "Actual"))


@dataclass(frozen=True)
class FileFacts:
    """What a file says as a whole, beside the run shown from it."""

    kind: str  # the loader's sourceKind: 'recording', 'event-stream', 'bug-report', …
    runs: tuple[RunInFile, ...]  # every run of the file the loader hands out, in file order
    # The distinct runs those hold together (one recording's typed stream may
    # hold several: lens.run_facts.runs_held), as the run's facts count them.
    distinct_runs: int = 1
    report: tuple[tuple[str, str], ...] = ()  # a bug report's (label, text), as written
    notes: tuple[str, ...] = ()  # plain sentences of the loader about the file


def file_facts(loaded: LoadedFile) -> FileFacts:
    """The facts of a loaded file; a bug report's own notes and warnings
    (its manifest's) join the loader's."""
    report = loaded.report if isinstance(loaded.report, dict) else {}
    words = tuple((label, report[name]) for name, label in REPORT_FIELDS
                  if isinstance(report.get(name), str) and report[name].strip())
    notes = list(loaded.notes)
    for name, said in (("notes", "the report notes"), ("warnings", "the report warns")):
        listed = report.get(name)
        if isinstance(listed, list):
            notes += [f"{said}: {text}" for text in listed]
    # By name: distinct_runs sits between runs and report, so by position the
    # report's words were taken for the count.
    return FileFacts(loaded.kind, tuple(runs_in_file(loaded.runs)),
                     distinct_runs=runs_held(loaded.runs), report=words,
                     notes=tuple(note for note in notes if isinstance(note, str)))


@dataclass(frozen=True)
class LoadedRun:
    """The open run as the pages see it: the shared :class:`lens.run.OpenRun`
    and what the app adds to it, as one object.

    It owns where the run comes from (``source``), what its file says as a
    whole (:attr:`file`) and what a page derives from the run (:meth:`derived`),
    all kept in the server's store under the run's key (``source.digest``).
    Everything else (recording, evidence, facts, a profile's views, what
    depends on the scope on screen) is the open run's own: any attribute not
    listed here is read from it, so ``run.views(profile)`` is
    :meth:`lens.run.OpenRun.views`, memoised through the :class:`StoreCache`
    the run was opened with, and a lens function that reads an ``OpenRun``
    reads this as one.
    """

    source: RunSource
    # The shared open run; pages read through the handle, never ``run.run``.
    run: OpenRun

    def __getattr__(self, name: str) -> Any:
        # Only called for what is not the handle's own. Private names are not
        # forwarded, so copying or pickling the handle never reaches the run.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.run, name)

    @property
    def file(self) -> FileFacts:
        """What the run's file says as a whole (kept with the run; read again
        from the source in the rare case the store let it go)."""
        return server_store().memo(self.source.digest, FILE_FACTS,
                                   lambda: _facts_again(self.source, self.run),
                                   per_json_byte=FILE_FACTS_PER_JSON_BYTE)

    def derived(self, key: tuple, build: Callable[[], Any], *, per_json_byte: float,
                with_runs: tuple[str, ...] = ()) -> Any:
        """A value a page derives from this run (and from the runs of digests
        ``with_runs``), kept in the server's store with the run: counted
        against the budget as ``per_json_byte`` × the runs' JSON size, and
        dropped when any of those runs is."""
        return server_store().memo(self.source.digest, key, build,
                                   per_json_byte=per_json_byte, with_runs=with_runs)


@dataclass(frozen=True)
class StoreCache:
    """The :class:`lens.run.RunCache` an open run of the app is made with: what
    the run keeps per scope on screen goes into the server's store under the
    run's key (``digest``), counted against the memory budget and dropped with
    the run; a profile's first build shows a spinner, and what it built is kept
    out of the collector's walks afterwards, as the open was
    (``lens_ui/collector.py``). It holds no value itself."""

    digest: str
    source_chars: int  # of the run's recording: whether what is built is frozen

    def keep(self, key: tuple, build: Callable[[], Any], *, per_json_byte: float) -> Any:
        return server_store().memo(self.digest, key, build, per_json_byte=per_json_byte)

    @contextmanager
    def building_views(self, profile: str) -> Iterator[None]:
        with st.spinner("Projecting the run into steps…"):
            yield
        collector.keep_built(self.source_chars)


def open_source(source: RunSource) -> LoadedRun | None:
    """The open run of ``source``: the store's when it holds it (the file is
    not read again), else read now; None when its bytes are gone or changed.
    Raises RecordingError for a bad file, and ``OverBudget`` when the server
    cannot hold it now.

    What can be refused cheaply (too large expanded, broken gzip, not JSON,
    more than the whole budget) is refused here, before the file queues
    behind other sessions' opens."""
    return _open(source, source.read)


def open_run(source: RunSource, data: bytes) -> LoadedRun:
    """:func:`open_source` with the file's bytes at hand (an upload being accepted)."""
    loaded = _open(source, lambda: data)
    assert loaded is not None  # the bytes are at hand: never gone
    return loaded


def run_in_file(source: RunSource, selector: str | None) -> RunSource | None:
    """The run of ``source``'s file that ``selector`` names (a link's
    ``?runid=``), labelled by its own words; None when it names none of them
    or the file is gone. Opens the file's first run to learn its runs."""
    first = source.in_file(0, None)
    loaded = open_source(first)
    if loaded is None:
        return None
    runs = loaded.file.runs
    index = pick_run([run.run_id for run in runs], selector)
    if index is None:
        return None
    return source.in_file(index, runs[index].selector)


class _Gone(Exception):
    """The file's bytes could not be had when the store needed them."""


def _open(source: RunSource, fetch: Callable[[], bytes | None]) -> LoadedRun | None:
    store, limit = server_store(), server_limits().max_expanded_bytes
    data = None
    if not store.holds_run(source.digest):
        data = fetch()
        if data is None:
            return None
        store.refuse_if_never_fits(_expanded_size(data, limit))

    def read() -> bytes:
        raw = data if data is not None else fetch()  # dropped since it was checked
        if raw is None:
            raise _Gone
        return gunzip(raw, limit) if raw.startswith(_GZIP_MAGIC) else raw
    facts: list[FileFacts] = []

    def build(raw: bytes) -> OpenRun:
        def parse_and_build() -> OpenRun:
            recording, file = _one_run(raw, source.run_index)
            facts.append(file)
            return _open_with_default_views(recording, file.distinct_runs, source.digest)
        return _open_kept(parse_and_build)
    try:
        run = store.open(source.digest, read=read, build=build)
    except _Gone:
        return None
    if facts:  # opened now: what the file says is kept with the run
        store.memo(source.digest, FILE_FACTS, lambda: facts[0],
                   per_json_byte=FILE_FACTS_PER_JSON_BYTE)
    return LoadedRun(source, run)


def _expanded_size(data: bytes, limit: int) -> int:
    """What the file expands to, found without parsing (RecordingError for
    what is refused anyway): :func:`recorders.precheck.precheck`, the one
    cheap check of every kind of file the loader reads."""
    return precheck(data, limit)


def _one_run(raw: bytes, index: int) -> tuple[Recording, FileFacts]:
    """Run ``index`` of the file and what the file says; RecordingError when
    it holds no run, or none at that place."""
    loaded = load_file(raw, limit=server_limits().max_expanded_bytes)
    if not loaded.runs:
        raise NothingWrittenYet(loading.NOTHING_WRITTEN)
    if not 0 <= index < len(loaded.runs):
        raise RecordingError(f"the file holds {plural(len(loaded.runs), 'run')}; run {index + 1} is "
                             "not one of them")
    return loaded.runs[index], file_facts(loaded)


def _facts_again(source: RunSource, run: OpenRun) -> FileFacts:
    raw = source.read()
    if raw is not None:
        try:
            if raw.startswith(_GZIP_MAGIC):
                raw = gunzip(raw, server_limits().max_expanded_bytes)
            return file_facts(load_file(raw, limit=server_limits().max_expanded_bytes))
        except RecordingError:
            pass
    return FileFacts(run.recording.source_kind, tuple(runs_in_file([run.recording])),
                     distinct_runs=run.facts.runs_in_file)


def load_file(raw: bytes, *, limit: int) -> LoadedFile:
    """The one loader (every kind of file; a zip bounded by ``limit``)."""
    return loading.load_file(raw, limit=limit)


def sample_choice(name: str) -> tuple[SampleSource, bytes]:
    """The allow-listed sample ``name`` (a KeyError for any other name)."""
    return SampleSource.named(name)


def upload_choice(name: str, data: bytes) -> UploadSource:
    return UploadSource(name, digest_of(data))


# ─── small caches ──────────────────────────────────────────────────────


# What this builds lives as long as the store keeps it: for a large file, out of
# the collector's walks (lens_ui/collector.py), and handed back when dropped.
def _open_kept(open_it: Callable[[], OpenRun]) -> OpenRun:
    with st.spinner("Reading the recording…"):
        return collector.open_kept(open_it, lambda run: run.recording.source_chars)


def _open_with_default_views(recording: Recording, distinct_runs: int, digest: str) -> OpenRun:
    run = OpenRun(recording, runs_in_file=distinct_runs,
                  cache=StoreCache(digest, recording.source_chars))
    run.views()  # the page shows the default profile at once
    return run

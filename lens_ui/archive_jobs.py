"""Index an archive folder in the background, and read the index while it grows.

One job per folder per server process, shared by every session: a thread
running :func:`archive.embedded.index_folder` (incremental, so a pass over an
unchanged folder is quick), with its progress kept where the page can read
it. The page reads the same DuckDB database through a connection of this
process (each query on its own cursor), and sees every batch the job commits.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import duckdb
import streamlit as st

from archive.embedded import index_folder
from archive.errors import ArchiveError
from archive.indexing import IndexReport
from archive.database import connect, default_db_path
from archive.limits import FileLimits, NoRoomNow
from archive.store import ArchiveStore
from lens_ui.run_store import OverBudget
from lens_ui.held import server_store
from lens_ui.server_limits import server_limits

_log = logging.getLogger("lens.archive")


@dataclass
class IndexJob:
    """One pass over a folder: how far it is, and how it ended."""

    folder: Path
    db: Path
    done: int = 0
    total: int | None = None  # None until the folder is listed
    report: IndexReport | None = None
    error: str | None = None
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None

    @property
    def running(self) -> bool:
        return self.finished is None

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total


class _Jobs:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_folder: dict[Path, IndexJob] = {}


@st.cache_resource(show_spinner=False)
def _jobs() -> _Jobs:
    return _Jobs()


def db_path(folder: Path) -> Path:
    return default_db_path(folder)


def current_job(folder: Path) -> IndexJob | None:
    return _jobs().by_folder.get(folder)


def start_job(folder: Path) -> IndexJob:
    """Start a pass over ``folder`` unless one is running; returns the folder's job."""
    jobs = _jobs()
    with jobs.lock:
        job = jobs.by_folder.get(folder)
        if job is not None and job.running:
            return job
        job = IndexJob(folder, db_path(folder))
        jobs.by_folder[folder] = job
    # The schema exists before the thread starts, so the page can read at once.
    ArchiveStore(reader(job.db))
    threading.Thread(target=_run, args=(job,), name=f"lens-archive-index-{folder.name}",
                     daemon=True).start()
    return job


def _run(job: IndexJob) -> None:
    try:
        limits = server_limits()
        job.report = index_folder(job.folder, job.db, job.progress,
                                  FileLimits(limits.max_expanded_bytes,
                                             limits.memory_budget_bytes),
                                  _within_the_budget)
    except ArchiveError as error:
        job.error = str(error)
    except Exception:  # noqa: BLE001 - the page shows one line, never a traceback
        # Its text may hold the server's paths or a file's name: logged, not shown.
        incident = secrets.token_hex(4)
        _log.exception("indexing %s stopped; incident %s", job.folder, incident)
        job.error = f"indexing stopped (incident {incident}, in the server log)"
    finally:
        job.finished = time.monotonic()


@contextmanager
def _within_the_budget(need: int) -> Iterator[None]:
    """A file's parse holds ``need`` bytes of the server's budget, in turn with
    the opens of runs; when open runs hold it all, the file waits for the next
    pass (NoRoomNow) rather than take the server past its budget."""
    with ExitStack() as held:
        try:
            held.enter_context(server_store().reserving(need, "indexing an archive file"))
        except OverBudget:
            raise NoRoomNow("not read now: the server's memory budget "
                            "(LENS_MEMORY_BUDGET_MB) is held by open runs; read again on the "
                            "next pass") from None
        yield


@st.cache_resource(show_spinner=False)
def reader(db: Path) -> duckdb.DuckDBPyConnection:
    """This process's connection to the index (the writer's thread opens the
    same database, so both see one copy); query it through ``.cursor()``."""
    db.parent.mkdir(parents=True, exist_ok=True)
    return connect(db, read_only=False)

"""The embedded default: index a folder into a DuckDB file, in this process."""

from __future__ import annotations

import os

from archive.folder import plan_index, scan_folder
from archive.indexing import (IndexReport, Progress, ReportTally, batches, read_batch,
                              read_tasks, absolute_folder)
from archive.database import default_db_path
from archive.limits import FileLimits, MemoryGate, file_limits
from archive.store import ArchiveStore

# Small enough that progress moves and a page reading the index sees runs
# arrive; large enough that a transaction per batch costs little.
BATCH_FILES, BATCH_BYTES = 64, 16 * 1024**2


def index_folder(root: str | os.PathLike, db_path: str | os.PathLike | None = None,
                 progress: Progress | None = None,
                 limits: FileLimits | None = None,
                 admit: MemoryGate | None = None) -> IndexReport:
    """Bring the index of ``root`` up to date; see :mod:`archive.indexing`.
    Each file is read under ``limits`` (by default, those the environment sets)
    and parsed inside ``admit`` when given (a server's memory budget)."""
    limits = limits or file_limits()
    folder = absolute_folder(root)
    listing = scan_folder(folder)
    with ArchiveStore.open(db_path or default_db_path(folder)) as store:
        known = store.known_files()
        plan = plan_index(listing, known)
        tally = ReportTally(plan, known)
        store.apply([], plan.removed)
        tasks = read_tasks(plan, known)
        done = 0
        if progress is not None:
            progress(0, len(tasks))
        for batch in batches(tasks, BATCH_BYTES, BATCH_FILES):
            indexed = read_batch(folder, batch, limits, admit)
            store.apply(indexed)
            tally.add(indexed)
            done += len(indexed)
            if progress is not None:
                progress(done, len(tasks))
        report = tally.report
        report.runs = store.run_count()
        report.unreadable = store.unreadable()
    return report

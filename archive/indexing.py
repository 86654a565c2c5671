"""Indexing a folder: which files to read, reading them, and what it came to.

The pass is the same whichever engine reads the files: the folder is listed
(size and modification time only), compared with what the index remembers,
and only new or moved files are read. A file read again whose digest has not
changed counts as unchanged and is not indexed again. The engine decides
where :func:`read_one` runs: in this process (:mod:`archive.embedded`) or on
a Dask cluster (:mod:`archive.cluster`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from archive.beneath import TooLarge
from archive.errors import ArchiveError
from archive.folder import FileStat, IndexPlan, KnownFile, is_folder_entry, read_file
from archive.schema import RUN_TABLES
from archive.limits import FileLimits, MemoryGate, NoRoomNow, file_limits
from archive.rows import (NOT_A_RUN, RUN, UNREADABLE, FileOutcome, file_digest, index_file,
                          one_line)

Progress = Callable[[int, int], None]  # (files done, files to read)


@dataclass(frozen=True)
class ReadTask:
    stat: FileStat
    known_sha256: str | None  # the digest the index holds for this file, if any


@dataclass
class IndexedFile:
    """One file read in this pass: its stat, and its outcome (None: same digest)."""

    stat: FileStat
    sha256: str
    outcome: FileOutcome | None


@dataclass
class IndexReport:
    runs: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    unreadable: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"runs": self.runs, "added": self.added, "updated": self.updated,
                "unchanged": self.unchanged, "removed": self.removed,
                "unreadable": list(self.unreadable)}


def read_one(root: str, task: ReadTask, limits: FileLimits | None = None,
             admit: MemoryGate | None = None) -> IndexedFile:
    """Read one file and index it, unless its digest says it has not changed.

    Whatever goes wrong with this one file becomes its ``unreadable`` reason
    (naming it by its path in the folder, never the server's), so the pass goes
    on. The rows, the digest, the size and the time all come from the one
    descriptor the bytes were read from. A file the memory gate ``admit`` has
    no room for now is left unread (no digest), so the next pass reads it."""
    limits = limits or file_limits()
    try:
        if task.stat.problem is not None:
            raise ArchiveError(task.stat.problem)
        read = read_file(root, task.stat.file, limits.max_indexed_bytes)
    except TooLarge:
        return _unreadable(task, limits.refusal(f"{task.stat.file} holds"))
    except ArchiveError as error:
        return _unreadable(task, str(error))
    except Exception as error:  # noqa: BLE001 - one odd entry must not stop the pass
        # The system's words, never the exception's text: it may name a server path.
        reason = (error.strerror if isinstance(error, OSError) and error.strerror
                  else type(error).__name__)
        return _unreadable(task, f"cannot read {task.stat.file}: {reason}")
    digest = file_digest(read.data)
    stat = FileStat(task.stat.file, read.size_bytes, read.mtime_ns)
    if digest == task.known_sha256:
        return IndexedFile(stat, digest, None)
    try:
        outcome = index_file(task.stat.file, read.data, digest, limits, admit)
    except NoRoomNow as busy:
        return _unreadable(task, str(busy))
    return IndexedFile(stat, digest, outcome)


def _unreadable(task: ReadTask, problem: str) -> IndexedFile:
    outcome = FileOutcome(task.stat.file, task.stat.size_bytes, "", UNREADABLE,
                          one_line(problem))
    return IndexedFile(task.stat, "", outcome)


def read_batch(root: str, tasks: list[ReadTask], limits: FileLimits | None = None,
               admit: MemoryGate | None = None) -> list[IndexedFile]:
    limits = limits or file_limits()
    return [read_one(root, task, limits, admit) for task in tasks]


def batches(tasks: list[ReadTask], max_bytes: int = 32 * 1024**2,
            max_files: int = 256) -> Iterator[list[ReadTask]]:
    """Consecutive groups of files, bounded in count and in bytes."""
    batch: list[ReadTask] = []
    size = 0
    for task in tasks:
        if batch and (len(batch) >= max_files or size + task.stat.size_bytes > max_bytes):
            yield batch
            batch, size = [], 0
        batch.append(task)
        size += task.stat.size_bytes
    if batch:
        yield batch


def replaced_files(indexed: list[IndexedFile]) -> list[str]:
    """Files read in this pass whose rows are replaced (their digest changed)."""
    return [item.stat.file for item in indexed if item.outcome is not None]


def rows_by_table(indexed: list[IndexedFile]) -> dict[str, list[dict[str, Any]]]:
    """The new rows of every run table, from the files whose digest changed."""
    rows: dict[str, list[dict[str, Any]]] = {table.name: [] for table in RUN_TABLES}
    for item in indexed:
        if item.outcome is not None:
            for name, table_rows in item.outcome.tables.items():
                rows[name].extend(table_rows)
    return rows


def files_rows(indexed: list[IndexedFile]) -> list[dict[str, Any]]:
    """Rows of the ``files`` table; ``status`` None marks a file whose digest did
    not change (only its size and mtime are to be updated)."""
    return [{
        "file": item.stat.file, "size_bytes": item.stat.size_bytes,
        "mtime_ns": item.stat.mtime_ns, "sha256": item.sha256,
        "status": item.outcome.status if item.outcome is not None else None,
        "problem": item.outcome.problem if item.outcome is not None else None,
    } for item in indexed]


def read_tasks(plan: IndexPlan, known: dict[str, KnownFile]) -> list[ReadTask]:
    return [ReadTask(stat, known[stat.file].sha256 if stat.file in known else None)
            for stat in plan.to_read]


class ReportTally:
    """Counts what a pass did, file by file, as the engine hands files back."""

    def __init__(self, plan: IndexPlan, known: dict[str, KnownFile]) -> None:
        # A folder that could not be listed is reported under `unreadable`; the
        # counts are of files.
        self.known = known
        self.report = IndexReport(
            unchanged=sum(1 for s in plan.unchanged if not is_folder_entry(s.file)))
        self.report.removed = sum(1 for f in plan.removed
                                  if _counted(known.get(f)) and not is_folder_entry(f))

    def add(self, indexed: Iterable[IndexedFile]) -> None:
        for item in indexed:
            previous = self.known.get(item.stat.file)
            if is_folder_entry(item.stat.file):
                continue
            if item.outcome is None or (_never_read(previous) and not item.sha256):
                self.report.unchanged += 1  # same bytes, or still not to be read
            elif item.outcome.status == NOT_A_RUN:
                if _counted(previous):
                    self.report.removed += 1  # it was a run and is not one any more
            elif _counted(previous):
                self.report.updated += 1
            else:
                self.report.added += 1


def _never_read(known: KnownFile | None) -> bool:
    return known is not None and known.status == UNREADABLE and not known.sha256


def _counted(known: KnownFile | None) -> bool:
    return known is not None and known.status in (RUN, UNREADABLE)


def absolute_folder(root: str | os.PathLike) -> str:
    return os.path.abspath(os.fspath(root))

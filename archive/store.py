"""The embedded index: the archive's tables in one DuckDB file.

:class:`ArchiveStore` is the writer. It creates the tables of
:mod:`archive.schema`, tells the indexing pass what it already knows of each
file, and applies what a pass read, one batch per transaction: a file read
again has all its rows replaced, a removed file has them dropped. Readers
(the query commands, the app) open the file through :mod:`archive.query`.

Where the file lives by default, and how it is opened: :mod:`archive.database`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

import duckdb
import pandas as pd

from archive.database import connect
from archive.errors import ArchiveError
from archive.folder import KnownFile
from archive.frames import insert_rows
from archive.indexing import IndexedFile, files_rows, replaced_files, rows_by_table
from archive.rows import UNREADABLE, FileOutcome
from archive.schema import FILES, RUN_TABLES, SCHEMA_VERSION, TABLES, Table

_META = "archive_meta"


class ArchiveStore:
    """The writer of one index file; see the module doc."""

    def __init__(self, connection: duckdb.DuckDBPyConnection, where: str = "the index") -> None:
        self.connection = connection
        self.where = where  # the file, as messages name it
        self._ensure_schema()

    @classmethod
    def open(cls, db_path: str | os.PathLike) -> ArchiveStore:
        parent = Path(db_path).parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ArchiveError(f"cannot create the folder for the index {os.fspath(db_path)}: "
                               f"{error.strerror or error}") from None
        connection = connect(db_path, read_only=False)
        try:
            return cls(connection, os.fspath(db_path))
        except BaseException:
            connection.close()
            raise

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> ArchiveStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _ensure_schema(self) -> None:
        con = self.connection
        names = {name for (name,) in con.execute(
            "SELECT table_name FROM information_schema.tables").fetchall()}
        if names and _META not in names:
            shown = ", ".join(sorted(names)[:5]) + (", …" if len(names) > 5 else "")
            raise ArchiveError(f"{self.where} is a DuckDB database that is not a Lens "
                               f"archive index (it holds {shown}); name another file with --db")
        con.execute(f'CREATE TABLE IF NOT EXISTS "{_META}" (schema_version INTEGER)')
        found = con.execute(f'SELECT schema_version FROM "{_META}"').fetchone()
        if found is not None and found[0] != SCHEMA_VERSION:
            for table in TABLES:  # an index of another layout is rebuilt, not misread
                con.execute(f'DROP TABLE IF EXISTS "{table.name}"')
            con.execute(f'DELETE FROM "{_META}"')
            found = None
        for table in TABLES:
            con.execute(table.create_sql())
        if found is None:
            con.execute(f'INSERT INTO "{_META}" VALUES (?)', [SCHEMA_VERSION])

    def known_files(self) -> dict[str, KnownFile]:
        rows = self.connection.execute(
            'SELECT file, size_bytes, mtime_ns, sha256, status FROM "files"').fetchall()
        return {file: KnownFile(size, mtime, sha or "", status)
                for file, size, mtime, sha, status in rows}

    def apply(self, indexed: Iterable[IndexedFile], removed: Iterable[str] = ()) -> None:
        """Write one batch; see :func:`apply_in_transactions`."""
        apply_in_transactions(self.connection, list(indexed), list(removed))

    def run_count(self) -> int:
        return self.connection.execute('SELECT count(*) FROM "runs"').fetchone()[0]

    def unreadable(self) -> list[dict[str, str]]:
        rows = self.connection.execute(
            'SELECT file, problem FROM "files" WHERE status = ? ORDER BY file',
            [UNREADABLE]).fetchall()
        return [{"file": file, "problem": problem} for file, problem in rows]


def apply_in_transactions(con: duckdb.DuckDBPyConnection, indexed: list[IndexedFile],
                          removed: list[str]) -> None:
    """Apply a batch in one transaction. Should the database refuse it, the
    files are applied one a transaction instead, and a file whose rows it still
    refuses is recorded as unreadable with the database's reason: one file
    must not keep the rest of its batch, or of later passes, out of the index."""
    try:
        _in_transaction(con, indexed, removed)
        return
    except duckdb.Error:
        if not indexed:
            raise  # no file's rows to blame: the database itself failed
    _in_transaction(con, [], removed)
    for item in indexed:
        try:
            _in_transaction(con, [item], [])
        except duckdb.Error as error:
            _in_transaction(con, [_refused(item, error)], [])


def _in_transaction(con: duckdb.DuckDBPyConnection, indexed: list[IndexedFile],
                    removed: list[str]) -> None:
    con.execute("BEGIN TRANSACTION")
    try:
        apply_batch(con, indexed, removed)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def _refused(item: IndexedFile, error: duckdb.Error) -> IndexedFile:
    reason = " ".join(str(error).split())[:300]
    outcome = FileOutcome(item.stat.file, item.stat.size_bytes, item.sha256, UNREADABLE,
                          f"the index could not store this run's rows ({reason})")
    return IndexedFile(item.stat, item.sha256, outcome)


def apply_batch(con: duckdb.DuckDBPyConnection, indexed: list[IndexedFile],
                removed: list[str]) -> None:
    """Replace the rows of every file read whose digest changed, update the stat
    of those whose digest did not, and drop the rows of removed files."""
    file_rows = files_rows(indexed)
    rewritten = [r["file"] for r in file_rows if r["status"] is not None]
    _delete(con, RUN_TABLES, replaced_files(indexed) + removed)
    _delete(con, (FILES,), rewritten + removed)
    _touch_unchanged(con, [r for r in file_rows if r["status"] is None])
    rows = rows_by_table(indexed)
    for table in RUN_TABLES:
        insert_rows(con, table, rows[table.name])
    insert_rows(con, FILES, [r for r in file_rows if r["status"] is not None])


def _delete(con: duckdb.DuckDBPyConnection, tables: Iterable[Table], files: list[str]) -> None:
    if not files:
        return
    con.register("_gone_files", pd.DataFrame({"file": files}))
    try:
        for table in tables:
            con.execute(f'DELETE FROM "{table.name}" WHERE file IN (SELECT file FROM _gone_files)')
    finally:
        con.unregister("_gone_files")


def _touch_unchanged(con: duckdb.DuckDBPyConnection, rows: list[dict]) -> None:
    """Same digest, new size or mtime: remember the new stat so the next pass
    does not read the file again."""
    if not rows:
        return
    con.register("_touched", pd.DataFrame.from_records(
        rows, columns=["file", "size_bytes", "mtime_ns"]))
    try:
        con.execute('UPDATE "files" SET size_bytes = t.size_bytes, mtime_ns = t.mtime_ns '
                    'FROM _touched AS t WHERE "files".file = t.file')
    finally:
        con.unregister("_touched")


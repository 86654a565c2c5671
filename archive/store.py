"""The embedded index: the archive's tables in one DuckDB file.

:class:`ArchiveStore` is the writer. It creates the tables of
:mod:`archive.schema`, tells the indexing pass what it already knows of each
file, and applies what a pass read, one batch per transaction: a file read
again has all its rows replaced, a removed file has them dropped. Readers
(the query commands, the app) open the file through :mod:`archive.query`.

The default location is outside the archive folder, which may be read-only:
``$FOOTPRINT_LENS_CACHE`` (else ``$XDG_CACHE_HOME/footprint-lens``, else
``~/.cache/footprint-lens``) ``/archives/<folder name>-<hash of its absolute
path>.duckdb``. DuckDB lets one process write a file at a time.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Iterable

import duckdb
import pandas as pd

from archive.errors import ArchiveError
from archive.folder import KnownFile
from archive.indexing import IndexedFile
from archive.rows import UNREADABLE
from archive.schema import FILES, RUN_TABLES, SCHEMA_VERSION, TABLES, Table

_META = "archive_meta"


def default_db_path(root: str | os.PathLike) -> Path:
    """Where the index of folder ``root`` lives unless ``--db`` says otherwise."""
    folder = os.path.abspath(os.fspath(root))
    base = os.environ.get("FOOTPRINT_LENS_CACHE")
    if not base:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
        base = os.path.join(cache, "footprint-lens")
    tag = hashlib.sha256(folder.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(folder))
    return Path(base) / "archives" / f"{name or 'archive'}-{tag}.duckdb"


def connect(db_path: str | os.PathLike, read_only: bool, **config) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection, with DuckDB's own failures said in one line."""
    try:
        return duckdb.connect(os.fspath(db_path), read_only=read_only, config=config)
    except duckdb.IOException as error:
        text = str(error)
        if "lock" in text.lower():
            raise ArchiveError(f"the index {os.fspath(db_path)} is in use by another process "
                               "(DuckDB lets one process write it at a time)") from None
        raise ArchiveError(f"cannot open the index {os.fspath(db_path)}: "
                           f"{text.splitlines()[0]}") from None
    except duckdb.Error as error:
        raise ArchiveError(f"cannot open the index {os.fspath(db_path)}: "
                           f"{str(error).splitlines()[0]}") from None


class ArchiveStore:
    """The writer of one index file; see the module doc."""

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self.connection = connection
        self._ensure_schema()

    @classmethod
    def open(cls, db_path: str | os.PathLike) -> ArchiveStore:
        Path(db_path).parent.mkdir(parents=True, exist_ok=True)
        return cls(connect(db_path, read_only=False))

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> ArchiveStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _ensure_schema(self) -> None:
        con = self.connection
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
        """Write one batch: replace the rows of every file read, drop removed files."""
        indexed = list(indexed)
        replaced = [item.stat.file for item in indexed if item.outcome is not None]
        gone = list(removed)
        rows: dict[str, list[dict]] = {table.name: [] for table in RUN_TABLES}
        for item in indexed:
            if item.outcome is not None:
                for name, table_rows in item.outcome.tables.items():
                    rows[name].extend(table_rows)
        file_rows = [{
            "file": item.stat.file, "size_bytes": item.stat.size_bytes,
            "mtime_ns": item.stat.mtime_ns, "sha256": item.sha256,
            "status": item.outcome.status if item.outcome is not None else None,
            "problem": item.outcome.problem if item.outcome is not None else None,
        } for item in indexed]
        con = self.connection
        con.execute("BEGIN TRANSACTION")
        try:
            self._delete(RUN_TABLES, replaced + gone)
            self._touch_unchanged([r for r in file_rows if r["status"] is None])
            self._delete((FILES,), [r["file"] for r in file_rows if r["status"] is not None] + gone)
            for table in RUN_TABLES:
                insert_rows(con, table, rows[table.name])
            insert_rows(con, FILES, [r for r in file_rows if r["status"] is not None])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _delete(self, tables: Iterable[Table], files: list[str]) -> None:
        if not files:
            return
        frame = pd.DataFrame({"file": files})
        self.connection.register("_gone_files", frame)
        try:
            for table in tables:
                self.connection.execute(
                    f'DELETE FROM "{table.name}" WHERE file IN (SELECT file FROM _gone_files)')
        finally:
            self.connection.unregister("_gone_files")

    def _touch_unchanged(self, rows: list[dict]) -> None:
        """Same digest, new size or mtime: remember the new stat so the next pass
        does not read the file again."""
        if not rows:
            return
        frame = pd.DataFrame.from_records(rows, columns=["file", "size_bytes", "mtime_ns"])
        self.connection.register("_touched", frame)
        try:
            self.connection.execute(
                'UPDATE "files" SET size_bytes = t.size_bytes, mtime_ns = t.mtime_ns '
                'FROM _touched AS t WHERE "files".file = t.file')
        finally:
            self.connection.unregister("_touched")

    def run_count(self) -> int:
        return self.connection.execute('SELECT count(*) FROM "runs"').fetchone()[0]

    def unreadable(self) -> list[dict[str, str]]:
        rows = self.connection.execute(
            'SELECT file, problem FROM "files" WHERE status = ? ORDER BY file',
            [UNREADABLE]).fetchall()
        return [{"file": file, "problem": problem} for file, problem in rows]


def insert_rows(con: duckdb.DuckDBPyConnection, table: Table, rows: list[dict]) -> None:
    """Append ``rows`` (dicts keyed by column name) to ``table``, cast to its types."""
    if not rows:
        return
    frame = rows_frame(table, rows)
    con.register("_incoming", frame)
    try:
        casts = ", ".join(f'CAST("{c.name}" AS {c.sql_type})' for c in table.columns)
        con.execute(f'INSERT INTO "{table.name}" SELECT {casts} FROM _incoming')
    finally:
        con.unregister("_incoming")


def rows_frame(table: Table, rows: list[dict]) -> pd.DataFrame:
    """A DataFrame of ``rows`` with exactly ``table``'s columns, in order."""
    frame = pd.DataFrame.from_records(rows, columns=list(table.column_names))
    for column in table.columns:
        if column.sql_type.endswith("[]"):
            # Lists stay Python lists, so DuckDB reads the column as a LIST.
            frame[column.name] = frame[column.name].astype(object)
    return frame

"""Read-only SQL over the archive's tables, from the DuckDB index or from Parquet.

Only one read-only query runs, and DuckDB itself enforces it, twice over:

1. DuckDB's parser (the connection's ``extract_statements``, so no second
   database instance is started for it) must find exactly one statement, of
   type SELECT;
2. the connection it runs on cannot write or reach beyond the index: the
   DuckDB file is opened read-only, external access (files, ATTACH, COPY,
   extensions, URLs) is disabled, and the configuration is locked so a query
   cannot switch either back on. Over Parquet, the only directory readable is
   the dataset's own.

Results are JSON-able rows (timestamps as ISO 8601 UTC text).
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import os
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import duckdb

from archive.errors import ArchiveError
from archive.schema import RUN_TABLES, TABLES
from archive.database import connect, default_db_path

DEFAULT_ORDER = "started_at DESC, file"
DEFAULT_LIMIT = 100


def open_index(db_path: str | os.PathLike) -> duckdb.DuckDBPyConnection:
    """A read-only, sealed connection to an index file."""
    if not Path(db_path).is_file():
        raise ArchiveError(f"no index at {os.fspath(db_path)}; build it with "
                           "`footprint-lens archive index DIR` first")
    return connect(db_path, read_only=True, enable_external_access=False,
                   lock_configuration=True)


def open_folder_index(root: str | os.PathLike,
                      db_path: str | os.PathLike | None = None) -> duckdb.DuckDBPyConnection:
    return open_index(db_path or default_db_path(root))


def open_parquet(url: str) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB whose tables are views over the Parquet datasets under
    ``url`` (``<url>/<table>/*.parquet``), sealed as :func:`open_index` is."""
    location = dataset_location(url)
    con = duckdb.connect(":memory:")
    try:
        _register_filesystem(con, url)
        for table in TABLES:
            pattern = f"{location}/{table.name}/*.parquet".replace("'", "''")
            con.execute(f'CREATE VIEW "{table.name}" AS SELECT * FROM read_parquet(\'{pattern}\')')
        allowed = location if "://" in location else location + os.sep
        con.execute("SET allowed_directories = ?", [[allowed]])
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except duckdb.Error as error:
        con.close()
        raise ArchiveError(f"cannot read the Parquet index at {url}: "
                           f"{_first_line(error)}") from None
    return con


def dataset_location(url: str) -> str:
    """A Parquet dataset URL as DuckDB reads it: a local path for ``file://`` or a
    bare path, the URL itself for any other scheme."""
    parts = urlsplit(url)
    if parts.scheme in ("", "file"):
        path = parts.path if parts.scheme == "file" else url
        return os.path.abspath(path).rstrip(os.sep) or os.sep
    return url.rstrip("/")


def _register_filesystem(con: duckdb.DuckDBPyConnection, url: str) -> None:
    scheme = urlsplit(url).scheme
    if scheme in ("", "file"):
        return
    try:
        import fsspec
    except ImportError:
        raise ArchiveError(f"reading {scheme}:// needs fsspec (pip install "
                           "'footprint-lens[cluster]')") from None
    con.register_filesystem(fsspec.filesystem(scheme))


def select(con: duckdb.DuckDBPyConnection, sql: str,
           parameters: list[Any] | None = None) -> list[dict[str, Any]]:
    """Run one read-only query; anything else is refused with one line."""
    check_read_only(sql, con)
    try:
        cursor = con.execute(sql, parameters or [])
        names = [d[0] for d in cursor.description or []]
        rows = cursor.fetchall()
    except duckdb.Error as error:
        raise ArchiveError(f"the query failed: {_first_line(error)}") from None
    return [{name: json_value(value) for name, value in zip(names, row)} for row in rows]


def check_read_only(sql: str, con: duckdb.DuckDBPyConnection | None = None) -> None:
    """Refuse anything but a single SELECT, judged by DuckDB's own parser: that
    of ``con`` when given (the module-level parser starts a database of its own,
    which a short-lived process would pay for once more)."""
    try:
        statements = (con or duckdb).extract_statements(sql)
    except duckdb.Error as error:
        raise ArchiveError(f"the query does not parse: {_first_line(error)}") from None
    if len(statements) != 1:
        raise ArchiveError(f"give exactly one query; found {len(statements)} statements")
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        raise ArchiveError(f"only a read-only SELECT is allowed; this is a "
                           f"{kind.name} statement")


def runs_sql(where: str | None = None, order_by: str | None = None,
             limit: int | None = DEFAULT_LIMIT) -> str:
    """The query behind ``archive runs``: a filter and an order over ``runs``.
    The caller's text is checked as a whole by :func:`select`."""
    sql = 'SELECT * FROM "runs"'
    if where:
        sql += f" WHERE ({where})"
    sql += f" ORDER BY {order_by or DEFAULT_ORDER}"
    if limit:
        sql += f" LIMIT {int(limit)}"
    return sql


def table_names() -> list[str]:
    return [t.name for t in RUN_TABLES]


def json_value(value: Any) -> Any:
    """A DuckDB value as JSON can carry it."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value.isoformat(timespec="milliseconds") + "Z"
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds() * 1000
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    return value


def _first_line(error: BaseException) -> str:
    return " ".join(str(error).split("\n")[0].split()) or type(error).__name__

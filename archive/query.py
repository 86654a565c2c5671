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

A query's work is bounded (:class:`QueryLimits`): a time limit (a timer
interrupts DuckDB), a memory limit (DuckDB's ``memory_limit``, with no
spilling to disk, set before the configuration is locked), and a cap on the
rows and bytes of its answer, fetched in chunks so a huge answer is refused
before it is built. ``archive runs`` takes its ``--where`` and ``--order-by``
as trees from DuckDB's parser (:func:`runs_sql`), never as pasted text.

Results are JSON-able rows (timestamps as ISO 8601 UTC text).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import json
import math
import os
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit

try:
    import resource
except ImportError:  # not on Windows; the process cap is then left out
    resource = None  # type: ignore[assignment]

import duckdb

from archive.errors import ArchiveError
from archive.schema import RUN_TABLES, TABLES
from archive.database import connect, default_db_path

DEFAULT_ORDER = "started_at DESC, file"
DEFAULT_LIMIT = 100
FETCH_CHUNK_ROWS = 2048  # DuckDB's own vector size: one chunk of the answer at a time
MB = 1024 * 1024


@dataclass(frozen=True)
class Setting:
    """One limit as people set it: a command-line flag or an environment variable."""

    field: str
    flag: str
    env: str
    default: float
    unit: str
    bounds: str  # what it bounds, for --help

    def describe(self, value: float) -> str:
        """``30 s (--timeout / LENS_SQL_TIMEOUT_S)``: the value in force and where to change it."""
        number = f"{int(value):,}" if float(value).is_integer() else f"{value:,}"
        return f"{number} {self.unit} ({self.flag} / {self.env})"


TIMEOUT = Setting("timeout_s", "--timeout", "LENS_SQL_TIMEOUT_S", 30, "s",
                  "how long the query may run")
MEMORY = Setting("memory_mb", "--memory-mb", "LENS_SQL_MEMORY_MB", 1024, "MB",
                 "DuckDB's memory for the query (nothing spills to disk)")
MAX_ROWS = Setting("max_rows", "--max-rows", "LENS_SQL_MAX_ROWS", 100_000, "rows",
                   "most rows in the answer")
MAX_RESULT = Setting("max_result_mb", "--max-result-mb", "LENS_SQL_MAX_RESULT_MB", 64, "MB",
                     "largest answer, as the JSON it prints")
LIMIT_SETTINGS = (TIMEOUT, MEMORY, MAX_ROWS, MAX_RESULT)


@dataclass(frozen=True)
class QueryLimits:
    """What one query may take: wall time, DuckDB's memory, and the size of its
    answer (rows, and bytes as the JSON it prints, estimated)."""

    timeout_s: float = TIMEOUT.default
    memory_mb: float = MEMORY.default
    max_rows: float = MAX_ROWS.default
    max_result_mb: float = MAX_RESULT.default

    def connection_config(self) -> dict[str, str]:
        """DuckDB settings that enforce the memory limit. Nothing spills to disk:
        a query that needs more than the limit is refused, not written to the
        temporary directory beside the index (or the working directory)."""
        return {"memory_limit": f"{max(1, int(self.memory_mb * MB))}B",
                "max_temp_directory_size": "0B"}


DEFAULT_LIMITS = QueryLimits()
# The process cap's room beyond DuckDB's memory limit: the answer as Python
# objects (measured up to 3x its JSON estimate at the 64 MB cap), and the
# interpreter and DuckDB's threads around it.
ANSWER_MEMORY_PER_BYTE = 4
CAP_MARGIN_MB = 256


@contextlib.contextmanager
def process_memory_cap(limits: QueryLimits) -> Iterator[None]:
    """While a query runs, hold the whole process to about its memory limit.

    DuckDB's ``memory_limit`` bounds its operators (aggregates, sorts, joins)
    but not a value a scalar function builds: ``SELECT len(range(0,
    200000000))`` reached 14 GB under a 64 MB limit. The data segment
    (``RLIMIT_DATA``, which on Linux counts every private writable mapping)
    may grow by the memory limit, room for the answer and a margin; past that
    an allocation fails and DuckDB says it is out of memory. The soft limit
    goes back as it was afterwards. For a process of its own (the command
    line): the cap is the process's, not the connection's."""
    in_use = _data_segment_bytes()
    if resource is None or in_use is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    room_mb = (limits.memory_mb + ANSWER_MEMORY_PER_BYTE * limits.max_result_mb
               + CAP_MARGIN_MB)
    cap = in_use + int(room_mb * MB)
    capped = min(limit for limit in (soft, hard, cap) if limit != resource.RLIM_INFINITY)
    resource.setrlimit(resource.RLIMIT_DATA, (capped, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def _data_segment_bytes() -> int | None:
    """What ``RLIMIT_DATA`` counts now (Linux's VmData), or None where unknown."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def open_index(db_path: str | os.PathLike,
               limits: QueryLimits = DEFAULT_LIMITS) -> duckdb.DuckDBPyConnection:
    """A read-only, sealed connection to an index file, with ``limits``' memory
    limit set before the configuration is locked."""
    if not Path(db_path).is_file():
        raise ArchiveError(f"no index at {os.fspath(db_path)}; build it with "
                           "`footprint-lens archive index DIR` first")
    return connect(db_path, read_only=True, enable_external_access=False,
                   lock_configuration=True, **limits.connection_config())


def open_folder_index(root: str | os.PathLike,
                      db_path: str | os.PathLike | None = None,
                      limits: QueryLimits = DEFAULT_LIMITS) -> duckdb.DuckDBPyConnection:
    return open_index(db_path or default_db_path(root), limits)


def open_parquet(url: str, limits: QueryLimits = DEFAULT_LIMITS) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB whose tables are views over the Parquet datasets under
    ``url`` (``<url>/<table>/*.parquet``), sealed and limited as :func:`open_index` is."""
    location = dataset_location(url)
    con = duckdb.connect(":memory:", config=limits.connection_config())
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


def select(con: duckdb.DuckDBPyConnection, sql: str, parameters: list[Any] | None = None,
           limits: QueryLimits = DEFAULT_LIMITS) -> list[dict[str, Any]]:
    """Run one read-only query within ``limits`` (the memory limit is the
    connection's, set when it was opened); anything else, and a query past a
    limit, is refused with one line."""
    check_read_only(sql, con)
    with _Deadline(con, limits.timeout_s) as deadline:
        try:
            cursor = con.execute(sql, parameters or [])
            names = [d[0] for d in cursor.description or []]
            return _bounded_rows(cursor, names, limits, deadline)
        except duckdb.InterruptException:
            if deadline.passed():
                raise _time_limit_error(limits) from None
            raise ArchiveError("the query was interrupted") from None
        except (duckdb.OutOfMemoryException, MemoryError):
            raise ArchiveError(f"the query needed more than its memory limit of "
                               f"{MEMORY.describe(limits.memory_mb)}; refused") from None
        except duckdb.Error as error:
            raise ArchiveError(f"the query failed: {_first_line(error)}") from None


def _bounded_rows(cursor: duckdb.DuckDBPyConnection, names: list[str], limits: QueryLimits,
                  deadline: _Deadline) -> list[dict[str, Any]]:
    """The answer as JSON-able rows, fetched a chunk at a time (DuckDB streams
    it), refused as soon as it passes the row or byte cap: a billion-row answer
    costs one chunk, not a billion Python objects."""
    max_bytes = limits.max_result_mb * MB
    row_overhead = 2 + sum(len(name) + 4 for name in names)  # {"name": …, } around the values
    rows: list[dict[str, Any]] = []
    size = 0
    while True:
        chunk = cursor.fetchmany(FETCH_CHUNK_ROWS)
        if deadline.passed():  # the timer may fire while Python, not DuckDB, is working
            raise _time_limit_error(limits)
        if not chunk:
            return rows
        if len(rows) + len(chunk) > limits.max_rows:
            raise ArchiveError(f"the answer has more rows than its limit of "
                               f"{MAX_ROWS.describe(limits.max_rows)}; add a LIMIT, "
                               "or raise the limit")
        for values in chunk:
            row = {name: json_value(value) for name, value in zip(names, values)}
            size += row_overhead + sum(_json_size(value) for value in row.values())
            if size > max_bytes:
                raise ArchiveError(f"the answer is larger than its limit of "
                                   f"{MAX_RESULT.describe(limits.max_result_mb)}; select "
                                   "fewer rows or columns, or raise the limit")
            rows.append(row)


def _json_size(value: Any) -> int:
    """About how many bytes ``value`` takes as JSON (a number counts 8)."""
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, list):
        return 2 + sum(_json_size(item) + 2 for item in value)
    if isinstance(value, dict):
        return 2 + sum(len(key) + 4 + _json_size(item) for key, item in value.items())
    return 8


def _time_limit_error(limits: QueryLimits) -> ArchiveError:
    return ArchiveError(f"the query ran past its time limit of "
                        f"{TIMEOUT.describe(limits.timeout_s)}; refused")


class _Deadline:
    """Interrupts the connection's query once ``seconds`` have passed.

    DuckDB checks for an interrupt between pieces of work, so even a query
    that would run for days (``count(*)`` over ``range(1e12)``) stops within
    moments of the timer. The lock keeps a late timer from interrupting
    anything after the query is done."""

    def __init__(self, con: duckdb.DuckDBPyConnection, seconds: float) -> None:
        self._con: duckdb.DuckDBPyConnection | None = con
        self._lock = threading.Lock()
        self._fired = False
        self._ends_at = time.monotonic() + seconds
        self._timer = threading.Timer(min(seconds, threading.TIMEOUT_MAX), self._interrupt)
        self._timer.daemon = True

    def _interrupt(self) -> None:
        with self._lock:
            if self._con is not None:
                self._fired = True
                self._con.interrupt()

    def passed(self) -> bool:
        return self._fired or time.monotonic() >= self._ends_at

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._con = None  # nor keep the connection open for the timer's thread
        self._timer.cancel()


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


def runs_sql(con: duckdb.DuckDBPyConnection, where: str | None = None,
             order_by: str | None = None, limit: int | None = DEFAULT_LIMIT) -> str:
    """The query behind ``archive runs``: a filter and an order over ``runs``.

    The caller's text is never pasted into SQL. DuckDB's parser reads
    ``where`` as one expression and ``order_by`` as an ORDER BY list, each
    alone in a statement whose every other part is checked to be empty, so a
    parenthesis, a comment or a second statement cannot reach past them (nor
    past the LIMIT). Their trees are set into the tree of ``SELECT * FROM
    runs … LIMIT n`` and DuckDB writes the statement back out as text. A
    subquery in either may read the archive's tables and nothing else."""
    template = 'SELECT * FROM "runs"' + (" WHERE NULL" if where else "") + " ORDER BY NULL"
    if limit:
        template += f" LIMIT {int(limit)}"
    statement = _parse(con, template, "the runs query")
    if where:
        statement["node"]["where_clause"] = _nested(_where_expression, con, where, "--where")
    _order_modifier(statement)["orders"] = _nested(_order_list, con, order_by or DEFAULT_ORDER,
                                                   "--order-by")
    try:
        tree = json.dumps({"error": False, "statements": [statement]})
        return con.execute("SELECT json_deserialize_sql(?)", [tree]).fetchone()[0]
    except (duckdb.Error, RecursionError) as error:
        raise ArchiveError(f"cannot assemble the runs query from --where and --order-by: "
                           f"{_first_line(error)}") from None


def _nested(read: Callable[[duckdb.DuckDBPyConnection, str], Any],
            con: duckdb.DuckDBPyConnection, text: str, what: str) -> Any:
    """``read(con, text)``, with a tree too deep for Python's JSON reader or
    walk (DuckDB allows 1,000 levels) said as what it is."""
    try:
        return read(con, text)
    except RecursionError:
        raise ArchiveError(f"{what} is nested too deeply to read") from None


def _where_expression(con: duckdb.DuckDBPyConnection, where: str) -> dict[str, Any]:
    """``where``'s tree, if it is one expression and nothing more. Parsed inside
    parentheses (newlines, so a trailing ``--`` comment ends there) as the
    predicate always was, so a text that closes them early is refused."""
    what = "--where"
    candidate = _parse(con, f"SELECT (\n{where}\n)", what)
    expressions = candidate["node"].get("select_list") or []
    if len(expressions) != 1 or expressions[0].get("alias"):
        raise ArchiveError(f"{what} must be one expression, e.g. \"failed_tool_calls > 0\"")
    baseline = _parse(con, "SELECT (\nNULL\n)", what)
    if _without(candidate, "select_list") != _without(baseline, "select_list"):
        raise ArchiveError(f"{what} must be one expression with nothing after it "
                           "(no FROM, ORDER BY, LIMIT or other clause)")
    _check_tables(expressions[0], what)
    return expressions[0]


def _order_list(con: duckdb.DuckDBPyConnection, order_by: str) -> list[dict[str, Any]]:
    """``order_by``'s ORDER BY list (expressions, each with ASC/DESC and NULLS
    FIRST/LAST), if that is all it is."""
    what = "--order-by"
    candidate = _parse(con, f"SELECT NULL ORDER BY\n{order_by}\n", what)
    baseline = _parse(con, "SELECT NULL ORDER BY\nNULL\n", what)
    modifiers = candidate["node"].get("modifiers") or []
    if len(modifiers) != 1 or modifiers[0].get("type") != "ORDER_MODIFIER":
        raise ArchiveError(f"{what} must be a list of expressions to sort by, each with "
                           "ASC or DESC and NULLS FIRST or LAST if wanted (no LIMIT or other "
                           "clause)")
    orders = modifiers[0]["orders"]
    modifiers[0]["orders"] = _order_modifier(baseline)["orders"]
    if candidate != baseline:
        raise ArchiveError(f"{what} must be a list of expressions to sort by, and nothing else")
    _check_tables(orders, what)
    return orders


def _parse(con: duckdb.DuckDBPyConnection, sql: str, what: str) -> dict[str, Any]:
    """The one SELECT statement ``sql`` makes, as DuckDB's parser serialises it."""
    try:
        count = len(con.extract_statements(sql))
    except duckdb.Error as error:
        raise ArchiveError(f"{what} does not parse: {_first_line(error)}") from None
    if count != 1:
        raise ArchiveError(f"{what} must stay inside its clause; with it the query makes "
                           f"{count} statements")
    try:
        tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [sql]).fetchone()[0])
    except duckdb.Error as error:
        raise ArchiveError(f"cannot parse {what}: {_first_line(error)}") from None
    if tree.get("error") or len(tree.get("statements") or []) != 1:
        reason = " ".join(str(tree.get("error_message", "")).split("\n")[0].split())
        raise ArchiveError(f"{what} does not parse as part of a SELECT: {reason}")
    statement = tree["statements"][0]
    if statement.get("named_param_map"):
        raise ArchiveError(f"{what} cannot take parameters ($1, ?); write the values in")
    return statement


def _without(statement: dict[str, Any], key: str) -> dict[str, Any]:
    return {**statement, "node": {k: v for k, v in statement["node"].items() if k != key}}


def _order_modifier(statement: dict[str, Any]) -> dict[str, Any]:
    return next(m for m in statement["node"]["modifiers"] if m.get("type") == "ORDER_MODIFIER")


def _check_tables(tree: Any, what: str) -> None:
    """Refuse a subquery that reads anything but the archive's own tables (a
    table function, another schema, a catalog view). The sealed connection
    could reach nothing more anyway; this keeps the options to the archive."""
    archive_tables = {table.name for table in TABLES}
    if isinstance(tree, list):
        for item in tree:
            _check_tables(item, what)
        return
    if not isinstance(tree, dict):
        return
    if tree.get("type") == "BASE_TABLE":
        name = tree.get("table_name")
        if (name not in archive_tables or tree.get("schema_name") not in ("", "main")
                or tree.get("catalog_name")):
            shown = ".".join(p for p in (tree.get("catalog_name"), tree.get("schema_name"),
                                         name) if p)
            raise ArchiveError(f"{what} may read only the archive's tables "
                               f"({', '.join(sorted(archive_tables))}); not {shown}")
    elif tree.get("type") in ("TABLE_FUNCTION", "SHOW_REF"):
        raise ArchiveError(f"{what} may read only the archive's tables, not a table function")
    for value in tree.values():
        _check_tables(value, what)


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

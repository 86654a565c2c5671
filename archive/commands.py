"""``footprint-lens archive index|runs|sql``: the archive from a terminal.

- ``index DIR [--db FILE]``: bring the index of DIR up to date and print what
  changed as JSON; ``--engine dask --scheduler tcp://HOST:PORT --parquet URL``
  reads the files on a Dask cluster and writes Parquet under URL instead.
- ``runs DIR [--where PREDICATE] [--order-by EXPR] [--limit N] [--json]``: list
  runs (a table, or JSON objects with every ``runs`` column).
- ``sql DIR "SELECT …"``: one read-only query, rows as JSON.

``runs`` and ``sql`` read the DuckDB index of DIR (``--db`` to name another
file) or, with ``--parquet URL`` and no DIR, the Parquet datasets the Dask
engine wrote, within the limits of :class:`archive.query.QueryLimits`
(``--timeout``, ``--memory-mb``, ``--max-rows``, ``--max-result-mb``, or the
``LENS_SQL_*`` environment variables they name). Every failure, a limit
reached included, is one line on stderr with status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Callable

from recorders.cli import ArgumentParser, UsageError

from archive.errors import ArchiveError
from archive.limits import positive_number
from archive.query import DEFAULT_LIMIT, DEFAULT_ORDER, LIMIT_SETTINGS, QueryLimits, Setting
from archive.query import open_folder_index, open_parquet, process_memory_cap, runs_sql, select

NAME = "archive"
HELP = "index a folder of saved runs and query it (index, runs, sql)"
ENGINES = ("embedded", "dask")
TABLE_COLUMNS = ("started_at", "agent", "complete", "failed_tool_calls", "input_tokens",
                 "output_tokens", "duration_ms", "file")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="archive_command", required=True)

    index = actions.add_parser("index", help="index (or re-index) a folder of runs")
    index.add_argument("dir", help="the folder of run files (searched recursively)")
    index.add_argument("--db", help="the DuckDB index file (default: under ~/.cache, see README)")
    index.add_argument("--engine", choices=ENGINES, default="embedded",
                       help="embedded DuckDB (default) or a Dask cluster writing Parquet")
    index.add_argument("--scheduler", help="the Dask scheduler, tcp://HOST:PORT (--engine dask)")
    index.add_argument("--parquet", help="where the Dask engine writes the tables (fsspec URL)")
    index.add_argument("--connect-timeout", type=float, default=15.0, metavar="SECONDS",
                       help="how long to try reaching the Dask scheduler (default 15)")

    runs = actions.add_parser("runs", help="list runs, filtered and sorted")
    _source_arguments(runs)
    _limit_arguments(runs)
    runs.add_argument("dir", nargs="?", help="the indexed folder (omit with --parquet)")
    runs.add_argument("--where", help='one SQL expression over runs, e.g. "failed_tool_calls > 0"')
    runs.add_argument("--order-by", default=DEFAULT_ORDER,
                      help=f"expressions, each with ASC/DESC and NULLS FIRST/LAST if wanted "
                           f"(default: {DEFAULT_ORDER})")
    runs.add_argument("--limit", type=int, default=DEFAULT_LIMIT,
                      help=f"most rows to list (default {DEFAULT_LIMIT}; 0 for all)")
    runs.add_argument("--json", action="store_true", help="JSON objects with every column")

    sql = actions.add_parser("sql", help="one read-only SQL query over the tables",
                             usage="%(prog)s [--db FILE | --parquet URL] [DIR] QUERY")
    _source_arguments(sql)
    _limit_arguments(sql)
    # Options may come between DIR and QUERY ("sql DIR --db FILE QUERY"), which
    # argparse's positionals cannot take: the rest is parsed intermixed in _sql.
    sql.add_argument("rest", nargs=argparse.REMAINDER, metavar="DIR QUERY",
                     help="the indexed folder and the query (only the query with --parquet)")


def _source_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", help="the DuckDB index file (default: the folder's own)")
    parser.add_argument("--parquet", help="read the Parquet tables at this URL instead")


def _limit_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per limit on a query's work; unset, its environment variable or
    its default applies (:func:`query_limits`)."""
    for setting in LIMIT_SETTINGS:
        parser.add_argument(setting.flag, dest=setting.field, type=_positive_number,
                            metavar="SECONDS" if setting.unit == "s" else setting.unit.upper(),
                            help=f"{setting.bounds} (default: ${setting.env}, else "
                                 f"{setting.default:,g})")


def _positive_number(text: str) -> float:
    value = positive_number(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"not a positive number: {text!r}")
    return value


def query_limits(args: argparse.Namespace) -> QueryLimits:
    """Each limit from its flag, else its environment variable, else its default.
    A variable that is not a positive number is refused in one line, not ignored:
    a person who set it expects it to hold."""
    return QueryLimits(**{s.field: _limit_value(s, getattr(args, s.field, None))
                          for s in LIMIT_SETTINGS})


def _limit_value(setting: Setting, flag_value: float | None) -> float:
    if flag_value is not None:
        return flag_value
    text = os.environ.get(setting.env, "").strip()
    if not text:
        return setting.default
    value = positive_number(text)
    if value is None:
        raise UsageError(f"{setting.env}={text!r} is not a positive number; unset it or "
                         f"give one, e.g. {setting.default:g}")
    return value


def run(args: argparse.Namespace) -> Any:
    try:
        return _COMMANDS[args.archive_command](args)
    except ArchiveError as error:
        raise UsageError(str(error)) from None


def _index(args: argparse.Namespace) -> Any:
    progress = terminal_progress() if sys.stderr.isatty() else None
    if args.engine == "dask":
        if not args.scheduler or not args.parquet:
            raise UsageError("--engine dask needs --scheduler tcp://HOST:PORT and --parquet URL")
        if args.db:
            raise UsageError("--db names the embedded index; the dask engine writes --parquet")
        from archive.cluster import index_to_parquet

        report = index_to_parquet(args.dir, args.parquet, args.scheduler, progress,
                                  args.connect_timeout)
    else:
        if args.scheduler or args.parquet:
            raise UsageError("--scheduler and --parquet go with --engine dask")
        from archive.embedded import index_folder

        report = index_folder(args.dir, args.db, progress)
    if progress is not None:
        progress.finish()
    return report.to_json()


def _runs(args: argparse.Namespace) -> Any:
    limits = query_limits(args)
    with _connection(args, args.dir, limits) as con, process_memory_cap(limits):
        rows = select(con, runs_sql(con, args.where, args.order_by, args.limit), limits=limits)
    if args.json:
        return rows
    print_table(rows)
    return 0


def _sql(args: argparse.Namespace) -> Any:
    rest = ArgumentParser(prog="footprint-lens archive sql")
    _source_arguments(rest)
    _limit_arguments(rest)
    rest.add_argument("words", nargs="*")
    later = rest.parse_intermixed_args(args.rest)
    args.db, args.parquet = later.db or args.db, later.parquet or args.parquet
    for setting in LIMIT_SETTINGS:
        if getattr(later, setting.field) is not None:
            setattr(args, setting.field, getattr(later, setting.field))
    if args.parquet:
        if len(later.words) != 1:
            raise UsageError("with --parquet give only the query: archive sql --parquet URL "
                             "\"SELECT …\"")
        folder, query = None, later.words[0]
    else:
        if len(later.words) != 2:
            raise UsageError("give the indexed folder and one query: archive sql DIR "
                             "\"SELECT …\"")
        folder, query = later.words
    limits = query_limits(args)
    with _connection(args, folder, limits) as con, process_memory_cap(limits):
        return select(con, query, limits=limits)


def _connection(args: argparse.Namespace, folder: str | None, limits: QueryLimits):
    if args.parquet:
        if folder is not None or args.db:
            raise UsageError("--parquet reads the Parquet tables: give no DIR and no --db")
        return open_parquet(args.parquet, limits)
    if folder is None:
        raise UsageError("name the indexed folder (or --parquet URL)")
    return open_folder_index(folder, args.db, limits)


_COMMANDS: dict[str, Callable[[argparse.Namespace], Any]] = {
    "index": _index, "runs": _runs, "sql": _sql}


# ─── terminal output ───────────────────────────────────────────────────


def print_table(rows: list[dict[str, Any]]) -> None:
    """A few columns of each run as aligned text; recording text is made inert
    (control characters replaced) before it reaches the terminal."""
    cells = [[_cell(row.get(c)) for c in TABLE_COLUMNS] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(TABLE_COLUMNS)]
    out = sys.stdout
    out.write("  ".join(c.ljust(w) for c, w in zip(TABLE_COLUMNS, widths)).rstrip() + "\n")
    for row in cells:
        out.write("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() + "\n")
    out.write(f"({len(rows)} runs)\n")


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        value = f"{value:.0f}"
    text = str(value)
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= 60 else text[:59] + "…"


class terminal_progress:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, width: int = 30) -> None:
        self.width = width
        self.last_draw = 0.0
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last_draw < 0.1:
            return
        self.last_draw = now
        filled = self.width * done // total if total else self.width
        bar = "#" * filled + "-" * (self.width - filled)
        sys.stderr.write(f"\rindexing [{bar}] {done}/{total} files")
        sys.stderr.flush()
        self.drawn = True

    def finish(self) -> None:
        if self.drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()

"""``footprint-lens archive index|runs|sql``: the archive from a terminal.

- ``index DIR [--db FILE]``: bring the index of DIR up to date and print what
  changed as JSON; ``--engine dask --scheduler tcp://HOST:PORT --parquet URL``
  reads the files on a Dask cluster and writes Parquet under URL instead.
- ``runs DIR [--where PREDICATE] [--order-by EXPR] [--limit N] [--json]``: list
  runs (a table, or JSON objects with every ``runs`` column).
- ``sql DIR "SELECT …"``: one read-only query, rows as JSON.

``runs`` and ``sql`` read the DuckDB index of DIR (``--db`` to name another
file) or, with ``--parquet URL`` and no DIR, the Parquet datasets the Dask
engine wrote. Every failure is one line on stderr with status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Callable

from recorders.cli import ArgumentParser, UsageError

from archive.errors import ArchiveError
from archive.query import DEFAULT_LIMIT, DEFAULT_ORDER, open_folder_index, open_parquet
from archive.query import runs_sql, select

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
    runs.add_argument("dir", nargs="?", help="the indexed folder (omit with --parquet)")
    runs.add_argument("--where", help='an SQL predicate over runs, e.g. "failed_tool_calls > 0"')
    runs.add_argument("--order-by", default=DEFAULT_ORDER, help=f"default: {DEFAULT_ORDER}")
    runs.add_argument("--limit", type=int, default=DEFAULT_LIMIT,
                      help=f"most rows to list (default {DEFAULT_LIMIT}; 0 for all)")
    runs.add_argument("--json", action="store_true", help="JSON objects with every column")

    sql = actions.add_parser("sql", help="one read-only SQL query over the tables",
                             usage="%(prog)s [--db FILE | --parquet URL] [DIR] QUERY")
    _source_arguments(sql)
    # Options may come between DIR and QUERY ("sql DIR --db FILE QUERY"), which
    # argparse's positionals cannot take: the rest is parsed intermixed in _sql.
    sql.add_argument("rest", nargs=argparse.REMAINDER, metavar="DIR QUERY",
                     help="the indexed folder and the query (only the query with --parquet)")


def _source_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", help="the DuckDB index file (default: the folder's own)")
    parser.add_argument("--parquet", help="read the Parquet tables at this URL instead")


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
    rows = select(_connection(args, args.dir), runs_sql(args.where, args.order_by, args.limit))
    if args.json:
        return rows
    print_table(rows)
    return 0


def _sql(args: argparse.Namespace) -> Any:
    rest = ArgumentParser(prog="footprint-lens archive sql")
    _source_arguments(rest)
    rest.add_argument("words", nargs="*")
    later = rest.parse_intermixed_args(args.rest)
    args.db, args.parquet = later.db or args.db, later.parquet or args.parquet
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
    return select(_connection(args, folder), query)


def _connection(args: argparse.Namespace, folder: str | None):
    if args.parquet:
        if folder is not None or args.db:
            raise UsageError("--parquet reads the Parquet tables: give no DIR and no --db")
        return open_parquet(args.parquet)
    if folder is None:
        raise UsageError("name the indexed folder (or --parquet URL)")
    return open_folder_index(folder, args.db)


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

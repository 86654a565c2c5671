"""``footprint-lens archive index|runs|sql``: the archive from a terminal.

- ``index DIR [--db FILE]``: bring the index of DIR up to date and print what
  changed as JSON; ``--engine dask --scheduler tcp://HOST:PORT --parquet URL``
  reads the files on a Dask cluster and writes Parquet under URL instead.
- ``runs DIR [--where PREDICATE] [--order-by EXPR] [--limit N] [--json]``: list
  runs (a table, or JSON objects with every ``runs`` column).
- ``sql DIR "SELECT …"``: one read-only query, rows as JSON.
- ``causes DIR [--where PREDICATE] [--json]``: every run's likely causes
  grouped by signature, largest group first (:mod:`archive.causes`).
- ``label DIR --file REL --add LABEL [--note TEXT] [--step PATH:N]`` or
  ``--remove LABEL``: mark a run (or one step) for later; ``runs --label``
  lists the runs that carry one (:mod:`archive.labels`).
- ``export DIR --label LABEL -o OUT.jsonl [--redact …]``: the labelled runs
  as a dataset, one JSON line each (:mod:`archive.dataset`).
- ``nearest DIR --file REL [--cause N]``: the nearest run of the same agent
  without the failing run's cause, to compare with (:mod:`archive.nearest`).

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
HELP = ("index a folder of saved runs and query it (index, runs, sql, causes, label, export, "
        "nearest)")
ENGINES = ("embedded", "dask")
CAUSE_COLUMNS = ("runs", "severity", "kind", "subject", "text", "lastSeen")
TABLE_COLUMNS = ("started_at", "agent", "complete", "failed_tool_calls", "input_tokens",
                 "output_tokens", "duration_ms", "file")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="archive_command", required=True)

    index = actions.add_parser("index", help="index (or re-index) a folder of runs")
    index.add_argument("dir", help="the folder of run files (searched recursively)")
    index.add_argument("--db", help="the DuckDB index file (default: under ~/.cache, see docs/archive.md)")
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
    runs.add_argument("--label", help="only runs whose current content carries this label")

    causes = actions.add_parser("causes", help="likely causes across runs, grouped, largest first")
    _source_arguments(causes)
    _limit_arguments(causes)
    causes.add_argument("dir", nargs="?", help="the indexed folder (omit with --parquet)")
    causes.add_argument("--where", help='one SQL expression over runs, e.g. "agent = \'refunds\'"')
    causes.add_argument("--json", action="store_true", help="the groups as JSON")

    label = actions.add_parser("label", help="put a label (and a note) on a run, or take it off")
    label.add_argument("dir", help="the indexed folder")
    label.add_argument("--db", help="the DuckDB index file (default: the folder's own)")
    label.add_argument("--file", required=True, help="the run file, relative to the folder")
    change = label.add_mutually_exclusive_group(required=True)
    change.add_argument("--add", metavar="LABEL", help='e.g. "wrong answer"')
    change.add_argument("--remove", metavar="LABEL", help="take this label off")
    label.add_argument("--note", help="a note to keep with the label (with --add)")
    label.add_argument("--step", metavar="PATH:N",
                       help="label one step: its scope and number from 1, e.g. __root__:3")

    export = actions.add_parser("export", help="the runs carrying a label, as JSON lines")
    export.add_argument("dir", help="the indexed folder")
    export.add_argument("--db", help="the DuckDB index file (default: the folder's own)")
    export.add_argument("--label", required=True, help="export the runs carrying this label")
    export.add_argument("-o", "--out", required=True, help="the .jsonl file to write")
    export.add_argument("--redact", action="store_true",
                        help="mask keys, e-mail addresses, card and phone numbers (see docs/share.md)")
    export.add_argument("--redact-pattern", action="append", default=[], metavar="REGEX",
                        help="also mask what this expression matches (repeatable)")
    export.add_argument("--redact-patterns", metavar="FILE",
                        help="a file of such patterns, one a line; blank lines and lines "
                             "starting with # are skipped")

    nearest = actions.add_parser("nearest", help="the nearest run of the same agent without "
                                                 "a failing run's cause")
    nearest.add_argument("dir", help="the indexed folder")
    nearest.add_argument("--db", help="the DuckDB index file (default: the folder's own)")
    nearest.add_argument("--file", required=True, help="the failing run, relative to the folder")
    nearest.add_argument("--cause", type=int, metavar="N",
                         help="which of its causes, numbered from 0 as `causes` lists them "
                              "(default: its first error)")

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
    if args.label is not None and args.parquet:
        raise UsageError("labels live in the embedded index: give DIR (or --db), not --parquet")
    with _connection(args, args.dir, limits) as con, process_memory_cap(limits):
        if args.label is None:
            rows = select(con, runs_sql(con, args.where, args.order_by, args.limit),
                          limits=limits)
        else:  # the labelled contents are few: filtered here, the order kept
            from archive.labels import LabelStore

            carrying = set(LabelStore(con, writable=False).labelled(args.label))
            rows = [row for row in select(con, runs_sql(con, args.where, args.order_by, None),
                                          limits=limits) if row.get("sha256") in carrying]
            rows = rows[:args.limit] if args.limit else rows
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


def _causes(args: argparse.Namespace) -> Any:
    from archive.causes import cause_groups

    limits = query_limits(args)
    with _connection(args, args.dir, limits) as con, process_memory_cap(limits):
        groups = cause_groups(con, args.where, limits)
    if args.json:
        return groups
    print_table(groups, CAUSE_COLUMNS, "groups")
    return 0


def _label(args: argparse.Namespace) -> Any:
    from archive.database import default_db_path
    from archive.labels import LabelStore, parse_step

    if args.note is not None and args.add is None:
        raise UsageError("--note goes with --add")
    step = parse_step(args.step) if args.step else None
    db = args.db or default_db_path(args.dir)
    with LabelStore.open(db) as store:
        found = store.connection.execute(
            'SELECT sha256 FROM "runs" WHERE file = ?', [args.file]).fetchone()
        if found is None:
            raise ArchiveError(f"{args.file!r} is not a run of the index {db} (index the folder "
                               "first, or check the path)")
        sha = found[0]
        if step is not None and args.add is not None:
            _check_step(args.dir, args.file, sha, step, args.step)
        if args.add is not None:
            store.add(sha, args.add, file=args.file, note=args.note, step=step)
        elif not store.remove(sha, args.remove, step=step):
            raise ArchiveError(f"{args.file!r} does not carry the label {args.remove!r}"
                               + (f" on step {args.step}" if step else ""))
        current, earlier = store.labels_of_file(args.file, sha)
    return {"file": args.file, "sha256": sha, "labels": _label_rows(current),
            "earlierContent": _label_rows(earlier)}


def _check_step(folder: str, file: str, sha256: str, step: Any, shown: str) -> None:
    """ArchiveError unless the run file (as indexed) has the step: its scope on the
    run page (the lens view) and a number within that scope's steps."""
    from archive.indexed_run import CHANGED, UNREADABLE, IndexedRunProblem, open_indexed_run

    try:
        scopes = open_indexed_run(folder, file, sha256).scopes("lens")
    except IndexedRunProblem as problem:
        if problem.kind == UNREADABLE:
            raise ArchiveError(f"--step {shown!r}: cannot read {file!r} to check the step "
                               f"({problem})") from None
        if problem.kind == CHANGED:
            raise ArchiveError(f"{file!r} changed since it was indexed; re-index the folder "
                               "before labelling one of its steps") from None
        raise ArchiveError(f"--step {shown!r}: {file!r} cannot be opened ({problem})") from None
    scope = scopes.get(tuple(step.path))
    if scope is None:
        raise ArchiveError(f"--step {shown!r}: the run has no scope "
                           f"{'/'.join(step.path)!r} (its scopes are named on the run page, "
                           "e.g. __root__)")
    count = len(scope.steps)
    if step.index >= count:
        raise ArchiveError(f"--step {shown!r}: that scope has {count} "
                           f"step{'' if count == 1 else 's'}; number one from 1 to {count}")


def _label_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from archive.query import json_value

    return [{"label": r["label"], "note": r["note"],
             "step": None if r["step_index"] is None else
             {"path": json_value(r["step_path"]), "index": r["step_index"]},
             "labelledAt": json_value(r["labelled_at"])} for r in rows]


def _export(args: argparse.Namespace) -> Any:
    from archive.dataset import dataset_lines, redact_lines, write_jsonl

    redactor = None
    if args.redact or args.redact_pattern or args.redact_patterns:
        from lens.share.redaction import RedactionError, Redactor, patterns_of

        try:
            patterns = patterns_of(args.redact_pattern, args.redact_patterns)
            redactor = Redactor(patterns=patterns, builtin=args.redact)
        except RedactionError as error:
            raise UsageError(str(error)) from None
    limits = query_limits(args)
    with open_folder_index(args.dir, args.db, limits) as con:
        lines, notes = dataset_lines(con, args.dir, args.label, limits)
    masked: dict[str, int] = {}
    if redactor is not None and lines:
        lines, report = redact_lines(lines, redactor)  # one plan: one mask per value
        masked = report.counts
        print(f"redaction: {report.summary()}", file=sys.stderr)
    written = write_jsonl(lines, args.out)
    for note in notes:
        print(note, file=sys.stderr)
    answer: dict[str, Any] = {"label": args.label, "runs": written, "out": args.out,
                              "leftOut": notes}
    if redactor is not None:
        answer["masked"] = masked
    return answer


def _nearest(args: argparse.Namespace) -> Any:
    from archive.nearest import nearest_good_run

    limits = query_limits(args)
    with open_folder_index(args.dir, args.db, limits) as con:
        return nearest_good_run(con, args.file, args.cause, limits)


_COMMANDS: dict[str, Callable[[argparse.Namespace], Any]] = {
    "index": _index, "runs": _runs, "sql": _sql, "causes": _causes, "label": _label,
    "export": _export, "nearest": _nearest}


# ─── terminal output ───────────────────────────────────────────────────


def print_table(rows: list[dict[str, Any]], columns: tuple[str, ...] = TABLE_COLUMNS,
                what: str = "runs") -> None:
    """A few columns of each row as aligned text; recording text is made inert
    (control characters replaced) before it reaches the terminal."""
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    out = sys.stdout
    out.write("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip() + "\n")
    for row in cells:
        out.write("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() + "\n")
    out.write(f"({len(rows)} {what})\n")


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

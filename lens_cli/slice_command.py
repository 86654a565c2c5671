"""``footprint-lens slice FILE [KEY]``: where each value came from, as JSON.

Prints ``{key: {"backward", "forward", "timeline", "births"?}}`` for every key
the run's commit log writes, or for KEY alone: the backward slice, the forward
slice, the key's timeline, and (for a key holding an array) which stage put
each element there -- each equal as JSON to what footprintjs 9.24.0
serialises for the same recording. A nested key is named with its path
segments joined by ``/`` or by the log's own separator (``\\u001f``).

Owns: the command's arguments and its wire shape. Does not own: the
lineage queries (:mod:`recorders.lineage`) or reading the file (the loader).
A file without a snapshot commit log, or a KEY the log does not write, is one
line on stderr and status 2 (:func:`recorders.cli.guarded`).
"""

from __future__ import annotations

import argparse
from typing import Any

NAME = "slice"
HELP = "where each state value came from and what it fed (data lineage), as JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file",
                        help="a recording or envelope (.json or .json.gz) with its snapshot")
    parser.add_argument("key", nargs="?", default=None,
                        help="one state key (default: every key the commit log writes); "
                             "a nested one as its path, e.g. customer/address")


def run(args: argparse.Namespace) -> dict[str, Any]:
    # Imported here, so that ``footprint-lens``'s other commands start without them.
    from recorders.cli import UsageError
    from recorders.lineage import Lineage, snapshot_of_path

    lineage = Lineage(snapshot_of_path(args.file))
    if args.key is None:
        return lineage.report()
    key = _written_key(lineage, args.key)
    if key is None:
        known = lineage.keys()
        shown = ", ".join(known[:10]) + (f" (+{len(known) - 10} more)" if len(known) > 10 else "")
        raise UsageError(f"{args.file}: the commit log never writes the key {args.key!r}; "
                         f"it writes {shown or 'no key'}")
    return lineage.report([key])


def _written_key(lineage: Any, asked: str) -> str | None:
    """The written key ``asked`` names: as it is, or with ``/`` as the path separator."""
    from recorders.lineage import DELIM

    written = set(lineage.keys())
    for candidate in (asked, asked.replace("/", DELIM)):
        if candidate in written:
            return candidate
    return None


def slice_command(argv: list[str]) -> int:
    """The command on its own (``argv`` after ``slice``), printing its JSON and
    returning the exit status: what ``footprint-lens slice`` does once
    registered, for tests and scripts."""
    from recorders import cli as recorder_cli

    parser = recorder_cli.ArgumentParser(prog=f"footprint-lens {NAME}", description=HELP)
    add_arguments(parser)
    return recorder_cli.guarded(lambda: run(parser.parse_args(argv)))

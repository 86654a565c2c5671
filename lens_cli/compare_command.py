"""``footprint-lens compare A B``: where two runs part, as JSON or a short text report."""

from __future__ import annotations

import argparse
from typing import Any

from typing import TYPE_CHECKING

from recorders.cli import write_json
from recorders.errors import RecordingError

if TYPE_CHECKING:
    from lens.run import OpenRun


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", help="the first run (recording or envelope, .json or .json.gz)")
    parser.add_argument("b", help="the second run")
    parser.add_argument("--format", choices=("json", "text"), default="json",
                        help="JSON (default) or a short report for people")


def _open(label: str, path: str) -> OpenRun:
    from recorders.loading import load_path
    from lens.run import OpenRun

    try:
        return OpenRun(load_path(path))
    except RecordingError as exc:
        raise RecordingError(f"{label} ({path}): {exc}") from None
    except RecursionError:
        raise RecordingError(f"{label} ({path}): the recording is nested too deeply "
                             "to process") from None


def run(args: argparse.Namespace) -> Any:
    # Imported here, so that ``footprint-lens``'s other commands start without them.
    from lens.compare import compare_runs, comparison_text, comparison_to_wire

    result = compare_runs(_open("A", args.a), _open("B", args.b))
    if args.format == "text":
        print(comparison_text(result))
        return 0
    write_json(comparison_to_wire(result))
    return 0

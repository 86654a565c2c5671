"""``footprint-lens follow FILE``: what is known of a run while it is written.

Prints one compact JSON line each time what is known changes: the status
(``waiting``, ``running``, ``ended``, ``stopped-without-end``), the run being
written and how many runs the file holds, its typed events, model calls
started, tool calls, failed tool calls, the calls still open and the headline
of the newest likely cause (see :meth:`lens.follow.FollowedFile.summary`).
The file is read every :data:`POLL_SECONDS`.

``--idle-exit SECONDS`` ends the command (status 0) once the file has not
grown for that long since it was last seen growing (or since the command
started); the run then reads as ``stopped-without-end`` unless its end was
seen, and that line is printed first. Without it the command follows until
interrupted. A line that is not an event, or a path that is not a file,
exits with status 2 and one line on stderr naming the file and line.

The command's process holds the followed run and little else, so, as the app
does with a large open run (``lens_ui/collector.py``), what each poll folded
is moved out of the cyclic collector's sight (``gc.freeze``): a stream of
tens of thousands of events otherwise has its whole heap walked again by
every full collection as it grows (on the 20x run, 2.6 s of the 4.4 s the
follow took). It freezes only in a process where nothing was frozen before,
and unfreezes on its way out. The library only pauses the collector while
it folds.

Owns: the command's arguments, its loop, its output and its process's
collector. Does not own: reading or folding the stream (:mod:`lens.follow`).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import time

from recorders.errors import RecordingError
from recorders.cli import write_utf8
from lens.follow_summary import FollowSummary

NAME = "follow"
HELP = "follow a run while it is written: one JSON line each time what is known changes"
# How often the file is read: a written event's count is printed within about this.
POLL_SECONDS = 0.1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the event stream fileObservability appends (.ndjson), "
                                     "or a recording or envelope rewritten in place")
    parser.add_argument("--idle-exit", type=_seconds, default=None, metavar="SECONDS",
                        help="exit (status 0) after SECONDS without the file growing")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, found {text!r}") \
            from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds, found {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    from lens.follow import IDLE_SECONDS, FollowedFile

    path = args.file
    if not os.path.exists(path) and not os.path.exists(f"{path}.1"):
        raise RecordingError(f"cannot read {path!r}: no such file")
    idle_exit = args.idle_exit
    stopped_after = IDLE_SECONDS if idle_exit is None else min(IDLE_SECONDS, idle_exit)
    followed = FollowedFile(path, idle_seconds=stopped_after)
    printed: FollowSummary | None = None
    last_growth = time.monotonic()
    # Frozen only in a process that froze nothing else, and let go on the way out.
    freezing = gc.get_freeze_count() == 0
    try:
        while True:
            if followed.poll():
                last_growth = time.monotonic()
                if freezing:
                    gc.freeze()  # what was folded lives as long as the command
            quiet = time.monotonic() - last_growth
            if idle_exit is not None and quiet >= idle_exit:
                # Said as it is at the exit: a run with no end has stopped as far as seen.
                followed.idle_seconds = min(followed.idle_seconds, quiet)
            summary = followed.summary()
            if summary != printed:
                if not _print_line(summary):
                    return 0
                printed = summary
            if idle_exit is not None and quiet >= idle_exit:
                return 0
            time.sleep(POLL_SECONDS)
    except KeyboardInterrupt:
        return 0
    finally:
        followed.close()
        if freezing:
            gc.unfreeze()


def _print_line(summary: FollowSummary) -> bool:
    """One line on stdout; False when the reader went away."""
    return write_utf8(json.dumps(summary.to_json(), ensure_ascii=False) + "\n")

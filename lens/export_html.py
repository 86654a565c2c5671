"""``footprint-lens export html FILE -o OUT.html``: the run as one page that
opens from disk, with no server and no network (:mod:`lens.share.html`).

With redaction options the recording is redacted first, as ``export
recording`` writes it, and the page is built from that: every view then
shows the masks, and no text is built from a value before it was masked.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from recorders.profiles import DEFAULT_PROFILE, PROFILES

if TYPE_CHECKING:
    from lens.share.redaction import Redactor

HELP = ("one self-contained HTML page of the run (steps, diagram, step detail, served "
        "context, likely causes, route, timeline) that opens from disk with no network")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", choices=PROFILES, default=DEFAULT_PROFILE,
                        help="the projection whose steps the page shows")


def run(args: argparse.Namespace, redactor: Redactor | None) -> int:
    # Imported here, so that ``footprint-lens``'s other commands start without them.
    from recorders.cli import UsageError
    from recorders.loading import read_path
    from lens.share.html import export_file_bytes

    data = read_path(args.file)
    exported = export_file_bytes(data, Path(args.file).name, profile=args.profile,
                                 redactor=redactor)
    page = exported.html.encode("utf-8")
    try:
        _write(Path(args.output), page)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output!r}: {exc.strerror or exc}") from None
    print(f"wrote {args.output} ({len(page):,} bytes): one page that opens from disk with "
          "no network", file=sys.stderr)
    if exported.masked:
        print(exported.masked, file=sys.stderr)
    return 0


def _write(path: Path, content: bytes) -> None:
    # Written beside the target, then moved over it: a failed write leaves no half page.
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_bytes(content)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)

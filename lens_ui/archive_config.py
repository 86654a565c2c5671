"""Which folders the Archive page may read: set by the operator, never in the browser.

A folder is offered when the server was started with it, either after ``--``
on the command line (``footprint-lens view DIR``, or ``streamlit run lens_app.py --
--archive DIR``, repeatable)
or in ``FOOTPRINT_LENS_ARCHIVE`` (several joined by ``os.pathsep``). The page
names each folder by a label (its base name) and only ever maps a label back to
a folder; no text from the browser becomes a path.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ENV_FOLDERS = "FOOTPRINT_LENS_ARCHIVE"


def archive_folders(argv: list[str] | None = None,
                    environ: dict[str, str] | None = None) -> dict[str, Path]:
    """Label → folder, in the order configured (command line first)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--archive", action="append", default=[])
    known, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    env = (os.environ if environ is None else environ).get(ENV_FOLDERS, "")
    return labelled_folders(list(known.archive) + [p for p in env.split(os.pathsep) if p])


def labelled_folders(paths: list[str]) -> dict[str, Path]:
    """Label (the folder's base name, numbered when two share one) → folder,
    each folder once, in the order given; what every operator-configured
    folder setting (archive, follow) is read into."""
    folders: dict[str, Path] = {}
    for raw in paths:
        folder = Path(raw).expanduser().resolve()
        if folder in folders.values():
            continue
        label = folder.name or str(folder)
        candidate, n = label, 2
        while candidate in folders:
            candidate, n = f"{label} ({n})", n + 1
        folders[candidate] = folder
    return folders

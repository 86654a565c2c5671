"""The runs the server offers by name: the files the operator started Lens
with, then the samples shipped with the app in ``lens_ui/app/sample_runs/`` (the
checkout's ``sample_runs/`` points there). An allow-list, never a path.

A link's ``?run=`` is matched against the names listed here, built from the
operator's settings and the directory listing, so no text from a URL ever
becomes a file path. The operator names files to open with ``--open FILE``
after ``--`` (``streamlit run lens_app.py -- --open FILE``, repeatable; what
``footprint-lens view FILE`` passes) or in ``FOOTPRINT_LENS_OPEN`` (several
joined by ``os.pathsep``); the first of them is what a new session opens.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# Inside the package, so the wheel's `footprint-lens view` opens on them too.
SAMPLE_DIR = Path(__file__).resolve().parent / "app" / "sample_runs"
SUFFIXES = (".json.gz", ".json")
# An Agent with tools, one of which fails: a first-time user sees a real run at once.
DEFAULT_SAMPLE = "agent-refund-multi-tools-error"
OPEN_FLAG, OPEN_ENV = "--open", "FOOTPRINT_LENS_OPEN"


def opened_files(argv: list[str] | None = None,
                 environ: dict[str, str] | None = None) -> dict[str, Path]:
    """Name → file for each file the operator started Lens with, command line
    first; a name is the file name without ``.json``/``.json.gz``, numbered when
    two files share one. A path that is not a file now is left out (the view
    command refuses one before the server starts)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument(OPEN_FLAG, action="append", default=[])
    known, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    env = (os.environ if environ is None else environ).get(OPEN_ENV, "")
    found: dict[str, Path] = {}
    for raw in list(known.open) + [p for p in env.split(os.pathsep) if p]:
        path = Path(raw).expanduser().resolve()
        if path in found.values() or not path.is_file():
            continue
        base = _run_name(path.name)
        name, n = base, 2
        while name in found:
            name, n = f"{base} ({n})", n + 1
        found[name] = path
    return found


def _run_name(file_name: str) -> str:
    for suffix in SUFFIXES:
        if file_name.endswith(suffix) and len(file_name) > len(suffix):
            return file_name[: -len(suffix)]
    return file_name


def sample_catalog(directory: Path = SAMPLE_DIR) -> dict[str, Path]:
    """Run name → file: the operator's files (:func:`opened_files`), then the
    samples of ``directory`` (file name without ``.json``/``.json.gz``) sorted
    by name; a sample whose name an operator's file took is not offered."""
    found: dict[str, Path] = dict(opened_files())
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return found
    for file_name in names:
        for suffix in SUFFIXES:
            if file_name.endswith(suffix) and (directory / file_name).is_file():
                found.setdefault(file_name[: -len(suffix)], directory / file_name)
                break
    return found


def default_sample(catalog: dict[str, Path]) -> str | None:
    """What a new session opens: the operator's first file, else the default sample."""
    first_opened = next(iter(opened_files()), None)
    if first_opened in catalog:
        return first_opened
    if DEFAULT_SAMPLE in catalog:
        return DEFAULT_SAMPLE
    return next(iter(catalog), None)

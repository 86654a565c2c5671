"""The sample runs shipped in ``sample_runs/``: an allow-list, never a path.

A link's ``?run=`` is matched against the names listed here, built from the
directory listing, so no text from a URL ever becomes a file path.
"""

from __future__ import annotations

import os
from pathlib import Path

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_runs"
SUFFIXES = (".json.gz", ".json")
# An Agent with tools, one of which fails: a first-time user sees a real run at once.
DEFAULT_SAMPLE = "agent-refund-multi-tools-error"


def sample_catalog(directory: Path = SAMPLE_DIR) -> dict[str, Path]:
    """Sample name (file name without ``.json``/``.json.gz``) → file, sorted by name."""
    found: dict[str, Path] = {}
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return {}
    for file_name in names:
        for suffix in SUFFIXES:
            if file_name.endswith(suffix) and (directory / file_name).is_file():
                found.setdefault(file_name[: -len(suffix)], directory / file_name)
                break
    return found


def default_sample(catalog: dict[str, Path]) -> str | None:
    if DEFAULT_SAMPLE in catalog:
        return DEFAULT_SAMPLE
    return next(iter(catalog), None)

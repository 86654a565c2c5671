"""Open a run file of a configured archive folder in the run page.

An archive run is chosen by (folder label, path relative to the folder); the
label maps to a configured folder (``lens_ui/archive_config.py``) and the path
must resolve inside it, so nothing from the browser can name another file.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from lens_ui.archive_config import archive_folders
from lens_ui.runs import ARCHIVE, RunChoice, digest_of


def archive_choice(label: str, file: str) -> tuple[RunChoice, bytes]:
    """The run ``file`` of folder ``label`` and its bytes; KeyError for a label
    that is not configured or a path outside its folder."""
    path = _inside(label, file)
    stat = path.stat()
    data = _file_bytes(str(path), stat.st_size, stat.st_mtime_ns)
    return RunChoice(ARCHIVE, f"{label}/{file}", digest_of(data)), data


def archive_bytes(choice: RunChoice) -> bytes | None:
    """The bytes of an archive choice, or None when the file is gone or changed
    since it was chosen (the open run is the bytes that were chosen)."""
    label, _, file = choice.name.partition("/")
    try:
        fresh, data = archive_choice(label, file)
    except (KeyError, OSError):
        return None
    return data if fresh.digest == choice.digest else None


def _inside(label: str, file: str) -> Path:
    folder = archive_folders()[label]
    path = (folder / file).resolve()
    if folder not in path.parents or not path.is_file():
        raise KeyError(file)
    return path


@st.cache_resource(max_entries=8, show_spinner=False)
def _file_bytes(path: str, size: int, mtime_ns: int) -> bytes:
    return Path(path).read_bytes()

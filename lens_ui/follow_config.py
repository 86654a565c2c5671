"""Which folder the Follow page lists: set by the operator, never in the browser.

``LENS_FOLLOW_DIR`` names the folder (several joined by ``os.pathsep``) where
agentfootprint writes while runs go on: ``fileObservability`` streams
(``.ndjson``) and the recordings or envelopes a file sink writes at the end.
The page names each folder by a label (its base name) and only ever maps a
label back to a folder; no text from the browser becomes a path.

``LENS_FOLLOW_IDLE_S`` (default :data:`lens.follow.IDLE_SECONDS`) is how long a
file may go without growing, its run's end unwritten, before the page says the
run stopped without an end (the writer flushes every second while events come;
a model or tool call longer than this reads as stopped until its next event).
"""

from __future__ import annotations

import os
from pathlib import Path

from archive.limits import setting
from lens.follow import IDLE_SECONDS
from lens_ui.archive_config import labelled_folders

ENV_FOLLOW = "LENS_FOLLOW_DIR"
ENV_IDLE = "LENS_FOLLOW_IDLE_S"


def follow_idle_seconds() -> float:
    return setting(ENV_IDLE, IDLE_SECONDS)


def follow_folders(environ: dict[str, str] | None = None) -> dict[str, Path]:
    """Label → folder, in the order configured."""
    env = (os.environ if environ is None else environ).get(ENV_FOLLOW, "")
    return labelled_folders([p for p in env.split(os.pathsep) if p.strip()])

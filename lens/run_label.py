"""A one-line label that tells two uploaded runs apart.

Every recording file is called ``recording.json`` or ``envelope.json``, so
the file name alone says little. The label adds what the recording says
about itself (its run id, and the name of its root composition or agent),
the start of the file's sha256 and the time of upload:
``recording.json · run r-17 · Launch committee · 3f2a9c1b · 14:02:31``.
Recording text in it is clipped and put on one line before it is used.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from recorders.evidence.build import NOT_RECORDED
from lens.run_facts import root_name
from lens.text import one_line

if TYPE_CHECKING:
    from lens.file_runs import RunInFile

SHORT_DIGEST = 8
_NAME_CHARS = 40


def upload_label(file_name: str, run: Any, digest: str, uploaded_at: float) -> str:
    """``file · run <id> · <root> · <digest start> · <time>`` (parts not recorded are left out)."""
    parts = [_short(file_name) or "unnamed file"]
    run_id = getattr(run, "run_id", None)
    if isinstance(run_id, str) and run_id and run_id not in ("unknown recording", NOT_RECORDED):
        parts.append("run " + _short(run_id))
    name = root_name(run.recording)
    if name:
        parts.append(_short(name))
    parts.append(digest[:SHORT_DIGEST])
    parts.append(time.strftime("%H:%M:%S", time.localtime(uploaded_at)))
    return "⬆ " + " · ".join(parts)


def run_words(source_words: str, run: "RunInFile", digest: str) -> str:
    """A run in its own words, for a list of runs to compare: ``“What is…” ·
    weather-desk · 14:02:31 UTC · uploaded file · 3f2a9c1b`` (what the run
    records of its user message, agent and start, then where it comes from and
    the file's digest start, which tells two runs of the same words apart)."""
    parts = []
    if run.first_message:
        parts.append(f"“{_short(run.first_message)}”")
    if run.agent:
        parts.append(_short(run.agent))
    if run.started_ms is not None:
        parts.append(time.strftime("%H:%M:%S UTC", time.gmtime(run.started_ms / 1000)))
    if not parts and run.run_id:
        parts.append("run " + _short(run.run_id))
    parts.append(source_words)
    parts.append(digest[:SHORT_DIGEST])
    return " · ".join(parts)


def _short(text: str) -> str:
    # Clip before one_line looks at it: a name may be megabytes long.
    return one_line(text[: _NAME_CHARS * 4], _NAME_CHARS)

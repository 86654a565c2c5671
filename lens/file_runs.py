"""The runs of a file that holds several, each told apart by its own words.

An event stream may hold several runs (one ``meta.runId`` each), a bug report
several conversations. To pick one, a person needs what the run says about
itself: its id, its agent (or root composition), the first thing the user
asked, and when it started. :func:`runs_in_file` reads those from the loaded
runs (:func:`lens.run_facts.run_identity`), in file order, with how a link
names each (``lens.link.run_selectors``).
Recording text is clipped and put on one line before it is used.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

from recorders.loading import Recording
from lens.link import run_selectors
from lens.run_facts import run_identity
from lens.text import one_line

_ID_CHARS, _NAME_CHARS, _MESSAGE_CHARS = 40, 40, 60


@dataclass(frozen=True)
class RunInFile:
    index: int  # place in the file, from 0
    selector: str | None  # how a link names it (None for a file's only run)
    run_id: str | None
    agent: str | None
    first_message: str | None
    started_ms: float | None  # wall-clock milliseconds of its first event

    def words(self, of: int | None = None) -> str:
        """``run 2 · r-17 · weather-desk · “What is…” · 14:02:31 UTC`` (what is
        recorded; ``run 2 of 3`` when given the file's count of runs)."""
        parts = [f"run {self.index + 1}" + ("" if of is None else f" of {of}")]
        if self.run_id:
            parts.append(_clip(self.run_id, _ID_CHARS))
        if self.agent:
            parts.append(_clip(self.agent, _NAME_CHARS))
        if self.first_message:
            parts.append(f"“{_clip(self.first_message, _MESSAGE_CHARS)}”")
        if self.started_ms is not None:
            parts.append(time.strftime("%H:%M:%S UTC", time.gmtime(self.started_ms / 1000)))
        return " · ".join(parts)


def runs_in_file(runs: Sequence[Recording]) -> list[RunInFile]:
    """Each loaded run of a file in its own words (:func:`lens.run_facts.run_identity`,
    the readers every page, command and the archive share)."""
    identities = [run_identity(run) for run in runs]
    selectors = run_selectors([identity.run_id for identity in identities])
    return [RunInFile(index, selectors[index], identity.run_id, identity.agent,
                      identity.first_message, identity.started_ms)
            for index, identity in enumerate(identities)]


def _clip(text: str, chars: int) -> str:
    # Clip before one_line looks at it: a recorded text may be megabytes long.
    return one_line(text[: chars * 4], chars)

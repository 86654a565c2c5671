"""The runs of a file that holds several, each told apart by its own words.

An event stream may hold several runs (one ``meta.runId`` each), a bug report
several conversations. To pick one, a person needs what the run says about
itself: its id, its agent (or root composition), the first thing the user
asked, and when it started. :func:`runs_in_file` reads those from the loaded
runs, in file order, with how a link names each (``lens.link.run_selectors``).
Recording text is clipped and put on one line before it is used.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

from recorders.catalogue import AGENT_TURN_START
from recorders.loading import Recording
from recorders.values import is_number
from lens.link import run_selectors
from lens.run_label import root_name
from lens.text import one_line

_LOOKED_AT = 200  # the first user message comes among the first typed events
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
    ids = [own_run_id(run) for run in runs]
    selectors = run_selectors(ids)
    return [RunInFile(index, selectors[index], ids[index], root_name(run),
                      first_user_message(run), started_ms(run))
            for index, run in enumerate(runs)]


def own_run_id(run: Recording) -> str | None:
    """The run's id as the file says it: the envelope's, else its typed events',
    else the engine snapshot's; None when none is recorded."""
    info = run.run_info or {}
    if isinstance(info.get("runId"), str) and info["runId"]:
        return info["runId"]
    if run.typed_run_ids:
        return run.typed_run_ids[0]
    return run.snapshot_run_id


def first_user_message(run: Recording) -> str | None:
    for event in run.typed_events[:_LOOKED_AT]:
        if isinstance(event, dict) and event.get("type") == AGENT_TURN_START:
            payload = event.get("payload")
            prompt = payload.get("userPrompt") if isinstance(payload, dict) else None
            if isinstance(prompt, str) and prompt.strip():
                return prompt
    return None


def started_ms(run: Recording) -> float | None:
    for event in run.typed_events[:_LOOKED_AT]:
        meta = event.get("meta") if isinstance(event, dict) else None
        wall = meta.get("wallClockMs") if isinstance(meta, dict) else None
        if is_number(wall) and 0 <= wall < 1e14:  # a time gmtime can show
            return float(wall)
    return None


def _clip(text: str, chars: int) -> str:
    # Clip before one_line looks at it: a recorded text may be megabytes long.
    return one_line(text[: chars * 4], chars)

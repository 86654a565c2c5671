"""RunIdObserver: notice when events start belonging to a different run."""

from __future__ import annotations

from typing import Callable


class RunIdObserver:
    """Owns the last run id seen; calls ``on_new_run`` when a different one appears.

    A missing or empty id is ignored; the first id seen is only remembered.
    Does not own what a new run resets: that is the callback's business.
    """

    def __init__(self, on_new_run: Callable[[], None]) -> None:
        self._on_new_run = on_new_run
        self._last_run_id: str | None = None

    def observe(self, run_id: str | None) -> None:
        if not run_id:
            return
        if self._last_run_id is None:
            self._last_run_id = run_id
        elif run_id != self._last_run_id:
            self._on_new_run()
            self._last_run_id = run_id

    def reset(self) -> None:
        self._last_run_id = None

"""What a follower knows of a file at one poll, as one typed value.

:meth:`lens.follow.FollowedFile.summary` returns a :class:`FollowSummary`; the
command line prints :meth:`FollowSummary.to_json` (one JSON line each time it
changes), and the Follow page reads its fields. Equal summaries mean nothing
new to print: every field is a value, none changes by itself with time.

Owns: the summary's fields and their JSON spelling. Does not own: how they are
found (``lens/follow.py``) or how they are shown (``lens_cli/follow_command.py``,
``lens_ui/follow_page.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FollowSummary:
    """The file followed, the status of the run being written, its counts so
    far, the calls still open, and the headline of its newest likely cause."""

    file: str                  # the file as messages name it
    kind: str                  # "event-stream", or a whole file's kind
    status: str                # one of lens.follow.STATUSES
    run_id: str | None = None  # the run being written (the newest event's)
    runs: int = 0              # runs seen in the file so far
    typed_events: int = 0      # events of the run being written
    model_calls: int = 0
    tool_calls: int = 0
    failed_tool_calls: int = 0
    open_calls: tuple[str, ...] = ()  # started and not ended, named
    newest_cause: str | None = None
    # Events read from the whole stream, every run's (a whole file: not counted apart).
    events_in_file: int | None = None
    unfinished_line: str | None = None  # the sentence on a line held until its newline
    notes: tuple[str, ...] = ()         # rotations, rewrites, cut lines

    def to_json(self) -> dict[str, Any]:
        """The summary in the command line's camelCase keys; the optional
        ones only when they say something."""
        out: dict[str, Any] = {
            "file": self.file, "kind": self.kind, "status": self.status,
            "runId": self.run_id, "runs": self.runs, "typedEvents": self.typed_events}
        if self.events_in_file is not None:
            out["eventsInFile"] = self.events_in_file
        out.update(modelCalls=self.model_calls, toolCalls=self.tool_calls,
                   failedToolCalls=self.failed_tool_calls, openCalls=list(self.open_calls),
                   newestCause=self.newest_cause)
        if self.unfinished_line:
            out["unfinishedLine"] = self.unfinished_line
        if self.notes:
            out["notes"] = list(self.notes)
        return out

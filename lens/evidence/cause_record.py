"""The likely-cause record and its severities, shared by every cause detector.

A leaf module: :mod:`lens.evidence.causes` and the detectors beside it
(:mod:`lens.evidence.ungrounded`, :mod:`lens.evidence.memory_repeated`, ...)
all build :class:`LikelyCause` records, so the record lives below all of
them and none imports another to get it.
"""

from __future__ import annotations

from dataclasses import dataclass

from lens.evidence.nav import Nav
from lens.text import DisplayText, display_text

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class LikelyCause:
    """One fact that may explain a wrong answer, and where to see it.

    Owns the words a person reads (kind, headline, why), the detail one click
    down, the link to its step and the typed events it rests on; does not own
    how any cause is found (the detectors) or their order (``likely_causes``)."""

    kind: str                 # our words: "failed tool", "provider error", ...
    severity: str             # ERROR | WARNING
    headline: str             # may hold recording names: show as text
    why: str                  # one line; may hold recording names: show as text
    detail: DisplayText | None  # the error text or payload, when recorded
    nav: Nav | None
    events: tuple[int, ...] = ()  # typed indices (positions in ``events``) it rests on
    # What it is about, as recorded (a tool, a provider, a skill, a check's
    # target, a slot); None when nothing names one. Causes across runs group by it.
    subject: str | None = None
    # The model call whose answer is this cause's evidence (its output quoted
    # or judged), None when it rests on no answer: where the cause's values
    # came from is then asked of the state key holding that output
    # (:mod:`lens.cause_lineage`), only for the causes shown.
    answer_call: int | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR


def event_detail(event: object) -> DisplayText:
    """A cause's detail when it rests on one typed event: its type name and
    payload as recorded, the words one click below the headline."""
    fields = event if isinstance(event, dict) else {}
    return display_text({"type": fields.get("type"), "payload": fields.get("payload")})

"""CandidateAnswerBuffer: the leaf exit that may turn out to be the run's answer."""

from __future__ import annotations

from typing import Generic, NamedTuple, TypeVar

Frame = TypeVar("Frame")


class CandidateAnswer(NamedTuple, Generic[Frame]):
    """A leaf exit: its frame, when it exited, and the stage it exited from.
    A named tuple, as one is built for every leaf exit."""

    frame: Frame
    ts_ms: float
    runtime_stage_id: str


class CandidateAnswerBuffer(Generic[Frame]):
    """Owns one pending ``answers`` candidate: the latest leaf exit.

    Every leaf exit replaces the candidate; the run's end flushes it, so only
    the last leaf to exit answers the user.

    Does not own: the decision of what is a leaf, the step it becomes, or the
    run boundary that triggers the flush.
    """

    def __init__(self) -> None:
        self._candidate: CandidateAnswer[Frame] | None = None

    def set(self, frame: Frame, ts_ms: float, runtime_stage_id: str) -> None:
        self._candidate = CandidateAnswer(frame, ts_ms, runtime_stage_id)

    def flush(self) -> CandidateAnswer[Frame] | None:
        """Return the candidate (or None) and empty the buffer."""
        candidate, self._candidate = self._candidate, None
        return candidate

    def clear(self) -> None:
        self._candidate = None

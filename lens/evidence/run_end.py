"""How the shown run's last moments are recorded: its answer, its root's end, a pause.

The framework's verdicts (:class:`recorders.evidence.Finding`) say why a run
crashed or stopped; what they do not say is whether the run's root ever
ended, what it returned, and whether it is still waiting on a person. Those
come from a few event types of the run the steps show (its run ids, from
:func:`recorders.evidence.run_groups`), read in one pass by
:func:`read_run_end`, and from the boundary log's ``run.entry``/``run.exit``.

The answer is what the run returned, most direct record first: the boundary
log's ``run.exit`` text (the runner's return value, a merged Parallel's
included); else the root agent's last ``agent.turn_end`` content (a root
Parallel's branches each report one: all of them, said so); else the final
model call's output, when that call answered.

Owns: reading those facts. Does not own: deciding how the run ended
(:mod:`lens.evidence.outcome`), or the run's identity (:mod:`lens.run_facts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from recorders import boundary_names
from recorders import catalogue as cat
from recorders.evidence import EvidenceIndex
from recorders.evidence.records import CONSUMER_SCOPE
from recorders.loading import Recording

PARALLEL = "Parallel"  # composition.enter kind of a Parallel
# Said before a root Parallel's branch answers when the merged answer is not recorded.
BRANCH_ANSWERS_NOTE = "[the merged answer is not recorded; each branch's answer follows]"


@dataclass(frozen=True)
class PendingPause:
    """A ``pause.request`` no ``pause.resume`` followed: what it waits on."""

    event_index: int
    tool: str | None  # the tool call it paused before, when named
    question: str | None  # the question put to the person, when recorded
    check_in: bool  # a check-in (consent with an evidence pack), not a plain question


@dataclass(frozen=True)
class RunEnd:
    """What the shown run's recording says of its end (see the module doc)."""

    answer: str | None
    root_kind: str | None  # the root composition's kind (Sequence, Parallel…), None for an agent
    root_started: bool  # a root turn, composition or boundary run started
    root_ended: bool  # ... and its end is recorded
    thrown: str | None  # the boundary log's run.exit error, when the run threw
    pause: PendingPause | None
    # The pauses a person answered and the run went on after (a resume), in order.
    resumed: tuple[PendingPause, ...] = ()


def read_run_end(recording: Recording, index: EvidenceIndex,
                 run_ids: Iterable[str] = ()) -> RunEnd:
    """The end facts of the run of ``run_ids`` (every run's events when empty)."""
    walk = _Walk(frozenset(run_ids))
    for position, event in enumerate(recording.typed_events):
        if isinstance(event, dict):
            walk.see(position, event)
    entry, exit_ = _root_boundaries(recording.boundary_events)
    exit_payload = exit_.get("payload") if exit_ is not None else None
    thrown = exit_payload.get("error") if isinstance(exit_payload, dict) else None
    # The typed stream says more of an end than the boundary log (which holds
    # only the last run), so it is trusted when it saw the root start.
    started = walk.root_opened or entry is not None
    ended = walk.root_closed if walk.root_opened else exit_ is not None
    return RunEnd(answer=_answer(walk, exit_payload, index, walk.run_ids),
                  root_kind=walk.root_kind, root_started=started, root_ended=ended,
                  thrown=_text(thrown) if thrown is not None else None,
                  pause=walk.pause, resumed=walk.resumed_within())


class _Walk:
    """The pass over the typed events; see :class:`RunEnd` for what it keeps."""

    def __init__(self, run_ids: frozenset[str]) -> None:
        self.run_ids = run_ids
        self.root_kind: str | None = None
        self.root_id: Any = None
        self.root_opened = False
        self.root_closed = False
        self.open_turns = 0  # root agent turns started and not ended
        self.turn_answer: str | None = None
        self.branch_answers: list[str] = []
        self.pause: PendingPause | None = None
        self.resumes: list[tuple[PendingPause, int]] = []  # (the pause, its resume's position)
        self.first_own: int | None = None  # the run's own first and last events
        self.last_own: int | None = None

    def resumed_within(self) -> tuple[PendingPause, ...]:
        """The pauses resumed inside this run: it had started before the
        pause and went on after the resume (a pause of another run is not its)."""
        if self.first_own is None or self.last_own is None:
            return ()
        return tuple(pause for pause, at in self.resumes
                     if self.first_own < pause.event_index and at < self.last_own)

    def see(self, position: int, event: dict) -> None:
        kind = event.get("type")
        payload = event.get("payload")
        payload = payload if isinstance(payload, dict) else {}
        if kind == cat.PAUSE_REQUEST:
            asked = payload.get("questionPayload")
            asked = asked if isinstance(asked, dict) else {}
            self.pause = PendingPause(position, _text(asked.get("toolName")),
                                      _text(asked.get("question")), "checkIn" in asked)
            return
        if kind == cat.PAUSE_RESUME:
            if self.pause is not None:
                self.resumes.append((self.pause, position))
            self.pause = None
            return
        meta = event.get("meta")
        if not isinstance(meta, dict) or not self._ours(meta.get("runId")):
            return
        if meta.get("runId") != CONSUMER_SCOPE:
            if self.first_own is None:
                self.first_own = position
            self.last_own = position
        path = meta.get("compositionPath")
        at_root = isinstance(path, list) and len(path) <= 1
        if not at_root:
            return
        if kind == cat.COMPOSITION_ENTER and not self.root_opened:
            self.root_kind = _text(payload.get("kind"))
            self.root_id = payload.get("id")
            self.root_opened = True
        elif kind == cat.COMPOSITION_EXIT and self.root_kind is not None:
            # A composition nested in the root reports under the root's path too.
            if payload.get("kind") == self.root_kind and payload.get("id") == self.root_id:
                self.root_closed = True
        elif kind == cat.AGENT_TURN_START and self.root_kind is None:
            self.root_opened = True
            self.open_turns += 1
            self.root_closed = False
        elif kind == cat.AGENT_TURN_END:
            answer = _text(payload.get("finalContent"))
            if self.root_kind == PARALLEL:
                if answer is not None:  # a branch's agent reports under the Parallel's path
                    self.branch_answers.append(answer)
            elif self.root_kind is None:
                self.open_turns = max(0, self.open_turns - 1)
                self.root_closed = self.open_turns == 0
                self.turn_answer = answer
            else:
                self.turn_answer = answer

    def _ours(self, run_id: Any) -> bool:
        return not self.run_ids or run_id in self.run_ids or run_id == CONSUMER_SCOPE


def _answer(walk: _Walk, exit_payload: Any, index: EvidenceIndex,
            run_ids: frozenset[str]) -> str | None:
    if isinstance(exit_payload, str):
        return exit_payload
    if walk.root_kind == PARALLEL:
        if walk.branch_answers:
            return f"{BRANCH_ANSWERS_NOTE}\n\n" + "\n\n".join(walk.branch_answers)
        return None
    if walk.turn_answer is not None:
        return walk.turn_answer
    final = index.final_call()
    if (final is not None and final.is_final_answer and final.output is not None
            and (not run_ids or final.run_id in run_ids)):
        return final.output
    return None


def _root_boundaries(events: list[dict]) -> tuple[dict | None, dict | None]:
    """The root's ``run.entry`` and ``run.exit`` (the first entry, the last exit)."""
    entry = exit_ = None
    for event in events:
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == boundary_names.RUN_ENTRY and entry is None:
            entry = event
        elif kind == boundary_names.RUN_EXIT:
            exit_ = event
    return entry, exit_


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None

"""Where a cause's values came from: the stages whose writes made the answer it quotes.

A cause that rests on an answer (``LikelyCause.answer_call``: the answer is
not grounded, it repeats a contradicted memory, a verdict judged it) asks
the question behind every wrong answer: where did this come from? The answer
is the commit log's: the state key whose write holds the call's output
(:class:`lens.value_keys.ValueIndex`, by exact text, up to the call's
stage's last commit), and that key's backward slice -- the stages whose
writes fed it, through what they read -- in run order, each placed on its
step by :class:`lens.lineage_view.StagePlaces` (the one event-placement rule
of :mod:`lens.event_places`).

Where the recording cannot say (no commit log, the answer's call belongs to
an earlier run of the file, no key holds its text), one line says so; where
it can only say part (reads not recorded for some stages), the line says
that too. Pure: no widgets; the caller builds the lineage, the value index
and the stage places only when a cause it shows quotes an answer
(:class:`CameFromOfFile` does so from a file's bytes, for the exported page).

The words are this module's, wherever the line is shown (the first screen,
the Backtrack view and its report, the exported page): :attr:`CameFrom.label`,
:attr:`CameFrom.words` and :func:`stage_label` for a stage's button.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from recorders.evidence import EvidenceIndex
from lens.evidence.cause_record import LikelyCause
from lens.evidence.nav import unshown_part
from lens.lineage_view import RunLineage, StagePlaces, lineage_of
from lens.placement import execution_index
from lens.run import OpenRun
from lens.scopes import ROOT
from lens.step_places import StepPlace
from lens.text import one_line
from lens.value_keys import NOT_IN_STATE, OUTPUT, NoMatch, ValueIndex
from lens.wording import and_words

STAGES_NAMED = 6  # in the line; the rest are counted (all are in the CLI's list)
NO_COMMIT_LOG = ("The recording has no commit log, so it cannot say which stages the "
                 "answer's values came from.")
EARLIER_RUN = ("The answer belongs to an earlier run of the file, whose writes the file's one "
               "commit log (the last run's) does not hold: it cannot say which stages it "
               "came from.")
BEFORE_THE_PAUSE = ("The answer comes from the part of the run before its pause, whose writes "
                    "the file's one commit log (the part after the resume's) does not hold: it "
                    "cannot say which stages it came from.")
NO_KEY = ("No state key holds the answer's text, so the recording cannot say which stages "
          "it came from.")
NO_STAGE = ("The answer's stage has no commit in the commit log, so the recording cannot "
            "say which stages it came from.")
UNNAMED = "an unnamed stage"
STAGE_NAME_CHARS = 60  # of a stage's name on its button


@dataclass(frozen=True)
class CameFromStage:
    """One stage whose writes fed the answer; names are recording text."""

    stage_name: str | None
    runtime_stage_id: str
    place: StepPlace | None  # the step its events are shown at; None: no step shows it


@dataclass(frozen=True)
class CameFrom:
    """The stages a cause's answer came from, in run order, or why none are named.

    ``note`` (this module's words) is set when the recording cannot say, or
    can say only part; ``key`` is the state key traced (recording text)."""

    stages: tuple[CameFromStage, ...]
    key: str | None
    note: str | None

    @property
    def label(self) -> str:
        """The line's short form, stage names only: ``From Initialize, Context and CallLLM``."""
        if not self.stages:
            return self.note or NO_KEY
        names = list(dict.fromkeys(stage.stage_name or UNNAMED for stage in self.stages))
        return f"From {and_words(names)}"

    @property
    def words(self) -> str:
        """One line for a person: the stages by name in run order (a stage
        run several times, as a loop's model call, once, with its count and
        its last step), then any caveat."""
        if not self.stages:
            return self.note or NO_KEY
        runs: dict[str, list[CameFromStage]] = {}
        for stage in self.stages:
            runs.setdefault(stage.stage_name or UNNAMED, []).append(stage)
        named = [_named(name, alike) for name, alike in list(runs.items())[:STAGES_NAMED]]
        more = len(runs) - len(named)
        if more:
            named.append(f"{more} more stage{'s' if more != 1 else ''}")
        line = f"Its values came from {and_words(named)}."
        return f"{line} {self.note}" if self.note else line


def _named(name: str, alike: Sequence[CameFromStage]) -> str:
    """``CallLLM (step 2)``, ``CallLLM (5 times, the last at step 10)``, ``Initialize``."""
    at = step_at(alike[-1].place)
    if len(alike) == 1:
        return f"{name} ({at})" if at else name
    times = f"{len(alike)} times"
    return f"{name} ({times}, the last at {at})" if at else f"{name} ({times})"


def step_at(place: StepPlace | None) -> str | None:
    """``step 4``, ``step 2 in ▸ Triage`` (the scope's name is recording text)."""
    if place is None:
        return None
    inside = f" in ▸ {place.scope_name}" if place.path != ROOT and place.scope_name else ""
    return f"step {place.index + 1}{inside}"


def stage_label(stage: CameFromStage) -> str:
    """A stage's button: ``CallLLM · step 2``, ``Initialize · no step`` (the name is recording text)."""
    name = one_line(stage.stage_name or UNNAMED, STAGE_NAME_CHARS)
    return f"{name} · {step_at(stage.place) or 'no step'}"


def quotes_answer(cause: LikelyCause) -> bool:
    """Whether the cause rests on an answer, so its values' stages can be asked."""
    return cause.answer_call is not None


def came_from(cause: LikelyCause, index: EvidenceIndex, lineage: RunLineage | None,
              values: ValueIndex | None, places: StagePlaces | None) -> CameFrom | None:
    """Where the answer ``cause`` rests on came from; None when it rests on none.
    ``lineage`` None: the recording has no commit log (``values`` and
    ``places`` are then not needed)."""
    if cause.answer_call is None:
        return None
    if lineage is None or values is None or places is None:
        return CameFrom((), None, NO_COMMIT_LOG)
    call = index.calls[cause.answer_call]
    if index.before_the_resume(call.run_id):  # the snapshot holds the resumed part only
        return CameFrom((), None, BEFORE_THE_PAUSE)
    if call.in_boundary_log is False or unshown_part(index, call.run_id, "this call"):
        return CameFrom((), None, EARLIER_RUN)
    found = values.key_holding(call.output, call.runtime_stage_id, OUTPUT)
    if isinstance(found, NoMatch):
        return CameFrom((), None, NO_KEY if found.why == NOT_IN_STATE else NO_STAGE)
    back = lineage.lineage.backward(found.key)
    stages = [CameFromStage(_text(node.get("stageName")), rid, places.step_of(rid))
              for rid, node in (back.get("nodes") or {}).items() if isinstance(rid, str)]
    stages.sort(key=_run_order)
    return CameFrom(tuple(stages), found.key, _caveat(back, stages))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _run_order(stage: CameFromStage) -> tuple[int, str]:
    # The engine counts stages up as they run (``name#N``): N is run order.
    number = execution_index(stage.runtime_stage_id)
    return (-1 if number is None else number, stage.runtime_stage_id)


def _caveat(back: dict, stages: Sequence[CameFromStage]) -> str | None:
    """What the chain cannot say: stages whose reads were not recorded, cut
    chains, stages no step shows."""
    said = []
    coverage = back.get("readsCoverage") or {}
    steps, with_reads = coverage.get("steps", 0), coverage.get("stepsWithReads", 0)
    if with_reads == 0:
        said.append("Reads were not recorded, so only the stage that wrote the answer is known")
    elif with_reads < steps:
        said.append(f"Reads were recorded for {with_reads} of {steps} stages, so earlier "
                    "stages may be missing")
    if back.get("truncated"):
        said.append("the chain is cut short by its size limit")
    unplaced = list(dict.fromkeys(stage.stage_name or UNNAMED for stage in stages
                                  if stage.place is None))
    if unplaced:
        said.append(f"{and_words(unplaced)} {'has' if len(unplaced) == 1 else 'have'} no "
                    f"step: no event of the run shows {'it' if len(unplaced) == 1 else 'them'}")
    if not said:
        return None
    return "; ".join(said)[:1].upper() + "; ".join(said)[1:] + "."


CameFromOf = Callable[[LikelyCause], "CameFrom | None"]


class CameFromOfFile:
    """Where each cause's answer came from, for an open run and its file's
    bytes (the loader keeps no commit log): the bytes are parsed again for the
    snapshot, once, only when a cause resting on an answer is first asked of."""

    def __init__(self, run: OpenRun, data: bytes, profile: str) -> None:
        self._run, self._data, self._profile = run, data, profile
        self._built: tuple[RunLineage | None, ValueIndex | None, StagePlaces | None] | None = None

    def __call__(self, cause: LikelyCause) -> CameFrom | None:
        if not quotes_answer(cause):
            return None
        if self._built is None:
            lineage = lineage_of(self._data)
            self._built = (lineage, None, None) if lineage is None else (
                lineage, ValueIndex(lineage.lineage), StagePlaces(self._run, self._profile))
        return came_from(cause, self._run.evidence, *self._built)


@dataclass(frozen=True)
class ListedCause:
    """A likely cause as the Backtrack view lists it: the cause, and where its
    answer came from (None for a cause resting on no answer)."""

    cause: LikelyCause
    came_from: CameFrom | None


def listed_causes(causes: Sequence[LikelyCause],
                  came_from_of: CameFromOf | None) -> tuple[ListedCause, ...]:
    """Every cause with where its answer came from, asked only of the causes
    resting on an answer (asking reads the commit log)."""
    return tuple(ListedCause(cause, came_from_of(cause) if came_from_of is not None
                             and quotes_answer(cause) else None) for cause in causes)

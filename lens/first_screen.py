"""The first screen of a run: how it ended, then what most likely explains it.

Someone opening a run asks "did it answer, and if not, why?" before they
scrub a single step. The first screen answers in that order: one sentence of
how the run ended, then the top likely causes (up to :data:`TOP_CAUSES`),
each with the step that shows it; the workspace follows.

Two questions are kept apart, each labelled with what it is about: the
*file's* health (does it hold the whole recording, with no gaps) and the
*run's* ending (did it answer, stop, crash). A file can be whole while the
run crashed, so neither chip speaks for the other, and nothing is green
while the run crashed or stopped or its top cause is an error.

Pure: built from the run's ending, its causes and a function that places a
link's position on a step; no Streamlit. The glue is ``lens_ui/header.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from lens.wording import plural
from lens.cause_lineage import CameFrom, CameFromOf
from lens.evidence.causes import LikelyCause
from lens.evidence.outcome import (ANSWERED_WITH_FALLBACK, ENDED_ANSWERED, ENDED_CRASHED,
                                   ENDED_PAUSED, ENDED_STOPPED, ENDED_UNFINISHED)
from lens.run import OpenRun
from lens.scopes import ROOT
from lens.step_places import StepPlace, step_words

TOP_CAUSES = 3

GREEN, ORANGE, RED, GRAY = "green", "orange", "red", "gray"
# What the run chip's colour is, by how the run ended; an answer is green only
# when nothing more is said against it (see :func:`run_chip`).
ENDED_COLOURS = {ENDED_ANSWERED: GREEN, ENDED_STOPPED: RED, ENDED_CRASHED: RED,
                 ENDED_PAUSED: GRAY, ENDED_UNFINISHED: ORANGE}
RUN_HELP = ("How the run ended: its answer, or what stopped it, from the framework's own "
            "verdicts and the recorded answer. Whether the file is whole is the other chip.")
FILE_HELP = ("Whether the file holds the whole recording: the recording says it completed "
             "and nothing is missing (gaps are listed in Run details). This says nothing of "
             "how the run went: that is the run chip.")


@dataclass(frozen=True)
class RunEnding:
    """How the run ended: ``ended`` is one of the run facts' words
    (answered, stopped, crashed, paused, unfinished); ``sentence`` says it
    for a person and may quote the recording (show it as text); ``caveat``
    qualifies an answer in our words ("with a fallback"), or None."""

    ended: str
    sentence: str
    caveat: str | None = None


@dataclass(frozen=True)
class Chip:
    """A coloured label; ``label`` and ``help`` are our words only (a badge is Markdown)."""

    label: str
    colour: str
    help: str


@dataclass(frozen=True)
class TopCause:
    """One of the first screen's causes. ``headline`` is recording text (show
    it as text); ``place`` is the step its link leads to (None: no step shows
    it, and ``where`` says why); ``where`` names that step ("step 4 of 9",
    "between steps 3 and 4 of 9", with the scope's name, recording text,
    when it is not the root)."""

    headline: str
    is_error: bool
    kind: str
    place: StepPlace | None
    where: str
    # The stages its answer's values came from (lens.cause_lineage), for a
    # cause resting on an answer; None for any other.
    came_from: CameFrom | None = None


@dataclass(frozen=True)
class FirstScreen:
    sentence: str  # recording text: show as text
    run_chip: Chip
    file_chip: Chip
    causes: tuple[TopCause, ...]
    more_causes: int  # beyond those shown (all of them are in Backtrack)


# ─── the run's ending ──────────────────────────────────────────────────

def run_ending(run: OpenRun) -> RunEnding:
    """How ``run`` ended, from its run facts' outcome (``run.facts.outcome``),
    which the archive's rows and the exported page read too."""
    outcome = run.facts.outcome
    return RunEnding(outcome.ended, outcome.sentence,
                     "with a fallback" if outcome.kind == ANSWERED_WITH_FALLBACK else None)


# ─── the chips ─────────────────────────────────────────────────────────


def run_chip(ending: RunEnding, top_cause_is_error: bool) -> Chip:
    """``Run: crashed``. An answer is green only with no caveat and no error
    as the top cause: green beside "the tool failed" read as "all is well"."""
    label = f"Run: {ending.ended}" + (f" {ending.caveat}" if ending.caveat else "")
    colour = ENDED_COLOURS.get(ending.ended, ORANGE)
    if colour == GREEN and (ending.caveat or top_cause_is_error):
        colour = ORANGE
    return Chip(label, colour, RUN_HELP)


def file_chip(complete: bool | None, gaps: int, run_is_green: bool) -> Chip:
    """``File: complete, no gaps``, ``File: incomplete, 2 gaps``… A whole file
    is green only beside a green run; beside any other ending it is grey, so
    no green chip sits next to a run that crashed or stopped."""
    gap_words = plural(gaps, "gap")
    if complete is False:
        return Chip("File: incomplete" + (f", {gap_words}" if gaps else ""), ORANGE, FILE_HELP)
    if gaps:
        return Chip(f"File: {gap_words}", ORANGE, FILE_HELP)
    return Chip("File: complete, no gaps", GREEN if run_is_green else GRAY, FILE_HELP)


# ─── the causes ────────────────────────────────────────────────────────


def top_causes(causes: Sequence[LikelyCause], place_of: Callable[[int], StepPlace | None],
               came_from_of: CameFromOf | None = None) -> tuple[TopCause, ...]:
    """The first :data:`TOP_CAUSES` causes (they come most likely first), each
    placed: ``place_of(position)`` is the step a link's position leads to;
    ``came_from_of(cause)`` where its answer came from, asked of the shown
    causes only (it reads the commit log)."""
    return tuple(_top_cause(cause, place_of, came_from_of) for cause in causes[:TOP_CAUSES])


def _top_cause(cause: LikelyCause, place_of: Callable[[int], StepPlace | None],
               came_from_of: CameFromOf | None) -> TopCause:
    came = came_from_of(cause) if came_from_of is not None else None
    nav = cause.nav
    place = place_of(nav.step) if nav is not None and nav.step is not None else None
    if place is None:
        why = nav.why_no_step if nav is not None and nav.why_no_step else "no step shows it"
        return TopCause(cause.headline, cause.is_error, cause.kind, None, f"no step: {why}",
                        came)
    where = step_words(place, nav.exact, nav.before)
    if place.path != ROOT:
        where += f" in ▸ {place.scope_name}"
    return TopCause(cause.headline, cause.is_error, cause.kind, place, where, came)


def first_screen(ending: RunEnding, causes: Sequence[LikelyCause],
                 place_of: Callable[[int], StepPlace | None], file_complete: bool | None,
                 file_gaps: int, came_from_of: CameFromOf | None = None) -> FirstScreen:
    """What the first screen says; ``causes`` are linked into the step list
    ``place_of`` reads (the root's, as ``footprint-lens causes`` links them)."""
    shown = top_causes(causes, place_of, came_from_of)
    run = run_chip(ending, bool(shown) and shown[0].is_error)
    return FirstScreen(ending.sentence, run, file_chip(file_complete, file_gaps, run.colour == GREEN),
                       shown, max(len(causes) - len(shown), 0))

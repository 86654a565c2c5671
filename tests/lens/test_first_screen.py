"""The first screen's view model: how the run ended, whether its file is whole,
and the top causes with their steps, on real family runs and on made-up causes."""

from __future__ import annotations

import pytest
from family_files import family_recording

from lens_cli.causes_command import cause_to_wire
from lens.evidence.causes import ERROR, WARNING, LikelyCause, likely_causes
from lens.evidence.nav import Nav
from lens.first_screen import (ENDED_ANSWERED, ENDED_CRASHED, ENDED_STOPPED, GREEN, TOP_CAUSES,
                               RunEnding, file_chip, first_screen, run_chip, run_ending,
                               top_causes)
from lens.run import OpenRun
from lens.scopes import ROOT
from lens.step_places import StepPlace, step_words
from recorders.loading import load_path

PROFILE = "lens"


def opened(case: str) -> OpenRun:
    return OpenRun(load_path(str(family_recording(case))))


def screen_of(run: OpenRun):
    """The first screen as the app builds it: causes linked into the root's step list."""
    route = run.projection(PROFILE).route
    causes = likely_causes(run.evidence, run.step_map(PROFILE, ROOT), hops=route.get_hops(),
                           trips=route.get_trips(), gaps=run.recording.gaps)
    scoped = run.scoped_steps(PROFILE, ROOT)
    screen = first_screen(run_ending(run), causes, scoped.place, run.recording.complete,
                          len(run.recording.gaps))
    return screen, causes


def cause(severity: str, step: int | None, exact: bool = True, headline: str = "it failed"):
    nav = Nav(step, exact, why_no_step=None if step is not None else "no step at or before it")
    return LikelyCause("failed tool", severity, headline, "why", None, nav)


@pytest.mark.parametrize("case", ["kyc-extractor-stuck-schema-fail-fast",
                                  "translation-desk-hub-outage-shadowed"])
def test_a_crashed_run_says_so_in_red_and_nothing_beside_it_is_green(case):
    screen, _ = screen_of(opened(case))
    assert screen.run_chip.label == f"Run: {ENDED_CRASHED}"
    assert screen.run_chip.colour == "red"
    assert screen.file_chip.colour != GREEN
    assert screen.file_chip.label.startswith("File: ")
    assert screen.sentence


@pytest.mark.parametrize("case", ["payments-permission-halt",
                                  "newsletter-loop-eval-below-threshold"])
def test_a_run_a_check_or_a_budget_ended_did_not_answer_and_is_not_green(case):
    screen, _ = screen_of(opened(case))
    # A permission halt throws: the run facts may call it stopped or crashed.
    assert screen.run_chip.label in (f"Run: {ENDED_STOPPED}", f"Run: {ENDED_CRASHED}")
    assert GREEN not in (screen.run_chip.colour, screen.file_chip.colour)


def test_the_top_causes_are_the_first_three_each_at_the_step_the_cli_names():
    run = opened("returns-bot-canned-after-provider-outage")
    screen, causes = screen_of(run)
    assert len(causes) > TOP_CAUSES  # the run has more than are shown
    assert len(screen.causes) == TOP_CAUSES
    assert screen.more_causes == len(causes) - TOP_CAUSES
    for shown, found in zip(screen.causes, causes):
        assert shown.headline == found.headline  # as recorded: the glue shows it as text
        wire = cause_to_wire(found, run, PROFILE, ROOT)["step"]
        assert wire is not None
        assert (list(shown.place.path), shown.place.index) == (wire["path"], wire["index"])
        count = len(run.scope(PROFILE, shown.place.path).steps)
        assert shown.where.startswith(f"step {wire['index'] + 1} of {count}")


def test_an_answered_run_is_green_only_when_its_top_cause_is_no_error():
    answered = RunEnding(ENDED_ANSWERED, "The run answered.")
    assert run_chip(answered, top_cause_is_error=False).colour == GREEN
    assert run_chip(answered, top_cause_is_error=True).colour != GREEN
    rescued = RunEnding(ENDED_ANSWERED, "The run answered.", caveat="with a fallback")
    assert run_chip(rescued, top_cause_is_error=False).colour != GREEN
    assert run_chip(rescued, False).label == "Run: answered with a fallback"
    # A failed tool leads the refund sample: the answer is not shown as all well.
    screen = first_screen(answered, [cause(ERROR, 0)], lambda p: StepPlace(ROOT, p, 4),
                          True, 0)
    assert GREEN not in (screen.run_chip.colour, screen.file_chip.colour)
    screen = first_screen(answered, [cause(WARNING, 0)], lambda p: StepPlace(ROOT, p, 4),
                          True, 0)
    assert (screen.run_chip.colour, screen.file_chip.colour) == (GREEN, GREEN)


def test_the_file_chip_speaks_of_the_file_only():
    assert file_chip(True, 0, run_is_green=True).label == "File: complete, no gaps"
    assert file_chip(None, 0, run_is_green=False).label == "File: complete, no gaps"
    assert file_chip(None, 0, run_is_green=False).colour != GREEN
    assert file_chip(False, 0, run_is_green=True).label == "File: incomplete"
    assert file_chip(False, 2, run_is_green=True).label == "File: incomplete, 2 gaps"
    assert file_chip(True, 1, run_is_green=True).label == "File: 1 gap"
    assert all(file_chip(complete, gaps, True).colour != GREEN
               for complete, gaps in ((False, 0), (True, 3)))


def test_a_cause_says_its_step_between_two_steps_or_why_it_has_none():
    places = {0: StepPlace(ROOT, 3, 9), 1: StepPlace(ROOT, 8, 9),
              2: StepPlace(("__root__", "body"), 1, 4)}
    shown = top_causes([cause(ERROR, 0), cause(ERROR, 0, exact=False),
                        cause(ERROR, 1, exact=False)], places.get)
    assert [c.where for c in shown] == ["step 4 of 9", "between steps 4 and 5 of 9",
                                        "after step 9 of 9, the last"]
    inner, none = top_causes([cause(WARNING, 2), cause(ERROR, None)], places.get)
    assert inner.where == "step 2 of 4 in ▸ body"
    assert none.place is None and none.where == "no step: no step at or before it"


def test_step_words_are_the_same_words_for_every_surface():
    assert step_words(StepPlace(ROOT, 0, 1)) == "step 1 of 1"
    assert step_words(StepPlace(ROOT, 2, 6), exact=False) == "between steps 3 and 4 of 6"

"""The step list evidence links reach from a scope: its own steps first, then
every other scope's, each step once, each position placed back in its scope."""

from __future__ import annotations

from lens_builders import PrefixProjection, step

from lens.scopes import ROOT, ScopeIndex
from lens.step_places import StepPlaces
from lens.evidence.nav import Nav
from lens.evidence.report import _step_cite
from recorders.run_step import renumber

USER = "actor:user"
PLAN = ("__root__", "plan")
REVIEW = ("__root__", "rev")
REVIEW_A = ("__root__", "rev", "a")



class OwnLevelProjection:
    """Each scope shows only the steps anchored exactly at it (as lens does for a Sequence)."""

    def __init__(self, steps):
        self.steps = steps

    def get_steps(self, path=None):
        return renumber([s for s in self.steps if s.anchor.subflow_path == tuple(path or ())])


SEQ = [
    step("sequential", "asks", (USER, "plan", "next", "asks"), rid="seq#1", ts=1),
    step("react", "user→llm", (USER, "llm", "actor-arrow", "user→llm"), path=PLAN,
         rid="plan/call-llm#2", ts=2),
    step("react", "llm→user", ("llm", USER, "actor-arrow", "llm→user"), path=PLAN,
         rid="plan/call-llm#2", ts=3),
    step("fork", "fork (1)", (USER, "rev/a", "fork-branch", "rev/a"), path=REVIEW,
         rid="rev/seed#3", ts=4),
    step("react", "user→llm", (USER, "llm", "actor-arrow", "user→llm"), path=REVIEW_A,
         rid="rev/a/call-llm#4", ts=5),
    step("sequential", "answers", ("rev", USER, "next", "answers"), rid="seq#9", ts=6),
]


def places(projection_type, steps=SEQ):
    return StepPlaces(ScopeIndex.build(projection_type(steps), steps))


def test_the_scope_on_screen_comes_first_so_its_positions_are_slider_positions():
    scoped = places(OwnLevelProjection).for_scope(PLAN)
    assert scoped.local_count == 2
    assert [s.label for s in scoped.steps[:2]] == ["user→llm", "llm→user"]
    assert [(p.path, p.index, p.count) for p in scoped.places[:2]] == [(PLAN, 0, 2), (PLAN, 1, 2)]
    assert scoped.is_local(1) and not scoped.is_local(2)


def test_every_other_scopes_steps_follow_each_placed_in_its_own_scope():
    scoped = places(OwnLevelProjection).for_scope(ROOT)
    assert len(scoped.steps) == len(SEQ)
    where = {s.anchor.runtime_stage_id + s.label: (p.path, p.index, p.count)
             for s, p in zip(scoped.steps, scoped.places)}
    assert where["rev/a/call-llm#4user→llm"] == (REVIEW_A, 0, 1)
    assert where["plan/call-llm#2llm→user"] == (PLAN, 1, 2)
    assert where["seq#9answers"] == (ROOT, 1, 2)


def test_a_step_shown_by_several_scopes_is_listed_once_in_the_first_that_shows_it():
    # Under a prefix projection the root shows every step (renumbered copies).
    all_places = places(PrefixProjection)
    assert len(all_places) == len(SEQ)
    scoped = all_places.for_scope(REVIEW_A)
    assert len(scoped.steps) == len(SEQ)
    assert scoped.places[0] == scoped.place(0)
    assert (scoped.places[0].path, scoped.places[0].index) == (REVIEW_A, 0)
    # The other copies of that step (at the root, in rev) are not listed again.
    labels = [(s.anchor.runtime_stage_id, s.label) for s in scoped.steps]
    assert labels.count(("rev/a/call-llm#4", "user→llm")) == 1


def test_the_list_for_a_scope_is_the_same_each_time_and_an_unknown_path_means_the_root():
    all_places = places(OwnLevelProjection)
    assert all_places.for_scope(PLAN) == all_places.for_scope(PLAN)
    assert all_places.for_scope(("__root__", "nowhere")).path == ROOT


def test_a_position_outside_the_list_has_no_place():
    scoped = places(OwnLevelProjection).for_scope(ROOT)
    assert scoped.place(len(SEQ)) is None
    assert scoped.place(-1) is None
    assert scoped.place(True) is None


def test_the_scope_name_is_the_path_below_the_root():
    scoped = places(OwnLevelProjection).for_scope(REVIEW_A)
    assert scoped.places[0].scope_name == "rev/a"
    root_place = next(p for p in scoped.places if p.path == ROOT)
    assert root_place.scope_name == ""


def test_the_report_cites_a_placed_step_by_number_count_and_quoted_scope():
    cite = _step_cite(Nav(4, True), SEQ, lambda position: (1, 1, "rev/a"))
    assert cite.startswith("step 1 of 1 in scope ` rev/a `")
    assert _step_cite(Nav(0, True), SEQ, lambda position: (1, 2, "")).startswith(
        "step 1 of 2 in scope root")
    # Without places, the step's own seq, as before.
    assert _step_cite(Nav(4, False), SEQ).startswith("step 0 ")
    assert "nearest step" in _step_cite(Nav(4, False), SEQ, lambda position: (1, 1, "rev/a"))

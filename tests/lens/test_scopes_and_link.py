"""Drill scopes, and reading a link."""

from __future__ import annotations

from lens_builders import PrefixProjection, step

from lens.link import Link, link_params, parse_link
from lens.scopes import ROOT, ScopeIndex, encode_path

USER = "actor:user"


def build(steps):
    return ScopeIndex.build(PrefixProjection(steps), steps)


SEQ = [
    step("sequential", "asks", (USER, "plan", "next", "asks"), ts=1),
    step("react", "user→llm", (USER, "stage:llm:plan/c#1", "actor-arrow", "user→llm"),
         path=("__root__", "plan", "sf-llm-call"), ts=2),
    step("fork", "fork (1)", (USER, "rev/a", "fork-branch", "rev/a"), path=("__root__", "rev"), ts=3),
    step("react", "user→llm", (USER, "stage:llm:rev/a/c#2", "actor-arrow", "user→llm"),
         path=("__root__", "rev", "a"), ts=4),
]


def test_children_are_the_scopes_one_level_down_in_order_of_first_step():
    scopes = build(SEQ)
    assert scopes.root().children == (("__root__", "plan"), ("__root__", "rev"))
    assert scopes.get(("__root__", "rev")).children == (("__root__", "rev", "a"),)


def test_a_wrapper_showing_exactly_its_parents_steps_is_not_a_scope():
    scopes = build(SEQ)
    # plan holds one step, and its sf-llm-call wrapper the very same one.
    assert ("__root__", "plan", "sf-llm-call") not in scopes
    assert scopes.get(("__root__", "plan")).children == ()


def test_lookups_and_breadcrumbs_use_the_link_form_of_a_path():
    scopes = build(SEQ)
    assert scopes.lookup("__root__/rev/a") == ("__root__", "rev", "a")
    assert scopes.lookup("__root__/nowhere") is None
    assert scopes.breadcrumb(("__root__", "rev", "a")) == [ROOT, ("__root__", "rev"),
                                                           ("__root__", "rev", "a")]
    assert encode_path(("__root__", "rev", "a")) == "__root__/rev/a"


def test_the_root_is_always_a_scope_even_without_steps():
    scopes = build([])
    assert scopes.root().steps == () and scopes.paths() == [ROOT]


def test_a_link_is_read_into_typed_fields():
    assert parse_link({"run": "x", "step": "7", "drill": "__root__/a", "profile": "lens"}) == \
        Link(run="x", step=7, drill="__root__/a", profile="lens")
    digest = "0123456789abcdef" * 4
    assert parse_link({"upload": digest}).upload == digest


def test_a_bad_step_is_flagged_not_guessed():
    for text in ("0", "-3", "7.5", "seven", "1" * 12, "²", "①", "٣", "３", " 3", "3\n"):
        link = parse_link({"step": text})
        assert link.step is None and link.bad_step, text


def test_repeated_and_oversized_values_are_dropped_and_named():
    repeated = parse_link({"run": ["a", "b"], "step": ["2"]})
    assert repeated.run is None and repeated.step == 2
    assert repeated.problems == ("The link gives run 2 times; ignored it.",)
    oversized = parse_link({"drill": "x" * 5000})
    assert oversized.drill is None and "longer than" in oversized.problems[0]


def test_link_params_leave_out_what_a_view_does_not_have():
    assert link_params(None, None, None, "lens") == {"profile": "lens"}
    assert link_params("s", 3, "__root__", "reference") == {
        "run": "s", "step": "3", "drill": "__root__", "profile": "reference"}

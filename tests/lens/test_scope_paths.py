"""Scope paths stay tuples; their text form is unambiguous, even when a subflow id holds "/"."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from lens.actors import actor_for
from lens.scopes import ROOT, Scope, ScopeIndex, decode_path, encode_path

segments = st.text(alphabet=st.sampled_from("ab/%2F5_-é"), max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(segments, min_size=1, max_size=5), st.lists(segments, min_size=1, max_size=5))
def test_two_different_paths_never_share_a_text(one, other):
    first, second = ("__root__", *one), ("__root__", *other)
    assert decode_path(encode_path(first)) == first
    assert (encode_path(first) == encode_path(second)) == (first == second)


def test_a_segment_with_a_slash_is_escaped_and_plain_paths_read_as_before():
    assert encode_path(("__root__", "step-reviewers/style")) == "__root__/step-reviewers%2Fstyle"
    assert encode_path(("__root__", "step-reviewers", "style")) == "__root__/step-reviewers/style"
    assert encode_path(("__root__", "100%")) == "__root__/100%25"


def index_of(*paths):
    return ScopeIndex({path: Scope(path, (), ()) for path in (ROOT, *paths)})


def test_lookup_reads_the_new_form_and_an_unambiguous_old_link():
    nested, named = ("__root__", "step-reviewers", "style"), ("__root__", "step-reviewers/style")
    both = index_of(("__root__", "step-reviewers"), nested, named)
    assert both.lookup("__root__/step-reviewers%2Fstyle") == named
    assert both.lookup("__root__/step-reviewers/style") == nested  # the text's own reading
    only_named = index_of(named)
    assert only_named.lookup("__root__/step-reviewers/style") == named  # an old link still works
    assert only_named.lookup("__root__/nowhere") is None


def test_a_subflow_id_with_a_slash_is_the_child_of_the_scope_viewed():
    nested, named = ("__root__", "step-reviewers", "style"), ("__root__", "step-reviewers/style")
    scopes = {ROOT, ("__root__", "step-reviewers"), nested, named}
    at_root = actor_for("step-reviewers/style", ROOT, scopes, is_branch=True)
    inside = actor_for("step-reviewers/style", ("__root__", "step-reviewers"), scopes,
                       is_branch=True)
    assert at_root.drill_path == named
    assert inside.drill_path == nested


def test_an_id_with_many_slashes_is_read_without_blowing_up():
    endpoint = "/".join("s" * 30)
    path = ("__root__", *endpoint.split("/"))
    assert actor_for(endpoint, ROOT, {ROOT, path}).drill_path == path

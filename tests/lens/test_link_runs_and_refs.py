"""Which run of a file a link names (``?runid=``), the follow folder's link, and
Compare references (``<kind>:<value>[#runid=<selector>]``)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from lens.link import (FOLLOW, RUN_ID, make_ref, parse_link, parse_ref, pick_run,
                       run_selectors, source_of)


def test_a_files_runs_are_named_by_their_ids_when_these_tell_them_apart():
    assert run_selectors(["r-1", "r-2"]) == ["r-1", "r-2"]
    assert pick_run(["r-1", "r-2"], "r-2") == 1
    assert pick_run(["r-1", "r-2"], None) == 0
    assert pick_run(["r-1", "r-2"], "r-3") is None


def test_runs_without_distinct_ids_are_named_by_their_place():
    for ids in (["r-1", "r-1"], ["r-1", None], ["", "r-2"], ["#2", "r-2"], ["a#runid=b", "c"]):
        assert run_selectors(ids) == ["#1", "#2"], ids
        assert pick_run(ids, "#2") == 1
        assert pick_run(ids, "#3") is None


def test_a_files_only_run_needs_no_name():
    assert run_selectors(["r-1"]) == [None]
    assert pick_run(["r-1"], None) == 0


def test_a_follow_link_is_a_folder_and_a_plain_path_and_names_its_source():
    link = parse_link({FOLLOW: "live/team-a/events.ndjson", RUN_ID: "run-7"})
    assert link.follow == "live/team-a/events.ndjson" and link.run_id == "run-7"
    assert source_of(link) == (FOLLOW, "live/team-a/events.ndjson")
    for bad in ("live/../etc/passwd", "live//x", "live", "live/a\\b", "/abs"):
        refused = parse_link({FOLLOW: bad})
        assert refused.follow is None and refused.problems, bad
    assert parse_link({RUN_ID: "run\n7"}).run_id is None


def test_an_upload_outranks_a_sample_in_the_same_link():
    digest = "ab" * 32
    assert source_of(parse_link({"run": "x", "upload": digest})) == ("upload", digest)
    assert source_of(parse_link({})) is None


def test_references_name_a_file_and_the_run_in_it():
    assert parse_ref("sample:llmcall-single") == ("sample", "llmcall-single", None)
    assert parse_ref("archive:runs/a/b.json#runid=r-2") == ("archive", "runs/a/b.json", "r-2")
    for bad in ("", "sample", ":x", "sample:", "upload:#runid=r", "archive:x#runid=", 7, None):
        assert parse_ref(bad) is None, bad


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["sample", "upload", "archive", "follow"]),
       st.text(min_size=1).filter(lambda v: "#runid=" not in v),
       st.one_of(st.none(), st.text(min_size=1).filter(lambda v: "#runid=" not in v)))
def test_a_reference_reads_back_as_it_was_made(kind, value, selector):
    made = make_ref(kind, value, selector)
    read = parse_ref(made)
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in made) or len(made) > 2000:
        assert read is None
    else:
        assert read == (kind, value, selector)

"""The six paired runs: the command line's comparison equals expected-compare.json,
the steps it names hold the events, and comparing is symmetric."""

from __future__ import annotations

import pytest

from compare_support import cli_json, pair_run
from corpus_files import load_pair_expected, pair_names, pair_run_path
from lens.compare import compare_runs, comparison_to_wire

PAIRS = pair_names()
PREFIX = "agentfootprint."


def test_the_corpus_holds_the_six_pairs():
    assert len(PAIRS) == 6


@pytest.mark.parametrize("pair", PAIRS)
def test_cli_matches_expected_comparison(pair, capsys):
    expected = load_pair_expected(pair)
    got = cli_json(capsys, str(pair_run_path(pair, "a")), str(pair_run_path(pair, "b")))
    assert got["identical"] is expected["identical"]
    want_first = expected["firstDifference"]
    if want_first is None:
        assert got["firstDifference"] is None
    else:
        assert got["firstDifference"]["field"] == want_first["field"]
        for side in "ab":
            for key in ("typedIndex", "type", "runtimeStageId", "subflowPath"):
                assert got["firstDifference"][side][key] == want_first[side][key], (side, key)
    want_served = expected["servedDifference"]
    if want_served is None:
        assert got["servedDifference"] is None
    else:
        for key in ("callIndexA", "callIndexB", "slots"):
            assert got["servedDifference"][key] == want_served[key], key
    assert got["finalAnswer"] == expected["finalAnswer"]
    assert got["counts"]["typedEvents"] == expected["counts"]["typedEvents"]
    assert got["counts"]["modelCalls"] == expected["counts"]["modelCalls"]
    if "routePath" in expected:
        assert got["routePath"] == expected["routePath"]


def _call_rid_for(events: list, index: int) -> tuple[str, str]:
    """(runtimeStageId of the model call an event belongs to, "start" | "end"),
    worked out from the events alone: a model call's own events; a tool event
    belongs to the last model call that ended before it in its scope; a
    context event to the next model call one subflow up."""
    event = events[index]
    kind = event["type"].removeprefix(PREFIX)
    path = event["meta"]["subflowPath"]
    if kind in ("stream.llm_start", "stream.llm_end"):
        return event["meta"]["runtimeStageId"], "start" if kind.endswith("start") else "end"
    if kind.startswith("stream.tool_"):
        for earlier in reversed(events[:index]):
            if earlier["type"] == PREFIX + "stream.llm_end" and earlier["meta"]["subflowPath"] == path:
                return earlier["meta"]["runtimeStageId"], "end"
    if kind.startswith("context."):
        for later in events[index + 1:]:
            if (later["type"] == PREFIX + "stream.llm_start"
                    and later["meta"]["subflowPath"] == path[:-1]):
                return later["meta"]["runtimeStageId"], "start"
    raise AssertionError(f"no model call for {kind}")


@pytest.mark.parametrize("pair", [p for p in PAIRS if load_pair_expected(p)["firstDifference"]])
@pytest.mark.parametrize("side", "ab")
def test_named_step_holds_the_first_differing_event(pair, side):
    run = pair_run(pair, side)
    result = comparison_to_wire(compare_runs(pair_run(pair, "a"), pair_run(pair, "b")))
    named = result["firstDifference"][side]
    events = run.recording.typed_events
    event = events[named["typedIndex"]]
    path = tuple(named["step"]["path"])
    # The step's scope encloses the event's subflow path.
    full = ("__root__", *event["meta"]["subflowPath"])
    assert full[:len(path)] == path
    steps = run.scopes("lens").get(path).steps
    step = steps[named["step"]["index"]]
    rid, end = _call_rid_for(events, named["typedIndex"])
    at_call = [i for i, s in enumerate(steps) if s.anchor.runtime_stage_id == rid]
    assert at_call, "no step shows the model call the event belongs to"
    assert step.anchor.runtime_stage_id == rid
    assert named["step"]["index"] == (at_call[0] if end == "start" else at_call[-1])


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("side", "ab")
def test_a_run_compared_with_itself_is_identical(pair, side):
    run = pair_run(pair, side)
    result = compare_runs(run, run)
    assert result.identical
    assert result.first_difference is None and result.served_difference is None
    assert all(row.status == "same" for row in result.alignment)


@pytest.mark.parametrize("pair", PAIRS)
def test_swapping_the_runs_swaps_the_sides(pair):
    a, b = pair_run(pair, "a"), pair_run(pair, "b")
    forward = comparison_to_wire(compare_runs(a, b))
    backward = comparison_to_wire(compare_runs(b, a))
    assert forward["identical"] == backward["identical"]
    if forward["firstDifference"] is None:
        assert backward["firstDifference"] is None
    else:
        assert backward["firstDifference"]["a"] == forward["firstDifference"]["b"]
        assert backward["firstDifference"]["b"] == forward["firstDifference"]["a"]
        assert backward["firstDifference"]["field"] == forward["firstDifference"]["field"]
    served, served_back = forward["servedDifference"], backward["servedDifference"]
    if served is None:
        assert served_back is None
    else:
        assert served_back["callIndexA"] == served["callIndexB"]
        assert served_back["callIndexB"] == served["callIndexA"]
        assert set(served_back["slots"]) == set(served["slots"])
    assert backward["finalAnswer"] == {"a": forward["finalAnswer"]["b"],
                                       "b": forward["finalAnswer"]["a"]}
    assert backward["routePath"] == {"a": forward["routePath"]["b"],
                                     "b": forward["routePath"]["a"]}


def test_system_prompt_change_shows_as_one_changed_piece_with_its_sentence():
    result = compare_runs(pair_run("system-prompt-changed", "a"),
                          pair_run("system-prompt-changed", "b"))
    (slot,) = result.served_difference.pieces
    assert slot.slot == "system-prompt"
    assert not slot.added and not slot.removed and len(slot.changed) == 1
    diff = "\n".join(slot.changed[0].diff)
    assert "-" in diff and "up to $50 without" in diff and "up to $500 without" in diff


def test_failed_tool_result_is_the_changed_message():
    result = compare_runs(pair_run("refund-tool-fails-vs-succeeds", "a"),
                          pair_run("refund-tool-fails-vs-succeeds", "b"))
    (slot,) = result.served_difference.pieces
    assert slot.slot == "messages" and len(slot.changed) == 1
    assert "502 Bad Gateway" in slot.changed[0].b.content
    assert "succeeded" in slot.changed[0].a.content


def test_route_divergence_aligns_the_extra_steps_of_the_longer_run():
    result = compare_runs(pair_run("skillgraph-route-diverges", "a"),
                          pair_run("skillgraph-route-diverges", "b"))
    statuses = [row.status for row in result.alignment]
    rows_a = sum(row.a is not None for row in result.alignment)
    rows_b = sum(row.b is not None for row in result.alignment)
    assert rows_a > rows_b  # a made one more tool call and model call
    assert "only-a" in statuses
    assert result.first_difference_row is not None
    assert all(s == "same" for s in statuses[:result.first_difference_row])

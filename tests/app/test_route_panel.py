""""Why this skill?": the hops of the skill-graph samples, as the reference
recorder saw them, and a hop leading back to its step."""

from __future__ import annotations

import pytest

from lens_ui.stepper import GENERATION, ROUTE_TAB, TAB, hops_key
from app_support import caption, expected, no_exception

SKILL_GRAPH_SAMPLES = ["skillgraph-route-hops-envelope", "skillgraph-rejected-cap-then-model-pick"]


def open_route_tab(app, name, profile="lens"):
    app.query_params.update({"run": name, "profile": profile})
    at = app.run()
    at.session_state[TAB] = ROUTE_TAB
    return at.run()


def hop_table(at):
    tables = [d.value for d in at.dataframe if "reason" in d.value.columns]
    assert len(tables) == 1
    return tables[0]


def assert_rows_match(rows, hops):
    assert len(rows) == len(hops)
    for row, hop in zip(rows, hops):
        assert row["reason"] == hop["why"]
        assert row["from"] == hop.get("fromSkill", "")
        assert row["to"] == hop.get("toSkill", hop.get("requestedSkill", ""))
        assert row["caption"] == hop.get("edgeLabel", "")
        assert row["tool"] == hop.get("lastTool", "")
        assert row["reachable"] == ", ".join(hop.get("reachable", []))
        assert row["cause"].split(" ")[0] == hop["outcome"].replace("-", " ").split(" ")[0]


@pytest.mark.parametrize("name", SKILL_GRAPH_SAMPLES)
def test_under_reference_the_route_panel_lists_the_reference_hops(app, name):
    at = open_route_tab(app, name, profile="reference")
    no_exception(at)
    assert_rows_match(hop_table(at).to_dict("records"), expected(name)["route"]["replay"]["hops"])


def test_under_lens_a_plain_route_is_the_reference_route(app):
    name = "skillgraph-route-hops-envelope"
    at = open_route_tab(app, name)
    assert_rows_match(hop_table(at).to_dict("records"), expected(name)["route"]["replay"]["hops"])


def test_under_lens_a_model_pick_lands_on_the_picked_skill(app):
    # docs/lens-projection.md, correction 8: the reference reports the always-on
    # entry skill ("triage"); the lens hop follows cursorMove.to ("inventory").
    name = "skillgraph-rejected-cap-then-model-pick"
    at = open_route_tab(app, name)
    rows = hop_table(at).to_dict("records")
    hops = expected(name)["route"]["replay"]["hops"]
    assert_rows_match(rows[:-1], hops[:-1])
    assert (rows[-1]["cause"].startswith("model pick"), rows[-1]["from"], rows[-1]["to"]) == (
        True, "triage", "inventory")


def test_rejections_and_the_governor_trip_are_marked(app):
    name = "skillgraph-rejected-cap-then-model-pick"
    at = open_route_tab(app, name)
    route = expected(name)["route"]["replay"]
    marks = hop_table(at)["mark"].tolist()
    assert sum("✕ rejected" in m for m in marks) == len(route["rejections"])
    assert sum("⚠ rejected-cap" in m for m in marks) == len(route["trips"]) == 1
    assert any(t.value.startswith("⚠ rejected-cap at iteration") for t in at.text)


def test_selecting_a_hop_moves_the_slider_to_its_iteration(app):
    name = "skillgraph-rejected-cap-then-model-pick"
    at = open_route_tab(app, name)
    # Hop 2: read_skill("audit-log") refused during iteration 1. Its step is the
    # model asking for that tool: the second react step of the run.
    at.session_state[hops_key(at.session_state[GENERATION])] = {
        "selection": {"rows": [1], "columns": [], "cells": []}}
    at.run()
    no_exception(at)
    assert at.session_state[TAB] == "Steps"
    assert caption(at) == "step 2 of 10 · llm→tool · read_skill"
    # Hop 3: the skill graph stays in "triage" at iteration 2, the second model call.
    at.session_state[TAB] = ROUTE_TAB
    at.run()
    at.session_state[hops_key(at.session_state[GENERATION])] = {
        "selection": {"rows": [2], "columns": [], "cells": []}}
    at.run()
    assert caption(at) == "step 3 of 10 · tool→llm · read_skill"


def test_a_run_without_a_skill_graph_says_so(app):
    at = open_route_tab(app, "parallel-3-reviewers")
    assert any(i.value.startswith("No skill graph in this run") for i in at.info)
    assert not [d for d in at.dataframe if "reason" in d.value.columns]


@pytest.mark.parametrize("name", SKILL_GRAPH_SAMPLES)
def test_every_hop_reason_is_shown_whole_below_the_table(app, name):
    # Under reference, the hops are the reference recorder's (expected.json).
    at = open_route_tab(app, name, profile="reference")
    no_exception(at)
    reasons = [h["why"] for h in expected(name)["route"]["replay"]["hops"] if h["why"]]
    shown = "\n".join(t.value for t in at.text)
    for number, reason in enumerate(reasons):
        assert reason in shown, (number, reason)
    # The reason column comes right after the move it explains.
    table = at.dataframe[[i for i, d in enumerate(at.dataframe)
                          if "reason" in d.value.columns][0]]
    order = list(table.proto.column_order)
    assert order.index("reason") == order.index("to") + 1


def test_a_run_that_walked_a_skill_procedure_shows_it_and_never_says_no_skill(app):
    from app_support import family_upload
    from family_files import family_recording
    from recorders.catalogue import SKILL_STEP_SKIPPED
    from recorders.loading import load_path

    case = "chargeback-procedure-skip-and-approval"
    events = load_path(str(family_recording(case))).typed_events
    declined = [e["payload"]["step"] for e in events if e["type"] == SKILL_STEP_SKIPPED]
    at = family_upload(app, case)
    at.session_state[TAB] = ROUTE_TAB
    at = at.run()
    no_exception(at)
    assert not any("No skill graph in this run" in info.value for info in at.info)
    tables = [d.value for d in at.dataframe if "what happened" in d.value.columns]
    assert len(tables) == 1
    rows = tables[0].to_dict("records")
    skipped = [row for row in rows if row["what happened"].startswith("skipped")]
    assert [row["tool"] for row in skipped] == [step["tool"] for step in declined]
    assert any(f"declares a procedure of {declined[0]['total']} steps" in text.value
               for text in at.text)

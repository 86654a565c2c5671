"""The raw events page: every event of the file is there and can be found."""

from __future__ import annotations

import json

from app_support import corpus_bytes, expected, no_exception

CASE = "agent-refund-multi-tools-error"


def open_events(app, run=CASE):
    app.query_params["run"] = run
    at = app.run()
    at.switch_page("lens_ui/app/page_scripts/raw_events.py").run()
    no_exception(at)
    return at


def shown(at, stream):
    """The ``n of m events shown`` caption of one table, as (n, m)."""
    captions = [c.value for c in at.caption if c.value.endswith("Select a row to see the event whole.")]
    text = captions[0 if stream == "typed" else 1]
    n, _, rest = text.partition(" of ")
    return int(n.replace(",", "")), int(rest.split(" ")[0].replace(",", ""))


def test_the_totals_equal_the_files_counts(app):
    at = open_events(app)
    counts = expected(CASE)["counts"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Typed events in the file"] == str(counts["typedEvents"])
    assert metrics["Boundary events in the file"] == str(counts["boundaryEvents"])
    assert shown(at, "typed") == (counts["typedEvents"], counts["typedEvents"])
    assert shown(at, "boundary") == (counts["boundaryEvents"], counts["boundaryEvents"])
    tables = [d.value for d in at.dataframe]
    assert [len(t) for t in tables[:2]] == [counts["typedEvents"], counts["boundaryEvents"]]


def test_filtering_by_type_shows_exactly_the_events_of_that_type(app):
    at = open_events(app)
    by_type = expected(CASE)["counts"]["boundaryEventsByType"]
    at.multiselect(key="lens.events.boundary.types").set_value(["tool.end", "llm.start"]).run()
    assert shown(at, "boundary")[0] == by_type["tool.end"] + by_type["llm.start"]
    table = [d.value for d in at.dataframe][1]
    assert set(table["type"]) == {"tool.end", "llm.start"}


def test_filtering_by_subflow_path_keeps_that_path_and_below(app):
    at = open_events(app, "nested-sequence-with-parallel")
    at.selectbox(key="lens.events.boundary.path").set_value("__root__/step-reviewers").run()
    table = [d.value for d in at.dataframe][1]
    assert len(table) > 0
    assert all(p == "__root__/step-reviewers" or p.startswith("__root__/step-reviewers/")
               for p in table["subflowPath"])


def test_text_search_finds_an_event_by_anything_it_contains(app):
    at = open_events(app)
    events = json.loads(corpus_bytes(CASE))["snapshot"]["recorders"]
    boundary = next(r for r in events if r["name"] == "BoundaryEvents")["data"]
    needle = "PaymentGatewayTimeout"  # the failing tool's error text
    at.text_input(key="lens.events.boundary.text").set_value(needle).run()
    table = [d.value for d in at.dataframe][1]
    found = table["#"].tolist()
    assert found == [i for i, e in enumerate(boundary) if needle in json.dumps(e)]
    assert table["type"].tolist()[0] == "tool.end"


def test_a_selected_row_shows_the_whole_event(app):
    at = open_events(app)
    at.session_state["lens.events.boundary.rows"] = {"selection": {"rows": [0], "columns": [],
                                                                   "cells": []}}
    at.run()
    assert [json.loads(j.value)["type"] for j in at.json] == ["run.entry"]


def test_a_row_picked_before_a_filter_narrows_the_table_is_let_go(app):
    """The selection is the widget's state from before the filter: row 101 of
    a table that now has a few rows. Before, the panel failed with IndexError."""
    at = open_events(app)
    at.session_state["lens.events.boundary.rows"] = {"selection": {"rows": [100], "columns": [],
                                                                   "cells": []}}
    at.run()
    assert len(at.json) == 1
    at.text_input(key="lens.events.boundary.text").set_value("PaymentGatewayTimeout").run()
    no_exception(at)
    assert not [e.value for e in at.error if "could not be shown" in e.value]
    assert len(at.json) == 0 and shown(at, "boundary")[0] < 100


def test_the_open_run_survives_moving_between_pages(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("lean.json", corpus_bytes("lean-agent-two-tools"), "application/json")).run()
    at.switch_page("lens_ui/app/page_scripts/raw_events.py").run()
    no_exception(at)
    counts = expected("lean-agent-two-tools")["counts"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Typed events in the file"] == str(counts["typedEvents"])
    at.switch_page("lens_ui/app/page_scripts/run.py").run()
    assert any(t.value.startswith("⬆ lean.json · ") for t in at.text)


def test_a_selected_event_links_to_the_step_that_holds_it(app):
    at = open_events(app)
    events = json.loads(corpus_bytes(CASE))["events"]
    failed = next(i for i, e in enumerate(events) if e["type"].endswith("stream.tool_end")
                  and e["payload"].get("error") is True)
    at.session_state["lens.events.typed.rows"] = {"selection": {"rows": [failed], "columns": [],
                                                                "cells": []}}
    at.run()
    link = at.button(key="lens.events.typed.go")
    assert link.label.startswith("Open the step that holds it: step ")
    link.click().run()  # the callback moves the slider; the rerun asks for the run page
    no_exception(at)
    at.switch_page("lens_ui/app/page_scripts/run.py").run()  # AppTest does not follow a page switch itself
    no_exception(at)
    tool_call_id = events[failed]["payload"]["toolCallId"]
    name = next(e["payload"]["toolName"] for e in events if e["type"].endswith("tool_start")
                and e["payload"].get("toolCallId") == tool_call_id)
    label = next(t.value for t in at.text if t.value.startswith("step "))
    # The tool ran after the step where the model asked for it (llm→tool, naming it).
    assert "llm→tool" in label and name in label, label


def test_the_event_tables_are_kept_with_the_run_counted_and_dropped_with_it(app):
    from lens_ui.events_page import PLACES_PER_JSON_BYTE, TABLES_PER_JSON_BYTE
    from lens_ui.run_store import RETAINED_PER_BYTE
    from lens_ui.runs import sample_choice, server_store

    store = server_store()
    digest = sample_choice(CASE)[0].digest
    app.query_params["run"] = CASE
    at = app.run()
    held = store.usage().runs_bytes
    at.switch_page("lens_ui/app/page_scripts/raw_events.py").run()
    no_exception(at)
    json_bytes = store._runs[digest].json_bytes
    kept = store.usage().runs_bytes - held
    assert kept >= int(TABLES_PER_JSON_BYTE * json_bytes)
    assert kept <= int((TABLES_PER_JSON_BYTE + PLACES_PER_JSON_BYTE) * json_bytes) + 1
    assert ("event tables",) in store._runs[digest].memo
    store.show(next(iter(store._leases)), None)  # no session shows it any more
    store.budget_bytes = store.usage().used_bytes  # and the next open needs the room
    try:
        store.open("another", lambda: b"[]", lambda data: "another run")
    finally:
        store.budget_bytes = 1 << 40
    assert not store.holds_run(digest) and store.holds_run("another")
    assert store.usage().runs_bytes == int(len(b"[]") * RETAINED_PER_BYTE)  # tables went too


def test_filtering_typed_events_by_family_lists_the_runs_families_with_counts(app):
    import gzip
    from family_files import family_recording
    from recorders.catalogue import event_type
    data = gzip.decompress(family_recording("travel-desk-circuit-breaker").read_bytes())
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(("travel.json", data, "application/json"))
    at.run()
    at.switch_page("lens_ui/app/page_scripts/raw_events.py").run()
    no_exception(at)
    events = json.loads(data)["events"]
    recovery = [e for e in events if event_type(e["type"]) is not None
                and event_type(e["type"]).family == "recovery"]
    assert recovery  # retries, the circuit breaker and the fallback of this story
    families = at.multiselect(key="lens.events.typed.families")
    assert f"recovery ({len(recovery)})" in families.options
    families.set_value(["recovery"]).run()
    no_exception(at)
    assert shown(at, "typed")[0] == len(recovery)
    table = [d.value for d in at.dataframe][0]
    assert set(table["family"]) == {"recovery"}

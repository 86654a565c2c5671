"""The detail pane's "Where from?" part (a toggle under This step): a state key's chain of stages (each
a button to its step), its timeline (a chart on the slider's steps, the table
one click down) and what it fed, from the recording's commit log, and one
sentence when the recording has none; and its entries in the served context:
a piece or an output whose text a state key holds opens the part on that key."""

from __future__ import annotations

import json

from app_support import caption, corpus_bytes, corpus_plain_bytes, no_exception, open_served_context
from lineage.lineage_refs import reference_of
from lens.lineage_view import NO_COMMIT_LOG
from lens.run import open_run
from lens.value_keys import NOT_IN_STATE
from lens_ui import session
from lens_ui.samples import sample_catalog
from lens_ui.step_panel import DETAIL_PANE, DETAIL_PANES, THIS_STEP
from lens_ui.where_from_panel import WHERE_FROM_LABEL, WHERE_FROM_TABLE, WHERE_FROM_TOGGLE
from test_safe_rendering import assert_inert


def open_where_from(app, name: str, step: int):
    app.query_params["run"] = name
    app.query_params["step"] = str(step)
    at = app.run()
    no_exception(at)
    return turn_on(at)


def turn_on(at):
    """Turn the toggle under This step on, as a user clicks it."""
    [toggle] = [t for t in at.toggle if t.label == WHERE_FROM_LABEL]
    toggle.set_value(True).run()
    no_exception(at)
    return at


def key_chooser(at):
    [chooser] = [s for s in at.selectbox if s.label == "State key"]
    return chooser


def timeline_table(at):
    """The key's timeline table, one click down from its chart."""
    [switch] = [t for t in at.toggle if t.proto.id.endswith(WHERE_FROM_TABLE)]
    switch.set_value(True).run()
    no_exception(at)
    return at.dataframe[-1].value


def chart_spec(at) -> dict:
    [chart] = at.get("plotly_chart")
    return json.loads(chart.proto.spec)


def where_from_entries(at) -> list:
    return [b for b in at.button if b.label == WHERE_FROM_LABEL]


def match_lines(at) -> list[str]:
    return [t.value for t in at.text if t.value.startswith("State key ")]


def chain_lines(at) -> list[str]:
    return [t.value for t in at.text if t.value[:1].isdigit() and ". " in t.value]


def test_this_step_offers_where_from_closed_until_asked(app):
    app.query_params["run"] = "llmcall-single"
    at = app.run()
    no_exception(at)
    [switch] = [s for s in at.get("button_group") if s.proto.id.endswith(DETAIL_PANE)]
    assert [o.content for o in switch.proto.options] == list(DETAIL_PANES)
    assert at.session_state[DETAIL_PANE] == THIS_STEP
    assert [t.value for t in at.toggle if t.label == WHERE_FROM_LABEL] == [False]
    assert not [s for s in at.selectbox if s.label == "State key"]
    turn_on(at)
    assert key_chooser(at).value
    at.button(key="lens.next").click().run()  # it stays open as the user steps
    no_exception(at)
    assert at.session_state[WHERE_FROM_TOGGLE] is True
    assert key_chooser(at).value == "answer"


def test_on_the_final_step_it_opens_on_the_answer_and_its_writer(app):
    at = open_where_from(app, "llmcall-single", 2)
    assert caption(at).startswith("step 2 of 2")
    assert key_chooser(at).value == "answer"
    expected = reference_of("sample_runs/llmcall-single.json")["answer"]
    nodes = expected["backward"]["nodes"]
    assert chain_lines(at) == [f"{n + 1}. {node['stageName']} ({rid}) · wrote answer"
                               for n, (rid, node) in enumerate(nodes.items())]
    moments = expected["timeline"]["moments"]
    table = timeline_table(at)
    assert list(table["commit"]) == [m["commitIdx"] for m in moments]
    assert list(table["what"]) == [m.get("verb", "read") if m["kind"] == "write" else "read"
                                   for m in moments]


def test_a_middle_step_opens_on_a_key_its_stage_wrote(app):
    at = open_where_from(app, "agent-refund-multi-tools-error", 2)  # call-llm#18
    document = json.loads(sample_catalog()["agent-refund-multi-tools-error"].read_bytes())
    wrote = [t["path"] for c in document["snapshot"]["commitLog"]
             if c.get("runtimeStageId") == "call-llm#18" for t in c["trace"]]
    assert key_chooser(at).value == wrote[-1]


def test_a_stage_button_moves_the_slider_to_its_step(app):
    at = open_where_from(app, "agent-refund-multi-tools-error", 10)
    chooser = key_chooser(at)
    assert chooser.value == "llmLatestContent"  # its recorded value is the final answer
    nodes = list(reference_of("sample_runs/agent-refund-multi-tools-error.json")
                 ["llmLatestContent"]["backward"]["nodes"])
    last = nodes.index("call-llm#18")  # the first model call: step 2 (llm→tool at call-llm#18)
    lines = chain_lines(at)
    assert lines[last].startswith(f"{last + 1}. CallLLM (call-llm#18)")
    button = [b for b in at.button if b.key and b.key.endswith(f".chain.{last}")][0]
    assert button.label == "Step 2"
    button.click().run()
    no_exception(at)
    assert at.session_state[session.STEP] == 1
    assert caption(at).startswith("step 2 of 10")


def test_another_key_can_be_chosen(app):
    at = open_where_from(app, "llmcall-single", 2)
    key_chooser(at).set_value("userMessage").run()
    no_exception(at)
    assert chain_lines(at) == ["1. Client (client#0) · wrote userMessage"]


def test_a_recording_without_a_commit_log_says_lineage_needs_it(app):
    document = json.loads(sample_catalog()["llmcall-single"].read_bytes())
    del document["snapshot"]["commitLog"]
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("no-log.json", json.dumps(document).encode(), "application/json")).run()
    no_exception(at)
    turn_on(at)
    assert NO_COMMIT_LOG in [c.value for c in at.caption]
    assert not [s for s in at.selectbox if s.label == "State key"]


def test_the_hostile_run_stays_inert_in_where_from(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("hostile.json", corpus_bytes("hostile-strings-agent"), "application/json")).run()
    no_exception(at)
    turn_on(at)
    total = int(caption(at).split(" of ")[1].split(" ")[0])
    for step in range(total):
        if step:
            at.button(key="lens.next").click().run()
        no_exception(at)
        assert_inert(at)
        assert key_chooser(at).value


def _document(name: str) -> dict:
    return json.loads(sample_catalog()[name].read_bytes())


def _holds(value, text: str) -> bool:
    """Whether ``text`` is ``value`` or a string anywhere inside it."""
    if isinstance(value, str):
        return value == text
    if isinstance(value, dict):
        return any(_holds(item, text) for item in value.values())
    if isinstance(value, list):
        return any(_holds(item, text) for item in value)
    return False


def test_a_served_piece_opens_where_from_on_the_key_holding_its_text(app):
    app.query_params["run"] = "agent-refund-multi-tools-error"
    app.query_params["step"] = "2"  # model call 1 ends here
    at = open_served_context(app.run(), "Messages")
    [entry] = where_from_entries(at)  # the one piece of the call's Messages slot
    [line] = match_lines(at)
    key = line.removeprefix("State key ").split(" ")[0]
    commit = int(line.split("written at commit ")[1].split(" ")[0])
    # The named write really holds the text the model was served.
    document = _document("agent-refund-multi-tools-error")
    written = document["snapshot"]["commitLog"][commit]
    assert key in {t["path"] for t in written["trace"]}
    # The piece is the user's first message, which the run's first commit wrote.
    user_message = document["snapshot"]["commitLog"][0]["overwrite"]["userMessage"]
    assert user_message in [c.value for c in at.code]
    assert _holds(written["overwrite"].get(key), user_message)
    entry.click().run()
    no_exception(at)
    assert at.session_state[DETAIL_PANE] == THIS_STEP
    assert at.session_state[WHERE_FROM_TOGGLE] is True
    assert key_chooser(at).value == key
    assert caption(at).startswith("step 2 of 10")  # the slider stays on the call's step
    assert ("Opened from the served context: piece 0 of the Messages slot of model call 1."
            in [c.value for c in at.caption])
    # On that step the part leads the pane (below the step's detail it would open out of sight).
    toggles = [t.label for t in at.toggle]
    assert toggles.index(WHERE_FROM_LABEL) < toggles.index(next(
        label for label in toggles if label.startswith("Stage facts")))
    at.button(key="lens.next").click().run()
    no_exception(at)
    toggles = [t.label for t in at.toggle]
    assert toggles.index(WHERE_FROM_LABEL) > toggles.index(next(
        label for label in toggles if label.startswith("Stage facts")))


def test_the_final_output_opens_where_from_on_the_answer_key(app):
    app.query_params["run"] = "agent-refund-multi-tools-error"
    app.query_params["step"] = "10"
    at = open_served_context(app.run(), "Output and tool calls")
    [entry] = where_from_entries(at)
    state = _document("agent-refund-multi-tools-error")["snapshot"]["sharedState"]
    [line] = match_lines(at)
    key = line.removeprefix("State key ").split(" ")[0].rstrip(":")
    answer = open_run(sample_catalog()["agent-refund-multi-tools-error"].read_bytes()) \
        .facts.final_answer
    assert state[key] == answer  # the key really holds what the call wrote
    entry.click().run()
    no_exception(at)
    assert key_chooser(at).value == key == "llmLatestContent"
    assert chain_lines(at)[0] == "1. CallLLM (call-llm#98) · wrote llmLatestContent"


def test_a_piece_no_state_key_holds_says_so_in_one_line(app):
    app.query_params["run"] = "llmcall-single"
    app.query_params["step"] = "2"
    at = open_served_context(app.run(), "System prompt")
    # The system prompt came from the agent's configuration, never from the state.
    assert not where_from_entries(at)
    assert [c.value for c in at.caption if c.value.startswith(WHERE_FROM_LABEL)] == \
        [f"{WHERE_FROM_LABEL} {NOT_IN_STATE}"]


def test_the_timeline_chart_puts_each_write_on_the_slider_step_the_table_names(app):
    at = open_where_from(app, "agent-refund-multi-tools-error", 10)
    assert key_chooser(at).value == "llmLatestContent"
    spec = chart_spec(at)
    assert spec["layout"]["xaxis"]["range"] == [0.5, 10.5]  # the slider's ten steps
    assert spec["layout"]["shapes"][0]["x0"] == 10           # the step on screen
    [writes] = [trace for trace in spec["data"] if trace["name"] == "writes"]
    table = timeline_table(at)
    steps = [int(where.split(" ")[1]) for where in table["step"] if where != "no step"]
    assert writes["x"] == sorted(set(steps))
    final = _document("agent-refund-multi-tools-error")["snapshot"]["sharedState"]
    # The last write's hover names its stage and previews the value it wrote.
    assert "CallLLM" in writes["hovertext"][-1]
    assert json.dumps(final["llmLatestContent"])[:30] in writes["hovertext"][-1]


def test_a_file_of_two_runs_says_whose_commit_log_it_traces(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("two-runs.json", corpus_plain_bytes("multirun-agent-two-runs"), "application/json")).run()
    no_exception(at)
    turn_on(at)
    [note] = [t.value for t in at.text if t.value.startswith("This file holds")]
    document = json.loads(corpus_plain_bytes("multirun-agent-two-runs"))
    run_ids = list(dict.fromkeys(e["meta"]["runId"] for e in document["events"]
                                 if isinstance(e.get("meta"), dict) and "runId" in e["meta"]))
    assert len(run_ids) == 2
    assert note.startswith("This file holds 2 runs and one snapshot: the commit log traced "
                           f"here is the last run's, run {run_ids[-1]} (engine run "
                           f"{document['snapshot']['runId']})")
    assert run_ids[0] not in note


def test_a_file_of_one_run_says_nothing_of_runs(app):
    at = open_where_from(app, "llmcall-single", 2)
    assert not [t.value for t in at.text if t.value.startswith("This file holds")]


def _served_entries_of_every_call() -> None:
    """An app script: the Where from? entry under every model call's output,
    the run opened as a file the operator named (its bytes can be read again)."""
    import streamlit as st
    from lens_ui.runs import open_run, sample_choice
    from lens_ui.served_context import _where_from_entry

    source, data = sample_choice("recording")
    run = open_run(source, data)
    for call in run.evidence.calls:
        with st.container(key=f"call-{call.id}"):
            _where_from_entry(run, call, None, None, f"entry.{call.id}")


def test_a_call_of_an_earlier_run_says_its_run_has_no_commit_log_here(monkeypatch):
    """The file's one commit log is its last run's, and the earlier run's
    stages have the same ids (each run counts from 0): its calls' outputs
    must not be matched to the last run's writes."""
    from streamlit.testing.v1 import AppTest
    from corpus_files import recording_path
    from recorders.catalogue import LLM_END

    monkeypatch.setenv("FOOTPRINT_LENS_OPEN", str(recording_path("multirun-agent-two-runs")))
    at = AppTest.from_function(_served_entries_of_every_call, default_timeout=60).run()
    no_exception(at)
    document = json.loads(corpus_plain_bytes("multirun-agent-two-runs"))
    ends = [e["meta"]["runId"] for e in document["events"] if e.get("type") == LLM_END]
    earlier = [n for n, run_id in enumerate(ends) if run_id == ends[0]]
    assert 0 < len(earlier) < len(ends)  # a file of two runs, the first's calls first
    lines = _lines_by_call(at, len(ends))
    for n in earlier:
        assert lines[n] == [f"{WHERE_FROM_LABEL} This call belongs to an earlier run of the "
                            "file, and the file's one commit log is the last run's: no state "
                            "key can be named."]
    for n in set(range(len(ends))) - set(earlier):
        assert [line for line in lines[n] if line.startswith("State key ")]


def _lines_by_call(at, calls: int) -> dict[int, list[str]]:
    lines: dict[int, list[str]] = {}
    for n in range(calls):
        [box] = [b for b in at.main.children.values() if getattr(b, "key", None) == f"call-{n}"] \
            or [None]
        assert box is not None, f"call {n}'s entry was drawn"
        lines[n] = [e.value for e in box if getattr(e, "type", None) in ("text", "caption")]
    return lines

"""The detail pane's "Where from?" part (a toggle under This step): a state key's chain of stages (each
a button to its step), its timeline and what it fed, from the recording's
commit log, and one sentence when the recording has none."""

from __future__ import annotations

import json

from app_support import caption, corpus_bytes, no_exception
from lineage.lineage_refs import reference_of
from lens.lineage_view import NO_COMMIT_LOG
from lens_ui import session
from lens_ui.samples import sample_catalog
from lens_ui.step_panel import DETAIL_PANE, DETAIL_PANES, THIS_STEP
from lens_ui.where_from_panel import WHERE_FROM_LABEL, WHERE_FROM_TOGGLE
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
    table = at.dataframe[-1].value
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

"""The detail pane beside the diagram: one part at a time, chosen with a switch
that stays chosen as the user steps and drills."""

from __future__ import annotations

import json

from app_support import caption, no_exception, open_detail_pane, served_context_shown
from lens_ui.step_panel import (DETAIL_PANE, DETAIL_PANES, EVIDENCE, RAW_STEP, SERVED, THIS_STEP,
                                heading_markdown)
from lens_ui.samples import sample_catalog

SAMPLE = "agent-refund-multi-tools-error"


def open_sample(app, name=SAMPLE, step=1):
    app.query_params["run"] = name
    app.query_params["step"] = str(step)
    at = app.run()
    no_exception(at)
    return at


def sample_document() -> dict:
    """The sample run's JSON as stored, read without Lens."""
    return json.loads(sample_catalog()[SAMPLE].read_bytes())


def events_at_stage(stage: str) -> int:
    """Typed and boundary events in the sample file that carry ``stage``, read from the JSON."""
    document = sample_document()
    typed = [e for e in document["events"] if e.get("meta", {}).get("runtimeStageId") == stage]
    [boundary_log] = [r["data"] for r in document["snapshot"]["recorders"]
                      if r["name"] == "BoundaryEvents"]
    boundary = [e for e in boundary_log if e.get("runtimeStageId") == stage]
    return len(typed) + len(boundary)


STEP_HEADING = "Model call · llm→tool"


def subheaders(at) -> list[str]:
    """The step headings drawn (bold text in the pane), and any subheader."""
    return [STEP_HEADING for m in at.markdown if m.value == heading_markdown(STEP_HEADING)] + [
        s.value for s in at.subheader]


def test_the_pane_opens_on_the_step_and_offers_the_other_parts(app):
    at = open_sample(app, step=2)
    [switch] = [s for s in at.get("button_group") if s.proto.id.endswith(DETAIL_PANE)]
    assert [o.content for o in switch.proto.options] == list(DETAIL_PANES)
    assert at.session_state[DETAIL_PANE] == THIS_STEP
    assert subheaders(at) == ["Model call · llm→tool"]
    assert not at.json  # the raw step is not drawn until chosen
    assert not served_context_shown(at)


def test_each_part_draws_only_itself(app):
    at = open_sample(app, step=2)  # llm→tool at the stage call-llm#18

    open_detail_pane(at, SERVED)
    assert subheaders(at) == []  # the switch names the part: no heading repeats it
    assert served_context_shown(at)

    open_detail_pane(at, EVIDENCE)
    assert subheaders(at) == []
    count = events_at_stage("call-llm#18")
    assert count > 1
    assert f"{count} recorded events carry this step's runtimeStageId." in [
        c.value for c in at.caption]
    assert len(at.dataframe[0].value) == count

    open_detail_pane(at, RAW_STEP)
    assert subheaders(at) == []
    [wire] = at.json
    raw = json.loads(wire.value)
    assert raw["runtimeStageId"] == "call-llm#18"
    assert raw["kind"] == "react"


def test_the_chosen_part_stays_chosen_as_the_slider_moves(app):
    at = open_sample(app, step=3)
    open_detail_pane(at, SERVED)
    for number in (4, 5, 6):
        at.button(key="lens.next").click().run()
        no_exception(at)
        assert caption(at).startswith(f"step {number} of ")
        assert at.session_state[DETAIL_PANE] == SERVED
        assert served_context_shown(at)


def test_the_chosen_part_stays_chosen_when_drilling_into_a_child_scope(app):
    at = open_sample(app, "nested-sequence-with-parallel")
    open_detail_pane(at, RAW_STEP)
    at.button(key="lens.child.1").click().run()  # into step-reviewers: a fork first
    no_exception(at)
    assert caption(at).startswith("step 1 of 2 · fork")
    assert at.session_state[DETAIL_PANE] == RAW_STEP
    assert json.loads(at.json[0].value)["kind"] == "fork"


def recorded_tool_calls() -> dict[str, dict]:
    """Each tool call of the sample, its arguments and end read straight from the JSON."""
    calls: dict[str, dict] = {}
    for event in sample_document()["events"]:
        payload = event.get("payload", {})
        if event["type"].endswith("stream.tool_start"):
            calls[payload["toolCallId"]] = {"name": payload["toolName"], "args": payload["args"]}
        elif event["type"].endswith("stream.tool_end"):
            calls[payload["toolCallId"]].update(result=payload["result"],
                                                failed=payload.get("error") is True)
    return calls


def test_a_step_that_reads_tool_results_shows_each_call_whole(app):
    # Step 5 reads the results of the two tools step 4 asked for: each call is
    # shown with the arguments that produced its result, as on the step before.
    calls = [c for c in recorded_tool_calls().values()
             if c["name"] in ("check_refund_policy", "get_customer_tier")]
    assert len(calls) == 2
    at = open_sample(app, step=4)
    for step in (4, 5):
        if step > 4:
            at.button(key="lens.next").click().run()
        assert caption(at).startswith(f"step {step} of 10 · ")
        shown = [c.value for c in at.code]
        for call in calls:
            assert any(_json_or_none(value) == call["args"] for value in shown), (step, call)
            assert call["result"] in shown, (step, call)
        assert not at.error


def test_a_failed_tool_call_is_marked_on_both_of_its_steps(app):
    [failed] = [c for c in recorded_tool_calls().values() if c["failed"]]
    at = open_sample(app, step=6)
    for step in (6, 7):  # the model asks for it, then reads its error
        if step > 6:
            at.button(key="lens.next").click().run()
        assert caption(at).startswith(f"step {step} of 10 · ")
        assert [e.value for e in at.error] == [
            "This tool call failed (error: true). Its error text:"], step
        assert failed["result"] in [c.value for c in at.code], step


def _json_or_none(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None

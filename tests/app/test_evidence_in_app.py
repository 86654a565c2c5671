"""Evidence in the app: the served context under a model-call step, the backtrack
chain and its export, and the search, each link moving the slider (drilling
into the scope that holds its step when needed).

Expected values are read from the corpus recordings (their typed events) and
the reference outputs, never from the app's own view models. Lens step numbers
follow the design's contract for an Agent: one react step per model call start
and end, so model call k (1-based) ends at step 2k.
"""

from __future__ import annotations

import json
import re
from unittest import mock

import streamlit

from app_support import (caption, corpus_bytes, corpus_plain_bytes, expected, no_exception,
                         open_served_context, served_context_shown)
from evidence.markdown_regions import split_code, unescaped_text
from lens_ui.stepper import BACKTRACK_TAB, SEARCH_TAB, STEPS_TAB, TAB
from lens_ui.served_context import SERVED_FACTS_KEY

REFUND = "agent-refund-multi-tools-error"
P = "agentfootprint."
SEARCH_KINDS = {"user prompt", "system prompt", "message", "tool offered", "model output",
                "tool arguments", "tool result", "injection reason", "route reason", "error"}
HOSTILE_MARKERS = ("<script", "onerror", "javascript:", "](", "<img", "<svg", "\u202e",
                   "alert(")


# ─── reading the recording ─────────────────────────────────────────────


def typed_events(case: str) -> list[dict]:
    document = json.loads(corpus_plain_bytes(case))
    return document.get("recording", document)["events"]


def llm_starts(events: list[dict]) -> list[int]:
    return [i for i, e in enumerate(events) if e["type"] == P + "stream.llm_start"]


def served(events: list[dict], start: int, slot: str) -> list[dict]:
    """The context.injected payloads of ``slot`` between the previous model call and this one."""
    pieces = []
    for event in reversed(events[:start]):
        if event["type"] == P + "stream.llm_start":
            break
        if event["type"] == P + "context.injected" and event["payload"].get("slot") == slot:
            pieces.append(event["payload"])
    return pieces[::-1]


def tool_event(events: list[dict], kind: str, **fields) -> tuple[int, dict]:
    return next((i, e["payload"]) for i, e in enumerate(events)
                if e["type"] == P + f"stream.{kind}"
                and all(e["payload"].get(k) == v for k, v in fields.items()))


def asking_call(events: list[dict], tool_start: int) -> int:
    """1-based ordinal of the model call whose turn asked for the tool started at ``tool_start``."""
    return sum(1 for i in llm_starts(events) if i < tool_start)


# ─── reading the page ──────────────────────────────────────────────────


def open_run(app, name: str, profile: str = "lens"):
    app.query_params.update({"run": name, "profile": profile})
    return app.run()


def upload(at, name: str, data: bytes):
    at.file_uploader(key="lens.uploader").set_value((name, data, "application/json")).run()
    no_exception(at)
    return at


def open_tab(at, tab: str):
    at.session_state[TAB] = tab
    at.run()
    no_exception(at)
    return at


def slot_table(at, tab: str):
    """The served-context table of one slot (system prompt, messages, tools), its tab opened."""
    open_served_context(at, tab)
    [table] = [d.value for d in at.dataframe if "provenance" in d.value.columns]
    return table


def texts(at) -> list[str]:
    return [t.value for t in at.text]


def link_number(line: str) -> int:
    return int(line.lstrip("│↳ ").split(".")[0])


# ─── served context ────────────────────────────────────────────────────


def test_a_model_call_step_shows_what_the_model_was_served_and_where_each_piece_came_from(app):
    events = typed_events(REFUND)
    starts = llm_starts(events)
    last, previous = starts[-1], starts[-2]
    at = open_run(app, REFUND)
    at.button(key="lens.last").click().run()  # the final call's answer
    no_exception(at)
    assert caption(at).startswith(f"step {2 * len(starts)} of {2 * len(starts)} · llm→user")
    # Closed, the panel is one click away and nothing of it is drawn.
    assert not served_context_shown(at)
    open_served_context(at)
    assert served_context_shown(at)

    system, tools = slot_table(at, "System prompt"), slot_table(at, "Tools")
    messages = slot_table(at, "Messages")
    served_system = served(events, last, "system-prompt")
    served_messages = served(events, last, "messages")
    assert list(system["content"]) == [p["rawContent"][:400] for p in served_system]
    assert list(messages["source"]) == [p["source"] for p in served_messages]
    assert list(messages["content"]) == [p["rawContent"][:400] for p in served_messages]
    assert list(tools["sourceId"]) == [t["name"] for t in events[last]["payload"]["tools"]]
    # The failing tool result is served to the final call, marked as an error.
    _, failed = tool_event(events, "tool_end", error=True)
    errors = dict(zip(messages["sourceId"], messages["error"]))
    assert errors.pop(failed["toolCallId"]) == "ERROR"
    assert set(errors.values()) == {""}
    assert failed["result"] in [c.value for c in at.code]

    # The change since the previous call: the messages served since then, all added.
    open_served_context(at, "Change since previous call")
    delta = next(d.value for d in at.dataframe if "before" in d.value.columns)
    new = served_messages[len(served(events, previous, "messages")):]
    assert list(delta["change"]) == ["added"] * len(new)
    assert list(delta["after"]) == [p["rawContent"][:400] for p in new]
    stop = next(e["payload"]["stopReason"] for e in events[last:]
                if e["type"] == P + "stream.llm_end")
    at.toggle(key=SERVED_FACTS_KEY).set_value(True).run()  # the call's facts, behind a toggle
    facts = [line for t in texts(at) for line in t.splitlines()]
    assert f"Stop reason (llm_end): {stop}" in facts


def test_the_served_context_stays_open_on_its_tab_as_the_slider_moves(app):
    events = typed_events(REFUND)
    starts = llm_starts(events)
    at = open_run(app, REFUND)
    at.button(key="lens.last").click().run()
    slot_table(at, "Messages")
    at.button(key="lens.previous").click().run()  # the final call's start: same call
    at.button(key="lens.previous").click().run()  # the call before it ends
    no_exception(at)
    assert served_context_shown(at)
    [messages] = [d.value for d in at.dataframe if "provenance" in d.value.columns]
    assert list(messages["source"]) == [p["source"] for p in served(events, starts[-2], "messages")]


def test_a_tool_results_source_link_moves_the_slider_to_the_call_that_asked_for_it(app):
    events = typed_events(REFUND)
    calls = len(llm_starts(events))
    start, failing = tool_event(events, "tool_start", toolName="issue_refund")
    row = [p.get("sourceId") for p in served(events, llm_starts(events)[-1], "messages")].index(
        failing["toolCallId"])
    at = open_run(app, REFUND)
    at.button(key="lens.last").click().run()
    open_served_context(at, "Messages")
    link = next(b for b in at.button if b.key and b.key.startswith("lens.served.")
                and b.key.endswith(f"-messages-go-{row}"))
    link.click().run()
    no_exception(at)
    k = asking_call(events, start)
    assert caption(at).startswith(f"step {2 * k} of {2 * calls} · llm→tool")
    # From there, walk back from this call's output: the Backtrack tab opens on it.
    at.button(key="lens.served.backtrack").click().run()
    no_exception(at)
    assert at.session_state[TAB] == BACKTRACK_TAB
    assert at.selectbox(key="lens.backtrack-target").value == k - 1
    assert any(line.startswith(f"1. model output: Model call {k} ") for line in texts(at))


# ─── backtrack ─────────────────────────────────────────────────────────


def test_the_final_answers_backtrack_reaches_the_failing_refund_and_its_links_move_the_slider(app):
    events = typed_events(REFUND)
    calls = len(llm_starts(events))
    refund_start, refund = tool_event(events, "tool_start", toolName="issue_refund")
    _, escalate = tool_event(events, "tool_start", toolName="escalate_ticket")
    at = open_tab(open_run(app, REFUND), BACKTRACK_TAB)
    lines = texts(at)
    assert any(line.startswith("1. final answer: ") for line in lines)
    # The failed call's link is an error alert with the relation, then its name as text.
    alert = next(a.value for a in at.error if "returned by tool call" in a.value)
    number = int(re.match(r"(\d+)\.", alert).group(1))
    result = next(i for i, line in enumerate(lines)
                  if re.match(rf"[\s│↳]*{number}\. issue_refund {refund['toolCallId']}$", line))
    assert any(f"returned by tool call: escalate_ticket {escalate['toolCallId']}" in line
               for line in lines)
    asker = lines[result + 1]
    assert "asked for by: Model call" in asker
    k = asking_call(events, refund_start)
    at.button(key=f"lens.backtrack-go-{link_number(asker)}").click().run()
    no_exception(at)
    assert at.session_state[TAB] == STEPS_TAB
    assert caption(at).startswith(f"step {2 * k} of {2 * calls} · llm→tool")

    # On request, from the model call at the slider's step instead of the final answer.
    open_tab(at, BACKTRACK_TAB)
    at.button(key="lens.backtrack.from_here").click().run()
    assert at.selectbox(key="lens.backtrack-target").value == k - 1
    assert any(line.startswith(f"1. model output: Model call {k} ") for line in texts(at))


def test_the_backtrack_export_carries_the_recording_id_and_escaped_content(app):
    case = "hostile-strings-agent"
    run_ids = {e["meta"]["runId"] for e in typed_events(case)}
    exported: dict[str, tuple] = {}
    real = streamlit.download_button

    def spy(label, data, *args, **kwargs):
        exported[label] = (data, kwargs.get("file_name"), kwargs.get("mime"))
        return real(label, data, *args, **kwargs)

    at = app.run()
    upload(at, "hostile.json", corpus_bytes(case))
    at.session_state[TAB] = BACKTRACK_TAB
    with mock.patch.object(streamlit, "download_button", spy):
        at.run()
    no_exception(at)
    report, file_name, mime = exported["Download the backtrack report (Markdown)"]
    assert (file_name, mime) == ("backtrack-report.md", "text/markdown")
    assert report.startswith("# Backtrack report")
    (run_id,) = run_ids
    assert run_id in report
    code, prose = split_code(report)
    assert any("<script>alert(1)</script>" in piece for piece in code)  # the content is there
    for marker in HOSTILE_MARKERS:  # ... and only ever inside code
        assert marker not in "\n".join(prose), marker


def test_under_the_reference_projection_a_link_goes_to_the_nearest_step_and_says_so(app):
    events = typed_events(REFUND)
    reference = expected(REFUND)["runSteps"]["replayCoalesced"]["steps"]
    final_start = events[llm_starts(events)[-1]]["meta"]["wallClockMs"]
    nearest = max(i for i, s in enumerate(reference) if s["tsMs"] <= final_start)
    at = open_tab(open_run(app, REFUND, profile="reference"), BACKTRACK_TAB)
    assert any("does not show model calls as steps" in c.value for c in at.caption)
    final = at.button(key="lens.backtrack-go-1")
    assert final.label.endswith("(nearest)")
    final.click().run()
    no_exception(at)
    assert caption(at).startswith(f"step {nearest + 1} of {len(reference)} · ")


# ─── search ────────────────────────────────────────────────────────────


def test_search_finds_a_reviewers_output_and_its_hit_drills_into_that_reviewers_scope(app):
    case = "nested-sequence-with-parallel"
    events = typed_events(case)
    end = next(e for e in events if e["type"] == P + "stream.llm_end"
               and "security" in e["meta"]["subflowPath"])
    output = end["payload"]["content"]
    # An LLMCall's own sf-llm-call wrapper shows its parent's steps: the scope is the parent.
    path = ["__root__", *end["meta"]["subflowPath"]]
    scope = "/".join(path[:-1] if path[-1] == "sf-llm-call" else path)
    at = open_tab(open_run(app, case), SEARCH_TAB)
    at.text_input(key="lens.search-query").input(output).run()
    no_exception(at)
    # Each hit is headed by its kind (· its label); the header's texts come first.
    kinds = [line.split(" · ")[0] for line in texts(at)
             if line.split(" · ")[0] in SEARCH_KINDS]
    assert "model output" in kinds
    # The snippet is one escaped line with the match in bold.
    assert any(output in unescaped_text(m.value) for m in at.markdown)
    at.button(key=f"lens.search-go-{kinds.index('model output')}").click().run()
    no_exception(at)
    assert at.session_state[TAB] == STEPS_TAB
    assert at.query_params["drill"] == scope
    assert caption(at).startswith("step 2 of 2 · llm→user")  # an LLMCall's answer
    assert output in [c.value for c in at.code]  # its served context, output included
    # The query is kept for a trip back to the Search tab.
    open_tab(at, SEARCH_TAB)
    assert at.text_input(key="lens.search-query").value == output


# ─── honesty ───────────────────────────────────────────────────────────


def test_a_lean_recording_says_what_was_not_recorded(app):
    case = "lean-agent-two-tools"
    at = upload(app.run(), "lean.json", corpus_bytes(case))
    assert caption(at).startswith("step 1 of ")
    open_served_context(at)
    assert any(w.value.startswith("Lean recording: the boundary log carries no payloads")
               for w in at.warning)
    # Without its typed stream, a lean file carries no content at all: the panel says so.
    document = json.loads(corpus_plain_bytes(case))
    del document["events"]
    upload(at, "lean-boundary-only.json", json.dumps(document).encode())
    open_served_context(at)
    assert served_context_shown(at)
    assert any("This boundary log is lean" in w.value for w in at.warning)
    assert any(line.startswith("content not recorded") for line in texts(at))
    open_served_context(at, "Output and tool calls")
    assert "Output: not recorded (no content)." in [c.value for c in at.caption]

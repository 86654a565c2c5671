"""The evidence index and views on the real recordings.

Expected values are read from the recordings themselves (or their
expected.json), with the literal values noted where the issue names them.
Steps come from expected.json (``runSteps.replayCoalesced.rawSteps``, the JS
recorder's own output), so the step mapping is checked against the reference
and not against this project's projection.
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from corpus_files import case_names, load_expected, recording_path
from lens.evidence.backtrack import MAX_BACKTRACK_LINKS, backtrack
from lens.evidence.delta import context_delta
from lens.evidence.nav import nav_for_call
from lens.evidence.report import backtrack_report
from lens.evidence.search import SNIPPET_RADIUS, search
from lens.evidence.served import served_context
from lens.text import CLIP_LIMIT
from markdown_regions import split_code
from recorders.evidence import (MESSAGES, SOURCE_BOUNDARY, TOOLS, build_evidence_index,
                                StepMap, build_from_events, run_id)
from recorders.loading import load_path
from recorders.projections import build_projection
from recorders.run_step import RunStep

P = "agentfootprint."


@lru_cache(maxsize=None)
def loaded(case: str):
    recording = load_path(recording_path(case))
    return recording, build_evidence_index(recording)


@lru_cache(maxsize=None)
def reference_steps(case: str) -> list[RunStep]:
    """The reference replay's raw steps (equal to the JS ``rawSteps``: see the conformance test)."""
    recording, _ = loaded(case)
    return build_projection(recording, "reference").steps.raw_steps()


def typed(recording, kind: str) -> list[dict]:
    return [e for e in recording.typed_events if e["type"] == P + kind]


# ── every recording ──────────────────────────────────────────────────

@pytest.mark.parametrize("case", case_names())
def test_every_model_and_tool_call_of_the_recording_is_indexed(case):
    recording, index = loaded(case)
    counts = load_expected(case)["counts"]["typedEventsByType"]
    assert len(index.calls) == counts.get(P + "stream.llm_start", 0)
    assert sum(c.ended for c in index.calls) == counts.get(P + "stream.llm_end", 0)
    assert len(index.tool_calls) == counts.get(P + "stream.tool_start", 0)
    assert sum(t.ended for t in index.tool_calls) == counts.get(P + "stream.tool_end", 0)
    assert index.anomalies == ()


@pytest.mark.parametrize("case", case_names())
def test_every_react_step_of_the_reference_shows_exactly_one_indexed_call(case):
    recording, index = loaded(case)
    steps = reference_steps(case)
    smap = StepMap(index, steps)
    for position, step in enumerate(steps):
        if step.kind != "react":
            continue
        call_id, exact = smap.call_at(position, nearest=False)
        assert exact, (case, position)
        call = index.calls[call_id]
        assert call.runtime_stage_id == step.runtime_stage_id
        end = call.ts_end if call.ended else call.ts_start  # a crashed call never ended
        assert call.ts_start <= step.ts_ms <= end
    for call in index.calls:
        shown = smap.steps_for_call(call.id)
        assert bool(shown) == bool(call.in_boundary_log), (case, call.id)


@pytest.mark.parametrize("case", case_names())
def test_every_call_has_a_served_context_and_a_backtrack(case):
    recording, index = loaded(case)
    smap = StepMap(index, reference_steps(case))
    for call in index.calls:
        model = served_context(index, call.id, smap)
        assert [s.slot for s in model.slots][:3] == ["system-prompt", "messages", "tools"]
    chain = backtrack(index, step_map=smap)
    assert chain.links and chain.links[0].kind == "output"


# ── the refund that failed ────────────────────────────

def test_the_final_answer_backtracks_to_the_failing_refund_and_the_escalation():
    case = "agent-refund-multi-tools-error"
    recording, index = loaded(case)
    # From the recording: issue_refund is tool call c4 and throws; its boundary
    # tool.end has error: true. escalate_ticket is c5. The model calls that
    # asked for them are the last llm_end before each tool_start:
    # call-llm#58 (events[74]) and call-llm#78 (events[104]).
    asked_by = {}
    last_end = None
    for e in recording.typed_events:
        if e["type"] == P + "stream.llm_end":
            last_end = e["meta"]["runtimeStageId"]
        if e["type"] == P + "stream.tool_start":
            asked_by[e["payload"]["toolName"]] = last_end
    assert asked_by["issue_refund"] == "call-llm#58"
    assert asked_by["escalate_ticket"] == "call-llm#78"
    failing = {e["toolCallId"] for e in recording.boundary_events
               if e["type"] == "tool.end" and e.get("error") is True}
    assert failing == {"c4"}

    steps = reference_steps(case)
    chain = backtrack(index, step_map=StepMap(index, steps))
    final_rid = [e for e in typed(recording, "stream.llm_end")
                 if e["payload"]["toolCallCount"] == 0][-1]["meta"]["runtimeStageId"]
    assert chain.links[0].relation == "final answer"
    assert index.calls[chain.target_call_id].runtime_stage_id == final_rid == "call-llm#98"

    tools = {index.tool_calls[link.tool_id].name: link for link in chain.tools()}
    assert {"issue_refund", "escalate_ticket"} <= set(tools)
    for name, error in (("issue_refund", True), ("escalate_ticket", False)):
        link = tools[name]
        at = chain.links.index(link)
        result_link, asker_link = chain.links[at - 1], chain.links[at + 1]
        assert link.error is error and result_link.error is error
        assert result_link.relation == ("tool result (ERROR)" if error else "tool result")
        assert asker_link.relation == "asked for by"
        asker_rid = index.calls[asker_link.call_id].runtime_stage_id
        assert asker_rid == asked_by[name]
        # Its link moves the slider to the step where that call asked for tools.
        step = steps[asker_link.nav.step]
        assert asker_link.nav.exact
        assert (step.kind, step.label, step.runtime_stage_id) == (
            "react", "llm→tool", asker_rid)

    error_text = "PaymentGatewayTimeout: POST /v2/refunds timed out after 30000 ms (req id rf_8842)"
    assert tools["issue_refund"].tool_id is not None
    assert index.tool_calls[tools["issue_refund"].tool_id].result == error_text


def test_the_refund_backtrack_report_cites_the_recording_and_its_steps():
    case = "agent-refund-multi-tools-error"
    recording, index = loaded(case)
    steps = reference_steps(case)
    chain = backtrack(index, step_map=StepMap(index, steps))
    report = backtrack_report(index, chain, recording_id=run_id(recording), steps=steps)
    code, prose = split_code(report)
    assert recording.typed_run_ids == ["run-1795961510957-4"]
    assert " run-1795961510957-4 " in code
    refund_line = next(line for line in report.split("\n") if "issue_refund c4" in line
                       and "returned by tool call" in line)
    asker = next(i for i, s in enumerate(steps)
                 if s.runtime_stage_id == "call-llm#58" and s.label == "llm→tool")
    assert "**ERROR**" in refund_line
    assert f"step {steps[asker].seq}" in refund_line


def test_the_failing_result_is_marked_in_the_served_context_of_the_next_call():
    recording, index = loaded("agent-refund-multi-tools-error")
    call = next(c for c in index.calls if c.runtime_stage_id == "call-llm#78")
    model = served_context(index, call.id)
    messages = next(s for s in model.slots if s.slot == MESSAGES)
    errors = [r for r in messages.rows if r.error]
    assert [(r.source_id, r.change) for r in errors] == [("c4", "added")]
    assert errors[0].provenance.startswith("ERROR result of tool call c4 (issue_refund)")


# ── the served tools follow the skill ─────────────────

def test_the_served_tools_change_with_the_skill_and_the_delta_shows_it():
    recording, index = loaded("skillgraph-route-hops-envelope")
    offered = [[t["name"] for t in e["payload"]["tools"]]
               for e in typed(recording, "stream.llm_start")]
    active = [e["payload"]["activeIds"] for e in typed(recording, "context.evaluated")]
    # From the recording: the route esxi-inventory → volume-lookup → lun-performance
    # unlocks resolve_volume, then swaps it for get_lun_perf.
    assert offered[:3] == [["read_skill", "get_vm_storage"],
                           ["read_skill", "get_vm_storage", "resolve_volume"],
                           ["read_skill", "get_vm_storage", "get_lun_perf"]]
    assert active[:3] == [["esxi-inventory"], ["esxi-inventory", "volume-lookup"],
                          ["esxi-inventory", "lun-performance"]]
    for call in index.calls[1:]:
        before, now = offered[call.id - 1], offered[call.id]
        delta = context_delta(index, call.id)
        assert delta.previous_call_id == call.id - 1
        assert sorted(i.key[1] for i in delta.in_slot(TOOLS, "added")) == sorted(
            set(now) - set(before))
        assert sorted(i.key[1] for i in delta.in_slot(TOOLS, "removed")) == sorted(
            set(before) - set(now))
        assert set(delta.skills_added) == set(active[call.id]) - set(active[call.id - 1])
        assert set(delta.skills_removed) == set(active[call.id - 1]) - set(active[call.id])
    third = context_delta(index, 2)
    assert [i.what for i in third.in_slot(TOOLS, "added")] == [
        "tool get_lun_perf (unlocked by skill lun-performance)"]
    assert [i.what for i in third.in_slot(TOOLS, "removed")] == [
        "tool resolve_volume (unlocked by skill volume-lookup)"]
    # read_skill stays but its description (what is reachable) changes.
    assert [i.key[1] for i in third.in_slot(TOOLS, "changed")] == ["read_skill"]


def test_the_served_context_panel_marks_the_newly_unlocked_tool():
    recording, index = loaded("skillgraph-route-hops-envelope")
    model = served_context(index, 1)
    tools = next(s for s in model.slots if s.slot == TOOLS)
    added = [r for r in tools.rows if r.change == "added"]
    assert [(r.source_id, r.provenance) for r in added] == [
        ("volume-lookup", "unlocked by skill volume-lookup")]
    assert added[0].content.full.startswith("resolve_volume:")


# ── the 50,000-character line ─────────────────────────

def test_search_finds_the_long_line_and_shows_it_truncated_with_the_full_value_at_hand():
    case = "hostile-strings-agent"
    recording, index = loaded(case)
    (save,) = [e for e in typed(recording, "stream.tool_start")
               if e["payload"]["toolName"] == "save_note"]
    line = save["payload"]["args"]["text"]
    assert len(line) == 50_000 and "\n" not in line  # as the corpus README says
    final = typed(recording, "stream.llm_end")[-1]["payload"]["content"]

    results = search(index, 'alert("deep")', StepMap(index, reference_steps(case)))
    by_kind = {h.kind: h for h in results.hits}
    args_hit = by_kind["tool arguments"]
    assert args_hit.label == "save_note"
    assert line in args_hit.full_value
    assert args_hit.preview.truncated and len(args_hit.preview.text) < CLIP_LIMIT + 100
    assert line not in args_hit.preview.text
    assert '<script>alert("deep")</script>' in args_hit.snippet
    assert len(args_hit.snippet) <= 2 * SNIPPET_RADIUS + len('alert("deep")') + 2
    assert by_kind["model output"].full_value == final
    for hit in results.hits:
        assert hit.nav is not None and hit.nav.step is not None


def test_hostile_controls_are_visible_in_search_snippets():
    recording, index = loaded("hostile-strings-agent")
    hit = search(index, "gnp.exe").hits[0]
    assert "\u202e" not in hit.snippet and "⟨U+202E⟩" in hit.snippet
    assert "\u202e" in hit.full_value


# ── lean recordings ───────────────────────────────────

@pytest.mark.parametrize("case", ["lean-agent-two-tools", "large-agent-300-tool-calls"])
def test_lean_files_drop_boundary_payloads_but_keep_the_typed_stream_whole(case):
    recording, _ = loaded(case)
    assert recording.is_lean
    boundary = recording.boundary_events
    absent = {"llm.end": "content", "tool.start": "args", "tool.end": "result",
              "context.injected": "contentSummary", "subflow.entry": "payload",
              "run.entry": "payload"}
    for kind, key in absent.items():
        events = [e for e in boundary if e["type"] == kind]
        assert events and not any(key in e for e in events), (kind, key)
    present = {"stream.llm_end": "content", "stream.tool_start": "args",
               "stream.tool_end": "result", "context.injected": "rawContent"}
    for kind, key in present.items():
        events = typed(recording, kind)
        assert events and all(key in e["payload"] for e in events), (kind, key)


@pytest.mark.parametrize("case", ["lean-agent-two-tools", "large-agent-300-tool-calls"])
def test_the_lean_panel_says_what_is_not_recorded_and_shows_the_typed_context(case):
    recording, index = loaded(case)
    for call in (index.calls[0], index.calls[-1]):
        model = served_context(index, call.id)
        lean = [n for n in model.notices if n.startswith("Lean recording")]
        assert lean and "no payloads" in lean[0] and "typed event stream" in lean[0]
        messages = next(s for s in model.slots if s.slot == MESSAGES)
        assert messages.rows and all(r.content is not None and r.content.full
                                     for r in messages.rows)
        assert model.output is not None


def test_without_the_typed_stream_the_lean_panel_reports_payloads_not_recorded():
    recording, _ = loaded("lean-agent-two-tools")
    index = build_from_events([], recording.boundary_events, lean=True,
                              has_typed_stream=False)
    assert index.source == SOURCE_BOUNDARY and len(index.calls) == 3
    model = served_context(index, 1)
    assert any("lean" in n and "no summaries, outputs, tool arguments or results" in n
               for n in model.notices)
    messages = next(s for s in model.slots if s.slot == MESSAGES)
    assert messages.rows and all(r.content is None for r in messages.rows)
    assert any("no content recorded" in n for n in messages.notes)
    assert model.output is None and model.output_status.startswith("not recorded")
    assert all(t.result is None and t.status == "not recorded" for t in model.tool_rows)


# ── other facts the panels must not hide ─────────────────────────────

def test_calls_of_an_earlier_run_say_why_they_have_no_step():
    case = "multirun-agent-two-runs"
    recording, index = loaded(case)
    smap = StepMap(index, reference_steps(case))
    first_run = recording.typed_run_ids[0]
    early = [c for c in index.calls if c.run_id == first_run]
    assert len(early) == 2 and all(c.in_boundary_log is False for c in early)
    nav = nav_for_call(index, smap, early[0].id)
    assert nav.step is None and "earlier run" in nav.why_no_step
    assert any("2 runs" in n for n in index.notices)


def test_the_crashed_call_shows_the_provider_error_and_no_output():
    recording, index = loaded("crash-provider-error-envelope")
    (fatal,) = typed(recording, "error.fatal")
    model = served_context(index, index.calls[-1].id)
    assert model.output is None and model.failure.full == fatal["payload"]["error"]
    assert any("did not end" in n for n in model.notices)
    assert any("complete: false" in n for n in model.notices)


def test_a_composition_step_hands_its_output_to_the_next_steps_user_message():
    recording, index = loaded("sequence-3-llmcalls-envelope")
    extract, draft = index.calls[1], index.calls[2]
    user = draft.slots[MESSAGES].pieces[0]
    assert user.content == extract.output
    assert user.matches_output_of == extract.id


def test_evictions_in_the_sliding_window_name_the_evicted_messages():
    recording, index = loaded("large-agent-300-tool-calls")
    evicted = typed(recording, "context.evicted")
    assert sum(len(c.evictions) for c in index.calls) == len(evicted)
    with_pieces = [e for c in index.calls for e in c.evictions if e.pieces]
    assert len(with_pieces) == len(evicted)
    assert {e.pieces[0].content_hash for e in with_pieces} == {
        e["payload"]["contentHash"] for e in evicted}


def test_a_long_history_is_cut_at_its_far_end_never_in_the_answers_context():
    recording, index = loaded("large-agent-300-tool-calls")
    chain = backtrack(index)
    assert chain.truncated and len(chain.links) == MAX_BACKTRACK_LINKS
    final = index.final_call()
    own = {p.content for p in final.slots[MESSAGES].pieces}
    listed = {l.text.full for l in chain.links if l.depth == 1 and l.text is not None}
    assert own <= listed

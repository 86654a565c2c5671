"""Evidence view models on hand-built runs: display, delta, backtrack, report, search."""

from __future__ import annotations

from evidence_events import (agent_run, composed, event, inject, llm_end, llm_start,
                             tool_end, tool_start)
from lens.evidence.backtrack import backtrack
from lens.evidence.delta import context_delta
from lens.evidence.report import backtrack_report, md_code_span, md_fenced
from lens.evidence.search import search
from lens.evidence.served import PieceRow, piece_pages, served_context
from lens.text import markdown_literal, visible
from markdown_regions import split_code
from recorders.evidence import MESSAGES, SYSTEM_PROMPT, TOOLS, StepMap, build_from_events
from recorders.run_step import Anchor, RunStep

HOSTILE = ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>',
           '[click me](javascript:alert(1))', '![pixel](https://attacker.example/p.gif)',
           '```', '~~~', '**bold** _it_', '\u202egnp.exe\u202c', '</div><h1>PWNED</h1>']


# ── Markdown escaping ────────────────────────────────────────────────

def test_a_code_span_holds_any_text_literally():
    for text in HOSTILE + ["`", "a ``` b", "`` x ``", " lead", ""]:
        span = md_code_span(text)
        code, prose = split_code(span)
        if text:
            assert code == [" " + visible(text) + " "], text
            assert "".join(prose) == ""


def test_a_fenced_block_cannot_be_closed_by_its_content():
    content = "line\n```\n````\n<script>x</script>\n[a](b)"
    code, prose = split_code(md_fenced(content))
    assert code == ["line\n```\n````\n<script>x</script>\n[a](b)"]
    assert "".join(prose).strip() == ""


def test_escaped_text_has_no_live_markup():
    escaped = markdown_literal("<b>[x](y) *a* _b_ `c` !d #e \\f\nnext")
    assert "\n" not in escaped
    for char in "<>[]()*_`!#":
        assert all(escaped[i - 1] == "\\" for i, c in enumerate(escaped) if c == char), char


# ── delta ────────────────────────────────────────────────────────────

def test_the_delta_lists_added_removed_and_changed_pieces_by_slot():
    events = [inject("system-prompt", "v1 rules", source="base"), composed("system-prompt"),
              inject("tools", "a: tool a", source="registry", source_id="a"),
              inject("tools", "b: tool b", source="registry", source_id="b"), composed("tools"),
              llm_start("c#1", ts=1), llm_end("c#1", "x", ts=2),
              inject("system-prompt", "v2 rules", source="base"), composed("system-prompt"),
              inject("tools", "a: tool a", source="registry", source_id="a"),
              inject("tools", "c: tool c", source="skill", source_id="skill-x"), composed("tools"),
              llm_start("c#3", ts=3), llm_end("c#3", "y", ts=4)]
    delta = context_delta(build_from_events(events), 1)
    assert delta.previous_call_id == 0
    assert [(i.change, i.before.full, i.after.full) for i in delta.in_slot(SYSTEM_PROMPT)] == [
        ("changed", "v1 rules", "v2 rules")]
    assert [(i.change, i.key) for i in delta.in_slot(TOOLS)] == [
        ("added", ("tool", "c")), ("removed", ("tool", "b"))]
    assert "unlocked by skill" in delta.in_slot(TOOLS, "added")[0].what


def test_the_first_call_in_a_scope_has_nothing_to_compare_with():
    delta = context_delta(build_from_events(agent_run()), 0)
    assert delta.previous_call_id is None and delta.items == ()


def test_a_carried_over_slot_shows_no_change_and_says_why():
    events = [inject("system-prompt", "rules", source="base"), composed("system-prompt"),
              llm_start("c#1", ts=1), llm_end("c#1", "x", ts=2),
              inject("messages", "q", source="user", role="user"), composed("messages"),
              llm_start("c#3", ts=3), llm_end("c#3", "y", ts=4)]
    delta = context_delta(build_from_events(events), 1)
    assert delta.in_slot(SYSTEM_PROMPT) == []
    assert any("not recomposed" in n for n in delta.notes)
    assert [i.change for i in delta.in_slot(MESSAGES)] == ["added"]


# ── served context ───────────────────────────────────────────────────

def test_served_context_marks_pieces_new_since_the_previous_call():
    model = served_context(build_from_events(agent_run()), 1)
    messages = next(s for s in model.slots if s.slot == MESSAGES)
    assert [r.change for r in messages.rows] == [None, "added", "added"]
    assert messages.rows[2].error is True
    assert "ERROR result of tool call c1 (lookup)" in messages.rows[2].provenance


def test_served_context_says_what_is_missing_when_a_call_never_ended():
    events = [inject("messages", "q", source="user", role="user"), llm_start("c#1", messages=1)]
    model = served_context(build_from_events(events), 0)
    assert model.output is None and "did not end" in model.output_status
    assert any("did not end" in n for n in model.notices)
    tools = next(s for s in model.slots if s.slot == TOOLS)
    assert tools.status.startswith("no tools offered")
    system = next(s for s in model.slots if s.slot == SYSTEM_PROMPT)
    assert system.status.startswith("not recorded") and system.rows == ()


def test_served_context_flags_counts_that_disagree_with_llm_start():
    events = [inject("messages", "q", source="user", role="user"), composed("messages"),
              llm_start("c#1", messages=3), llm_end("c#1", "x")]
    model = served_context(build_from_events(events), 0)
    assert any("llm_start says 3 messages" in n for n in model.notices)


def test_view_model_own_words_never_carry_recording_text():
    nasty = "<script>alert(1)</script>"
    events = [inject("messages", nasty, source=nasty, role=nasty, source_id=nasty),
              inject(nasty, nasty, source=nasty), composed("messages"),
              llm_start("c#1", model=nasty), llm_end("c#1", nasty, tool_calls=1),
              tool_start(nasty, nasty, {nasty: nasty}), tool_end(nasty, nasty, error=True)]
    index = build_from_events(events)
    model = served_context(index, 0)
    own_words = [model.title, model.output_status, model.usage, *model.notices,
                 model.delta.summary, *model.delta.notes]
    for panel in model.slots:
        own_words += [panel.title, panel.status, panel.budget, *panel.notes]
    assert not any("<script" in w for w in own_words)


# ── backtrack ────────────────────────────────────────────────────────

def test_backtrack_walks_from_the_answer_to_the_failing_tool_and_the_call_that_asked():
    index = build_from_events(agent_run())
    chain = backtrack(index)
    assert chain.target_call_id == 1 and chain.links[0].relation == "final answer"
    (tool_link,) = chain.tools()
    assert tool_link.error and tool_link.title == "lookup c1"
    after = chain.links[chain.links.index(tool_link) + 1]
    assert (after.relation, after.call_id) == ("asked for by", 0)
    written = [l for l in chain.links if l.relation == "written by"]
    assert [(l.call_id, l.inferred) for l in written] == [(0, "matched by identical text")]
    user = [l for l in chain.links if l.relation.startswith("user message")]
    assert len(user) == 1  # listed once although both calls were served it


def test_backtrack_from_a_call_without_context_says_so():
    chain = backtrack(build_from_events([llm_start("c#1"), llm_end("c#1", "hi")]))
    assert [l.kind for l in chain.links] == ["output", "note"]


def test_backtrack_is_cut_at_the_link_limit_and_says_so():
    chain = backtrack(build_from_events(agent_run()), max_links=3)
    assert len(chain.links) == 3 and chain.truncated
    assert any("cut at 3" in n for n in chain.notes)


def test_the_report_cites_the_recording_and_steps_and_keeps_hostile_text_in_code():
    nasty = " ".join(HOSTILE)
    events = [inject("messages", nasty, source="user", role="user", ts=1),
              llm_start("c#1", ts=2), llm_end("c#1", nasty, tool_calls=1, ts=3),
              tool_start(nasty, "t1", {"q": nasty}, ts=4), tool_end("t1", nasty, error=True, ts=5),
              inject("messages", nasty, source="user", role="user", ts=6),
              inject("messages", nasty, source="assistant", role="assistant", ts=6),
              inject("messages", nasty, source="tool-result", role="tool", source_id="t1", ts=6),
              llm_start("c#7", ts=7), llm_end("c#7", nasty, ts=8)]
    index = build_from_events(events)

    def react(seq, rid, ts):
        return RunStep(seq, "react", (), Anchor(rid, ("__root__",)), nasty, ts)

    steps = [react(0, "c#1", 2), react(1, "c#1", 3), react(2, "c#7", 7), react(3, "c#7", 8)]
    chain = backtrack(index, step_map=StepMap(index, steps))
    report = backtrack_report(index, chain, recording_id="run-<b>1</b>", steps=steps)
    code, prose = split_code(report)
    prose_text = "\n".join(prose)
    assert "run-<b>1</b>" in " ".join(code)
    for fragment in ("<script", "<img", "](", "![", "</div>", "\u202e", "onerror"):
        assert fragment not in prose_text, fragment
    assert "step 3" in prose_text and "step 1" in prose_text
    assert "**ERROR**" in prose_text
    assert report.startswith("# Backtrack report")


# ── search ───────────────────────────────────────────────────────────

def test_search_is_case_insensitive_by_default_and_can_match_case():
    index = build_from_events(agent_run())
    assert {h.kind for h in search(index, "TIMEOUT").hits} >= {"tool result", "message"}
    assert search(index, "TIMEOUT", case_sensitive=True).total == 0


def test_search_shows_a_short_snippet_around_the_match_in_a_long_value():
    events = [llm_start("c#1"), llm_end("c#1", "A" * 30_000 + "NEEDLE" + "B" * 30_000)]
    (hit,) = search(build_from_events(events), "needle").hits
    assert hit.match_start == 30_000 and hit.value_length == 60_006
    assert hit.snippet == "…" + "A" * 80 + "NEEDLE" + "B" * 80 + "…"
    assert hit.preview.truncated and len(hit.full_value) == 60_006


def test_search_reports_how_many_matched_beyond_the_limit():
    events = []
    for n in range(5):
        events += [llm_start(f"c#{n}", ts=n), llm_end(f"c#{n}", f"word {n}", ts=n)]
    results = search(build_from_events(events), "word", limit=2)
    assert results.total == 5 and len(results.hits) == 2 and results.truncated


def test_search_finds_route_reasons_and_errors():
    events = [llm_start("c#1"), llm_end("c#1", "x"),
              event("agent.route_decided", {"chosen": "final", "rationale": "no tool calls"},
                    rid="sf-route#2"),
              event("error.fatal", {"error": "provider overloaded"})]
    index = build_from_events(events)
    assert [h.kind for h in search(index, "no tool calls").hits] == ["route reason"]
    assert [h.kind for h in search(index, "overloaded").hits] == ["error"]


def test_an_empty_query_finds_nothing():
    assert search(build_from_events(agent_run()), "   ").hits == ()


def test_regex_characters_in_a_query_are_literal():
    events = [llm_start("c#1"), llm_end("c#1", "cost (approx.) $5*2")]
    assert search(build_from_events(events), "(approx.) $5*").total == 1
    assert search(build_from_events(events), "c.st").total == 0


def test_the_answers_own_context_comes_before_older_context_behind_it():
    # A sliding window: the answer no longer sees "early note", which the call
    # that wrote its assistant message did see.
    events = [inject("messages", "early note", source="user", role="user", ts=1),
              llm_start("c#1", ts=2), llm_end("c#1", "step one", ts=3),
              inject("messages", "step one", source="assistant", role="assistant", ts=4),
              inject("messages", "late note", source="user", role="user", ts=4),
              llm_start("c#5", ts=5), llm_end("c#5", "answer", ts=6)]
    chain = backtrack(build_from_events(events))
    relations = [(l.relation, l.depth) for l in chain.links]
    assert relations == [("final answer", 0), ("assistant message", 1), ("written by", 2),
                         ("user message", 1), ("context served to", 2),
                         ("user message", 3)]
    assert chain.links[-1].text.full == "early note"


# ── pages of a slot's pieces ─────────────────────────────────────────

def _row(change: str | None) -> PieceRow:
    return PieceRow(position=None, role="user", source=None, source_id=None, reason=None,
                       content=None, provenance="", change=change, error=False, missing=(),
                       nav=None)


def test_a_long_slot_opens_on_the_page_of_its_first_change():
    rows = [_row(None)] * 23 + [_row("added"), _row("added")]
    pages, first = piece_pages(rows, 10)
    assert pages == [range(0, 10), range(10, 20), range(20, 25)]
    assert first == 2 and 23 in pages[first]


def test_a_slot_without_changes_opens_on_its_first_page():
    pages, first = piece_pages([_row(None)] * 12, 10)
    assert (pages, first) == ([range(0, 10), range(10, 12)], 0)
    assert piece_pages([], 10) == ([range(0)], 0)

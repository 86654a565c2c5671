"""The backtrack task in a real browser: from an open run to the failing tool's
step and its error text in at most three actions.

What counts as the answer is read from the recording itself: the typed
``tool_end`` that carries ``error: true`` (its error text), and the step the
lens projection anchors at the model call that asked for that tool (the last
``llm_end`` before the tool started), so nothing on screen is checked against
a number copied from the code.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from lens_browser import REPO
from lens_page import LensPage, key_class
from recorders.loading import load_path
from recorders.projections import build_projection

pytestmark = pytest.mark.browser

SAMPLE = "agent-refund-multi-tools-error"
SAMPLE_FILE = REPO / "sample_runs" / f"{SAMPLE}.json"
P = "agentfootprint."
MAX_ACTIONS = 3


def failing_tool() -> tuple[str, str, int]:
    """(tool name, error text, 1-based step number) of the run's first failed tool."""
    events = json.loads(SAMPLE_FILE.read_text())["events"]
    end = next(e for e in events if e["type"] == P + "stream.tool_end"
               and e["payload"].get("error") is True)
    call_id = end["payload"]["toolCallId"]
    start_at = next(i for i, e in enumerate(events) if e["type"] == P + "stream.tool_start"
                    and e["payload"].get("toolCallId") == call_id)
    name = events[start_at]["payload"]["toolName"]
    asker = next(e for e in reversed(events[:start_at]) if e["type"] == P + "stream.llm_end")
    stage = asker["meta"]["runtimeStageId"]
    steps = build_projection(load_path(SAMPLE_FILE), "lens").get_steps(None)
    number = next(n for n, step in enumerate(steps, 1)
                  if step.runtime_stage_id == stage and step.label == "llm→tool")
    return name, end["payload"]["result"], number


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


def test_backtrack_reaches_the_failing_tool_and_its_error_in_three_actions(lens):
    name, error_text, step_number = failing_tool()
    lens.choose_sample(SAMPLE)
    main = lens.page.locator('[data-testid="stMain"]')
    actions = 0

    # 1 (mouse): open the Backtrack tab. The likely causes come first, the
    # failed tool at their head, with its error text.
    lens.open_tab("Backtrack")
    actions += 1
    first_cause = lens.page.locator(f".{key_class('lens.causes-0')}")
    expect(first_cause).to_contain_text(name)
    expect(first_cause).to_contain_text(error_text)
    expect(first_cause.locator('[data-testid="stAlertContentError"]')).to_have_count(1)
    lens.screenshot("causes")

    # 2 (keyboard): focus the cause's link to its step and press Enter.
    go = lens.button("lens.causes-go-0")
    go.focus()
    lens.page.keyboard.press("Enter")
    actions += 1
    label = lens.wait_for_step(step_number)
    assert label.number == step_number
    assert lens.tab_selected("Steps")
    expect(main).to_contain_text(error_text)
    lens.screenshot("failing-step")
    assert actions <= MAX_ACTIONS


def test_the_chain_is_a_tree_of_sections_with_the_error_marked(lens):
    name, error_text, _ = failing_tool()
    lens.choose_sample(SAMPLE)
    lens.open_tab("Backtrack")
    # The chain's sections (a likely cause's "What was recorded" is an expander too).
    sections = lens.page.locator('[data-testid="stExpander"]').filter(
        has_not=lens.page.locator("summary", has_text="What was recorded"))
    expect(sections.first).to_be_visible()
    # The answer's own context is open, and the section holding the error says so.
    first = sections.first
    expect(first.locator("details")).to_have_attribute("open", "")
    expect(first).to_contain_text("error")
    expect(first.locator('[data-testid="stAlertContentError"]').first).to_be_visible()
    expect(first).to_contain_text(error_text)
    lens.screenshot("chain")


def test_search_highlights_matches_and_filters_to_errors(lens):
    name, error_text, _ = failing_tool()
    word = max(error_text.split(), key=len).strip(":")  # a word of the error text
    lens.choose_sample(SAMPLE)
    lens.open_tab("Search")
    field = lens.page.locator(f".{key_class('lens.search-query')} input")
    field.fill(word)
    field.press("Enter")
    lens.wait_idle()
    hits = lens.page.locator(f'[class*="{key_class("lens.search-hit-")}"]')
    expect(hits.first).to_be_visible()
    everything = hits.count()
    # Each shown match is bold, and only the match.
    bold = lens.page.locator('[data-testid="stMarkdownContainer"] strong').all_inner_texts()
    assert bold and all(b.lower() == word.lower() for b in bold)
    lens.page.locator(f".{key_class('lens.search-errors')} label").click()
    lens.wait_idle()
    expect(hits.first.locator('[data-testid="stAlertContentError"]')).to_have_count(1)
    errors = hits.count()
    assert 1 <= errors <= everything
    for n in range(errors):
        expect(hits.nth(n).locator('[data-testid="stAlertContentError"]')).to_have_count(1)
    lens.screenshot("errors-only")


def test_a_raw_event_opens_the_step_that_holds_it(lens):
    name, error_text, step_number = failing_tool()
    lens.choose_sample(SAMPLE)
    lens.open_page_link("raw events")
    field = lens.page.locator(f".{key_class('lens.events.typed.text')} input")
    field.fill("tool_end")
    field.press("Enter")
    lens.wait_idle()
    events = json.loads(SAMPLE_FILE.read_text())["events"]
    tool_ends = [e for e in events if e["type"] == P + "stream.tool_end"]
    failed_row = next(n for n, e in enumerate(tool_ends) if e["payload"].get("error") is True)
    lens.select_grid_row(failed_row)
    expect(lens.page.locator('[data-testid="stJson"]')).to_contain_text("PaymentGateway")
    lens.screenshot("event-selected")
    lens.button("lens.events.typed.go").click()
    label = lens.wait_for_step(step_number)
    assert label.number == step_number
    expect(lens.page.locator('[data-testid="stMain"]')).to_contain_text(error_text)


def test_a_sequence_answer_walks_back_through_the_merge_to_each_branch(lens):
    sample = "nested-sequence-with-parallel"
    events = json.loads((REPO / "sample_runs" / f"{sample}.json").read_text())["events"]
    branches = {tuple(e["meta"]["subflowPath"][:2]) for e in events
                if e["type"] == P + "stream.llm_start" and len(e["meta"]["subflowPath"]) > 2}
    lens.choose_sample(sample)
    lens.open_tab("Backtrack")
    main = lens.page.locator('[data-testid="stMain"]')
    expect(main).to_contain_text("Nothing in this run failed")
    merged = main.locator('[data-testid="stText"]').filter(has_text="merged answer of a branch")
    expect(merged).to_have_count(len(branches))
    # The plan step's answer was forwarded to each branch: in their (closed) sections.
    expect(main.locator('[data-testid="stText"]').filter(
        has_text="forwarded answer of the previous step")).not_to_have_count(0)
    lens.screenshot("sequence-chain")

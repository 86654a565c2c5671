"""Nothing in a recording runs or loads.

Two recordings: the corpus's ``hostile-strings-agent`` (markup, script, remote
images and ``javascript:`` links in prompts, tool arguments and results and
model output, plus a single 50,000-character line), and one built here from
real runs with hostile strings in every field the app displays (see
``lens_hostile.py``). Each is uploaded, stepped through to its final answer
(clipped values opened in full), drilled into, shown on the route panel, the
Backtrack report and a text search, and searched and opened on the raw
events page. At each stage the page must hold no element made from content
(``lens_dom.py``, compared with a clean baseline), and over the whole test no
dialog may open and no request may leave 127.0.0.1 (the page guard in
``conftest.py`` fails the test otherwise).
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

import lens_dom
from lens_browser import CORPUS, FIGURES, VIEWPORT, PageGuard, record_latency, record_note
from lens_hostile import (HOSTILE_HOSTS, HOSTILE_TEXT, ID_PAYLOADS, LONG_LINE_CHARS,
                          write_hostile)
from lens_page import LensPage
from lens_ui.evidence_panel import SERVED_TAB_BUTTONS, SERVED_TABS
from recorders.loading import load_path
from recorders.projections import build_projection

pytestmark = pytest.mark.browser

HOSTILE_AGENT = CORPUS / "hostile-strings-agent" / "recording.json.gz"
# Real runs rebuilt with hostile strings: a skill-graph Agent (skill ids, route
# captions and reasons, tool names) and a Conditional routing to an Agent
# (composition child names, decision rationale, a drillable child).
BUILT_FROM = {
    "skillgraph": CORPUS / "skillgraph-route-hops-envelope" / "envelope.json.gz",
    "conditional": CORPUS / "conditional-routes-to-agent" / "recording.json",
}
# A step change must finish within this, even on the 50,000-character line.
STEP_BOUND_MS = 15_000
# The page's main thread must answer within this after showing the long line.
FRAME_BOUND_MS = 1_000


@pytest.fixture(scope="session")
def built_recordings(tmp_path_factory):
    """Hostile copies of the ``BUILT_FROM`` runs; each still projects to the same steps."""
    out = tmp_path_factory.mktemp("hostile")
    built = {}
    for name, source in BUILT_FROM.items():
        target, ids = write_hostile(source, out)
        original, hostile = load_path(source), load_path(target)
        for profile in ("lens", "reference"):
            assert len(build_projection(hostile, profile).get_steps()) == \
                len(build_projection(original, profile).get_steps()), (name, profile)
        built[name] = (target, ids)
    record_note("hostile identifiers per built recording",
                {name: len(ids) for name, (_, ids) in built.items()})
    record_note("hostile payloads in built recordings",
                f"{len(ID_PAYLOADS)} identifier payloads, {len(HOSTILE_TEXT.splitlines())} "
                f"text lines, one {LONG_LINE_CHARS:,}-character line")
    return built


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


@pytest.fixture(scope="session")
def baseline(browser, lens_server, screenshot_dir) -> dict:
    """The clean app (default sample, last step) as the DOM probe sees it, once."""
    context = browser.new_context(viewport=VIEWPORT, base_url=lens_server.url)
    guard = PageGuard()
    page = context.new_page()
    guard.install(context, page)
    try:
        lens = LensPage(page, screenshot_dir, "clean-baseline")
        label = lens.open()
        lens.go("lens.last", label.total)
        found = lens_dom.probe(page)
        lens.screenshot("default-sample-last-step")
    finally:
        context.close()
    assert not guard.violations(), guard.violations()
    record_note("clean baseline DOM probe", {k: v for k, v in found.items()
                                             if k in lens_dom.SAME_AS_BASELINE + ("img",)})
    return found


def assert_inert(lens: LensPage, baseline: dict, stage: str, screenshot: bool = True) -> dict:
    lens.wait_idle(grace=0)
    found = lens_dom.probe(lens.page)
    problems = lens_dom.problems(found, baseline)
    if screenshot or problems:
        lens.screenshot(stage)
    assert not problems, f"at {stage}: content became markup: {problems}"
    FIGURES["notes"]["DOM probes of hostile views"] = \
        FIGURES["notes"].get("DOM probes of hostile views", 0) + 1
    return found


def step_through(lens: LensPage, baseline: dict, latency_name: str) -> None:
    """Every step of the current scope, by the Next button, checking each."""
    label = lens.step_label()
    if label.number != 1:
        label, _ = lens.go("lens.first", 1)
    while label.number < label.total:
        label, ms = lens.step_by("next")
        record_latency(latency_name, ms)
        assert ms < STEP_BOUND_MS, f"step {label.number} took {ms:.0f} ms"
        assert_inert(lens, baseline, f"step-{label.number}", screenshot=False)


def show_whole_values(lens: LensPage) -> int:
    """Open every "Show the whole value" expander on screen; how many were opened."""
    toggles = lens.page.locator('[data-testid="stExpander"] summary').filter(
        has_text="Show the whole value")
    count = toggles.count()
    for index in range(count):
        start = time.perf_counter()
        toggles.nth(index).click()
        lens.wait_idle()
        record_latency("open a clipped value in full", (time.perf_counter() - start) * 1000)
    return count


def search_events(lens: LensPage, text: str, baseline: dict, stage: str) -> None:
    """On the raw events page, filter by ``text`` and open the first hit as JSON."""
    box = lens.page.get_by_label("Contains (anywhere in the event)")
    expect(box.first).to_be_visible()
    box.first.fill(text)
    box.first.press("Enter")
    lens.wait_idle()
    expect(lens.page.locator('[data-testid="stMain"]')).not_to_contain_text(
        re.compile(r"(^|\D)0 of [\d,]+ events shown"))
    lens.select_grid_row(0)
    expect(lens.page.locator('[data-testid="stJson"]').first).to_be_visible()
    assert_inert(lens, baseline, stage)


def backtrack_and_search(lens: LensPage, baseline: dict, stage: str) -> None:
    """The Backtrack report from the final answer and a run-wide text search, both
    of which quote recording text, must stay text too."""
    lens.open_tab("Backtrack")
    start = lens.page.get_by_role("button", name="From the final answer")
    if start.count():
        start.first.click()
        lens.wait_idle()
    expect(lens.page.locator('[data-testid="stMain"]')).to_contain_text("Backtrack")
    assert_inert(lens, baseline, f"{stage}-backtrack")
    lens.open_tab("Search")
    box = lens.page.get_by_label("Find text anywhere in the run")
    box.fill("onerror")
    box.press("Enter")
    lens.wait_idle()
    hits = lens.page.locator('[data-testid="stMain"]').get_by_text(re.compile(r"\d+ matching value"))
    expect(hits.first).to_be_visible()
    assert not hits.first.inner_text().startswith("0 "), hits.first.inner_text()
    show_whole_values(lens)
    assert_inert(lens, baseline, f"{stage}-search")
    lens.open_tab("Steps")


def test_hostile_strings_agent_is_inert(lens, baseline, egress_sentinel):
    lens.open()
    label = lens.upload(HOSTILE_AGENT)
    assert label.number == 1
    # Chosen once, a part of the detail pane stays chosen: every step below draws
    # the served context, then every step again draws the step's own detail.
    lens.open_detail_pane("Served context")
    assert_inert(lens, baseline, "hostile-agent-first-step")
    step_through(lens, baseline, "step change, hostile-strings-agent")
    lens.open_detail_pane("This step")
    step_through(lens, baseline, "step change, hostile-strings-agent")
    final = lens.step_label()
    assert final.number == final.total
    main = lens.page.locator('[data-testid="stMain"]')
    # The final answer is on screen as text: the markup is shown, not run.
    expect(main).to_contain_text("<script>alert(1)</script>")
    expect(main).to_contain_text("<img src=x onerror=alert(1)>")
    expect(main).to_contain_text("![pixel](https://attacker.example/p.gif?c=1)")
    assert_inert(lens, baseline, "hostile-agent-final-answer")
    lens.open_detail_pane("Served context")
    for tab in SERVED_TABS:
        lens.open_tab(SERVED_TAB_BUTTONS.get(tab, tab))
        assert_inert(lens, baseline, f"hostile-agent-served-{tab}", screenshot=False)
    lens.open_tab(SERVED_TAB_BUTTONS.get(SERVED_TABS[0], SERVED_TABS[0]))
    for pane in ("Evidence", "Raw step"):
        lens.open_detail_pane(pane)
        assert_inert(lens, baseline, f"hostile-agent-{pane}", screenshot=False)
    lens.open_detail_pane("This step")

    opened = show_whole_values(lens)
    assert opened >= 1, "the 50,000-character answer is not offered whole"
    found = assert_inert(lens, baseline, "hostile-agent-long-line-whole")
    assert found["text_chars"] > 50_000, "the whole long line is not on the page"
    frame_ms = lens.frame_latency_ms()
    record_latency("frame after showing the 50,000-character line", frame_ms)
    assert frame_ms < FRAME_BOUND_MS
    label, ms = lens.step_by("previous")
    record_latency("step change away from the long line", ms)
    assert ms < STEP_BOUND_MS

    lens.open_tab("Why this skill?")
    assert_inert(lens, baseline, "hostile-agent-route-tab")
    backtrack_and_search(lens, baseline, "hostile-agent")
    lens.open_page_link("raw events")
    search_events(lens, "onerror", baseline, "hostile-agent-events-search")

    escaped = [hit for hit in egress_sentinel.snapshot()
               if any(host in hit for host in HOSTILE_HOSTS)]
    assert escaped == [], f"content reached the network past the page: {escaped}"


@pytest.mark.parametrize("name", sorted(BUILT_FROM))
def test_recording_with_hostile_strings_everywhere_is_inert(
        name, lens, baseline, built_recordings, egress_sentinel):
    path, ids = built_recordings[name]
    hostile_ids = set(ids.values())
    lens.open()
    lens.upload(path)
    main = lens.page.locator('[data-testid="stMain"]')
    assert_inert(lens, baseline, f"built-{name}-first-step")
    # Hostile names reach the screen, as text (header, labels, detail).
    on_screen = main.inner_text()
    assert any(h in on_screen for h in hostile_ids), "no hostile name is on screen"

    step_through(lens, baseline, f"step change, built hostile ({name})")
    assert_inert(lens, baseline, f"built-{name}-last-step")
    show_whole_values(lens)
    assert_inert(lens, baseline, f"built-{name}-whole-values")

    children = lens.children()
    if children:
        # Composition children carry hostile names: the drill buttons show them as text.
        assert any(child.split("·")[0] in {h.split("·")[0] for h in hostile_ids}
                   for child in children), children
        lens.child_buttons().first.click()
        expect(lens.crumb_buttons()).to_have_count(2)
        lens.wait_idle()
        assert_inert(lens, baseline, f"built-{name}-drilled")
        step_through(lens, baseline, f"step change, built hostile ({name}), drilled")
        lens.crumb_buttons().first.click()
        expect(lens.crumb_buttons()).to_have_count(1)
        lens.wait_idle()

    lens.open_tab("Why this skill?")
    if name == "skillgraph":
        texts = lens.plot_texts()
        shown = [t for t in texts if any(t.startswith(h.split("·")[0][:12]) for h in hostile_ids)]
        assert shown, f"the route graph shows no (hostile) skill id: {texts}"
        lens.select_grid_row(1)
        lens.expect_tab_selected("Steps")
        lens.open_tab("Why this skill?")
    assert_inert(lens, baseline, f"built-{name}-route-tab")
    backtrack_and_search(lens, baseline, f"built-{name}")

    lens.open_page_link("raw events")
    search_events(lens, "onerror", baseline, f"built-{name}-events-search")

    escaped = [hit for hit in egress_sentinel.snapshot()
               if any(host in hit for host in HOSTILE_HOSTS)]
    assert escaped == [], f"content reached the network past the page: {escaped}"

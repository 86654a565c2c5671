"""The Streamlit evidence panels, driven with AppTest: render, navigate, export, search.

Navigation targets are found in expected.json's reference steps (the JS
recorder's output), which list the same steps the page is given.
"""

from __future__ import annotations

import re
from pathlib import Path
from unittest import mock

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from corpus_files import load_expected
from markdown_regions import assert_only_bold_matches, unescaped_text
from lens_ui.evidence_panel import PIECES_PER_PAGE, SERVED_TABS

APP = str(Path(__file__).with_name("evidence_panel_app.py"))
PANEL_SOURCE = Path(__file__).resolve().parents[2] / "lens_ui" / "evidence_panel.py"
HOSTILE_MARKERS = ("<script", "onerror", "javascript:", "PWNED", "](", "<img", "<svg",
                   "\u202e", "alert(")


@pytest.fixture(autouse=True)
def _fresh_caches():
    st.cache_resource.clear()
    st.cache_data.clear()
    yield
    st.cache_resource.clear()


def _app(case: str, mode: str = "all", start: int = 0) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["case"] = case
    at.session_state["mode"] = mode
    at.session_state["start"] = start
    return at.run()


def _steps(case: str) -> list[dict]:
    return load_expected(case)["runSteps"]["replayCoalesced"]["rawSteps"]


def _react(case: str, rid: str, label: str) -> int:
    return next(i for i, s in enumerate(_steps(case))
                if s["kind"] == "react" and s["runtimeStageId"] == rid and s["label"] == label)


def _open(at: AppTest, tab: str, page: int | None = None) -> AppTest:
    """Open one of the served panel's tabs (only the open one is drawn), and a
    page of its slot's pieces."""
    at.session_state["evidence-served-tabs"] = tab
    if page is not None:
        slot = {"System prompt": "system-prompt", "Messages": "messages", "Tools": "tools"}[tab]
        at.session_state[f"evidence-served-{slot}-page"] = page
    at.run()
    assert not at.exception
    return at


def _every_served_view(at: AppTest):
    """The served panel in each tab, and each page of a slot's pieces, in turn."""
    for tab in SERVED_TABS:
        _open(at, tab)
        yield at
        pages = [box for box in at.selectbox if box.key and box.key.endswith("-page")]
        for page in range(1, len(pages[0].options) if pages else 1):
            yield _open(at, tab, page)


def _markdown_rendered(at: AppTest) -> list[str]:
    """Every string on the page that Streamlit renders as Markdown."""
    out: list[str] = []
    for name in ("markdown", "caption", "info", "warning", "error", "success", "subheader",
                 "header", "title"):
        out += [str(e.value) for e in at.get(name)]
    out += [b.label for b in at.button] + [t.label for t in at.tabs]
    out += [b.label for b in at.get("download_button")]
    for box in at.selectbox:
        out.append(box.label)
        out += [str(o) for o in box.options]
    out += [t.label for t in at.text_input] + [c.label for c in at.checkbox]
    return out


def test_the_panel_shows_the_final_calls_served_context_without_errors():
    case = "agent-refund-multi-tools-error"
    at = _app(case, "served", start=_react(case, "call-llm#98", "tool→llm"))
    assert not at.exception
    assert [s.value for s in at.subheader] == ["Served context"]
    codes = [c.value for view in _every_served_view(at) for c in view.code]
    assert "PaymentGatewayTimeout: POST /v2/refunds timed out after 30000 ms (req id rf_8842)" \
        in codes
    assert any(c.startswith("Your refund of $129.99") for c in codes)
    [slots] = at.button_group  # the slot switch (lens_ui/view_switch.py)
    # Short names: the switch sits in the narrow detail pane.
    assert [option.content for option in slots.proto.options] == [
        "System", "Messages", "Tools", "Output", "Change", "Skills"]


def test_a_provenance_link_moves_the_slider_to_the_call_that_asked_for_the_tool():
    case = "agent-refund-multi-tools-error"
    at = _app(case, "served", start=_react(case, "call-llm#98", "tool→llm"))
    # Message 7 of the final call is issue_refund's error result (tool call c4).
    _open(at, "Messages", page=7 // PIECES_PER_PAGE)
    at.button(key="evidence-served-messages-go-7").click().run()
    assert at.session_state["nav"] == _react(case, "call-llm#58", "llm→tool")


def test_a_backtrack_link_moves_the_slider_and_the_chain_reaches_the_failure():
    case = "agent-refund-multi-tools-error"
    at = _app(case, "backtrack")
    texts = [t.value for t in at.text]
    # The failed tool call is marked by an error alert naming the link's relation.
    alert = next(a.value for a in at.error if "returned by tool call" in a.value)
    failed_number = int(re.match(r"(\d+)\.", alert).group(1))
    tool_line = next(i for i, t in enumerate(texts)
                     if re.match(rf"[\s│↳]*{failed_number}\. issue_refund c4", t))
    asker = texts[tool_line + 1]
    assert "asked for by" in asker
    number = int(re.match(r"[\s│↳]*(\d+)\.", asker).group(1))
    at.button(key=f"evidence-backtrack-go-{number}").click().run()
    assert at.session_state["nav"] == _react(case, "call-llm#58", "llm→tool")
    assert any("returned by tool call: escalate_ticket c5" in t for t in texts)


def test_the_backtrack_export_is_the_escaped_markdown_report():
    case = "hostile-strings-agent"
    import streamlit

    real = streamlit.download_button
    exported: dict[str, object] = {}

    def spy(label, data, *args, **kwargs):
        exported[label] = (data, kwargs.get("file_name"), kwargs.get("mime"))
        return real(label, data, *args, **kwargs)

    with mock.patch.object(streamlit, "download_button", spy):
        at = _app(case, "backtrack")
    assert not at.exception
    data, file_name, mime = exported["Download the backtrack report (Markdown)"]
    assert (file_name, mime) == ("backtrack-report.md", "text/markdown")
    assert data.startswith("# Backtrack report")
    assert "run-1795961518785-19" in data  # the recording's run id (meta.runId)
    from markdown_regions import split_code
    _, prose = split_code(data)
    for marker in HOSTILE_MARKERS:
        assert marker not in "\n".join(prose), marker


def test_search_finds_the_long_line_shows_a_snippet_and_navigates():
    case = "hostile-strings-agent"
    at = _app(case, "search")
    at.text_input(key="evidence-search-query").input('alert("deep")').run()
    assert not at.exception
    # Each hit's snippet is one highlighted line (escaped Markdown, the match in bold).
    snippets = [unescaped_text(m.value) for m in at.markdown]
    assert snippets and all(len(s) < 300 for s in snippets)
    assert all('<script>alert("deep")</script>' in s for s in snippets)
    assert any("50,092 characters" in c.value or "50,557 characters" in c.value
               for c in at.caption)
    assert len(at.get("download_button")) == len(snippets)  # the whole value, one click away
    at.button(key="evidence-search-go-0").click().run()
    assert isinstance(at.session_state["nav"], int)


@pytest.mark.parametrize("mode", ["served", "backtrack"])
def test_hostile_strings_never_reach_markdown_rendered_elements(mode):
    case = "hostile-strings-agent"
    at = _app(case, mode, start=_react(case, "call-llm#58", "tool→llm"))
    assert not at.exception
    codes = []
    for view in _every_served_view(at) if mode == "served" else [at]:
        for value in _markdown_rendered(view):
            for marker in HOSTILE_MARKERS:
                assert marker not in value, (marker, value[:120])
        codes += [c.value for c in view.code]
    # ... while the content itself is on the page, as text.
    assert any("<script>alert(1)</script>" in c for c in codes)


def test_hostile_search_results_never_reach_markdown_rendered_elements():
    at = _app("hostile-strings-agent", "search")
    at.text_input(key="evidence-search-query").input("script").run()
    highlights = [m.value for m in at.markdown]
    assert highlights
    for value in highlights:  # escaped recording text: the only markup is the bold match
        assert_only_bold_matches(value)
        assert "**` script `**" in value
    for value in _markdown_rendered(at):
        if value in highlights:
            continue
        for marker in HOSTILE_MARKERS:
            assert marker not in value, (marker, value[:120])


def test_the_lean_panel_says_what_is_not_recorded():
    case = "lean-agent-two-tools"
    at = _app(case, "served", start=_steps(case).index(
        next(s for s in _steps(case) if s["kind"] == "react")))
    warnings = [w.value for w in at.warning]
    assert any(w.startswith("Lean recording: the boundary log carries no payloads")
               for w in warnings)


def test_the_panel_code_never_renders_html_or_markdown_content():
    source = PANEL_SOURCE.read_text()
    for forbidden in ("unsafe_allow_html", "st.html", "components.html", "st.write("):
        assert forbidden not in source, forbidden
    # Markdown only for the search highlight, which escapes every part.
    assert source.count("st.markdown(") == source.count("st.markdown(highlighted_markdown(")

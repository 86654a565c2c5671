"""Search: matches highlighted in bold, and the "errors only" filter.

A highlight line keeps every piece of recording text inside a code span (in
which CommonMark and Streamlit's Markdown read nothing as markup, not even a
bare URL), so a hostile value cannot add markup; the bold is all that is
outside, and the code spans give back the snippet exactly.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_files import case_names, read_bytes, recording_path
from lens.evidence.search import highlighted_markdown, search
from lens.run import OpenRun, open_run
from lens.text import one_line
from markdown_regions import assert_only_bold_matches, unescaped_text

P = "agentfootprint."
ROOT = ("__root__",)


@lru_cache(maxsize=None)
def opened(case: str) -> OpenRun:
    return open_run(read_bytes(recording_path(case)))


@pytest.mark.parametrize("case", case_names())
def test_errors_only_keeps_exactly_the_failed_tools_and_error_texts(case):
    run = opened(case)
    failed = [e["payload"]["result"] for e in run.recording.typed_events
              if e.get("type") == P + "stream.tool_end" and isinstance(e.get("payload"), dict)
              and e["payload"].get("error") is True and isinstance(e["payload"].get("result"), str)]
    fatal = [e["payload"]["error"] for e in run.recording.typed_events
             if e.get("type") == P + "error.fatal" and isinstance(e.get("payload"), dict)
             and isinstance(e["payload"].get("error"), str)]
    step_map = run.step_map("lens", ROOT)
    for text in failed + fatal:
        word = max(re.findall(r"\w+", text), key=len)
        everything = search(run.evidence, word, step_map, limit=1000)
        errors = search(run.evidence, word, step_map, limit=1000, errors_only=True)
        assert errors.total >= 1 and all(hit.error for hit in errors.hits)
        assert text in {hit.full_value for hit in errors.hits}
        assert errors.total == sum(1 for hit in everything.hits if hit.error)
    if not failed and not fatal:
        anything = search(run.evidence, "e", step_map, limit=1000, errors_only=True)
        assert all(hit.error for hit in anything.hits)


@pytest.mark.parametrize("case", case_names())
def test_every_hit_highlights_each_match_in_its_snippet(case):
    run = opened(case)
    query = "the"
    results = search(run.evidence, query, run.step_map("lens", ROOT), limit=50)
    for hit in results.hits:
        joined = "".join(text for text, _ in hit.parts).strip("…")
        assert joined in hit.full_value
        matches = [text for text, is_match in hit.parts if is_match]
        assert matches and all(m.lower() == query * (len(m) // len(query)) for m in matches)
        assert sum(len(m) // len(query) for m in matches) == joined.lower().count(query)
        markdown = highlighted_markdown(hit.parts)
        assert_only_bold_matches(markdown, len([p for p in hit.parts if p[1]]))
        assert unescaped_text(markdown) == one_line("".join(
            text for text, _ in hit.parts if text != "…"))


@settings(max_examples=300, deadline=None)
@given(before=st.text(max_size=20), match=st.text(min_size=1, max_size=8).filter(str.strip),
       after=st.text(max_size=20))
def test_any_text_gives_markdown_whose_only_markup_is_the_bold_match(before, match, after):
    parts = tuple(p for p in ((before, False), (match, True), (after, False)) if p[0])
    markdown = highlighted_markdown(parts)
    assert_only_bold_matches(markdown, 1)
    assert unescaped_text(markdown) == "".join(one_line(text) for text, _ in parts
                                              if text != "…")


def test_a_hostile_value_is_found_and_stays_text():
    raw = json.loads(read_bytes(recording_path("agent-refund-multi-tools-error")))
    end = next(e for e in raw["events"] if e["type"] == P + "stream.tool_end"
               and e["payload"].get("error") is True)
    end["payload"]["result"] = ("x**[click](javascript:alert(1))**<img src=x onerror=alert(2)>"
                                "`y` https://attacker.example/p ```` www.example.test $x$ :red[z]")
    run = open_run(json.dumps(raw).encode())
    results = search(run.evidence, "(javascript:", run.step_map("lens", ROOT),
                     errors_only=True)
    assert results.total >= 1
    for hit in results.hits:
        markdown = highlighted_markdown(hit.parts)
        assert_only_bold_matches(markdown, 1)
        assert "javascript:alert(1)" in unescaped_text(markdown)

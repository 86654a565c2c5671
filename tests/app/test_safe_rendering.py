"""Hostile strings stay text: nothing from the recording reaches a place that
renders Markdown or HTML unescaped, on any step of the hostile-strings run."""

from __future__ import annotations

import re

from app_support import caption, corpus_bytes, no_exception

# Markdown / HTML constructs that would turn text into a link, an image, a tag
# or a Streamlit directive if they reached a Markdown renderer unescaped.
LIVE_MARKDOWN = [
    re.compile(r"(?<!\\)!\["),  # image
    re.compile(r"(?<!\\)\]\("),  # link target
    re.compile(r"(?<!\\)<[A-Za-z/!?]"),  # HTML tag
    re.compile(r"javascript:"),  # an unescaped scheme
    re.compile(r"(?<!\\):[a-z]+\["),  # :color[...] directives
]


def markdown_strings(at) -> list[str]:
    """Every string on the page that Streamlit renders as Markdown."""
    strings = [m.value for m in at.markdown] + [c.value for c in at.caption]
    strings += [a.value for kind in (at.error, at.warning, at.info, at.success) for a in kind]
    strings += [h.value for kind in (at.title, at.header, at.subheader) for h in kind]
    strings += [b.label for b in at.button] + [m.label for m in at.metric]
    strings += [e.label for e in at.expander] + [t.label for t in at.tabs]
    return strings


def assert_inert(at) -> None:
    for text in markdown_strings(at):
        for pattern in LIVE_MARKDOWN:
            assert not pattern.search(text), (pattern.pattern, text[:200])


def test_every_step_of_the_hostile_run_renders_recording_text_inertly(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("<img src=x onerror=alert(1)>.json", corpus_bytes("hostile-strings-agent"),
         "application/json")).run()
    no_exception(at)
    total = int(caption(at).split(" of ")[1].split(" ")[0])
    seen_code = []
    for step in range(total):
        if step:
            at.button(key="lens.next").click().run()
        no_exception(at)
        assert_inert(at)
        seen_code += [c.value for c in at.code]
    # The hostile content is on screen, as plain code text, not lost.
    assert any("<script>alert(1)</script>" in code for code in seen_code)
    assert any("![pixel](https://attacker.example/p.gif?c=1)" in code for code in seen_code)


def test_a_hostile_file_name_in_an_error_is_escaped(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("![x](http://127.0.0.1:9/p.png).json", b"[1, 2]", "application/json")).run()
    assert len(at.error) == 1
    assert_inert(at)
    assert "\\!\\[x\\]" in at.error[0].value


def test_the_raw_events_page_renders_the_hostile_run_inertly(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("hostile.json", corpus_bytes("hostile-strings-agent"), "application/json")).run()
    at.switch_page("lens_ui/app/page_scripts/raw_events.py").run()
    no_exception(at)
    assert_inert(at)

"""Clipping long values, the one invisible-character policy, flattening labels,
and making text literal for Markdown."""

from __future__ import annotations

import re
import string

import pytest

from lens.text import (CLIP_LIMIT, display_text, format_ms, markdown_literal, one_line,
                       plot_text, value_text, visible)


def test_a_short_value_is_shown_whole():
    part = display_text("hello", 10)
    assert (part.text, part.truncated, part.hidden_chars) == ("hello", False, 0)


def test_a_long_value_is_clipped_at_the_one_limit_and_keeps_the_whole_value():
    text = "A" * 50_000 + "tail"
    part = display_text(text)
    assert part.text == "A" * CLIP_LIMIT
    assert part.truncated and part.hidden_chars == 50_004 - CLIP_LIMIT
    assert part.full == text


def test_a_value_exactly_at_the_limit_is_not_clipped():
    assert not display_text("x" * 100, 100).truncated


def test_a_negative_limit_is_refused():
    with pytest.raises(ValueError):
        display_text("x", -1)


def test_structured_values_are_shown_as_indented_json_and_strings_as_they_are():
    assert value_text({"orderId": "A-1"}) == '{\n  "orderId": "A-1"\n}'
    assert value_text('{"not": "parsed"}') == '{"not": "parsed"}'
    assert display_text({"orderId": "A-1"}).full == value_text({"orderId": "A-1"})


def test_a_block_makes_invisible_characters_visible_and_keeps_line_breaks_and_tabs():
    assert visible("a\u202eb\x07c\u200bd\ttab\nline\ufeff") == \
        "a⟨U+202E⟩b␇c⟨U+200B⟩d\ttab\nline⟨U+FEFF⟩"
    shown = display_text("x\u2066y")
    assert shown.text == "x⟨U+2066⟩y" and shown.full == "x\u2066y"


def test_a_block_and_a_label_show_an_invisible_character_the_same_way():
    for char in ("\u202e", "\x1b", "\u200b", "\x7f", "\x9b"):
        assert visible(char) == one_line(char), repr(char)


def test_markdown_literal_escapes_every_ascii_punctuation_character():
    escaped = markdown_literal(string.punctuation)
    assert escaped == "".join("\\" + c for c in string.punctuation)


def test_markdown_literal_defeats_images_links_html_and_directives():
    hostile = '![p](https://e.x/p.gif) [a](javascript:alert(1)) <img src=x> :red[x] $x$ **b**'
    escaped = markdown_literal(hostile)
    # Every punctuation character is preceded by a backslash, so none opens a construct.
    unescaped = re.findall(r"(?<!\\)[!\[\]()<>:$*]", escaped)
    assert unescaped == []
    # Letters, digits and spaces are untouched, so the text still reads the same.
    assert escaped.replace("\\", "") == hostile


def test_markdown_literal_keeps_text_on_one_line():
    assert "\n" not in markdown_literal("# title\n\n- item")
    assert markdown_literal("a\nb") == "a⏎b"


def test_one_line_makes_controls_and_bidi_overrides_visible():
    assert one_line("bell\x07 tab\t cr\r") == "bell␇ tab  cr⏎"
    assert one_line("\u202egnp.exe\u202c") == "⟨U+202E⟩gnp.exe⟨U+202C⟩"


def test_one_line_cuts_with_an_ellipsis():
    assert one_line("abcdefgh", 5) == "abcd…"
    assert one_line("abc", 5) == "abc"


def test_plot_text_escapes_html_but_not_quotes():
    assert plot_text('<a href="x">&</a>') == '&lt;a href="x"&gt;&amp;&lt;/a&gt;'


@pytest.mark.parametrize("ms, text", [(850, "850 ms"), (1476, "1.48 s"), (125_000, "2 min 05 s"),
                                      (None, "—")])
def test_durations_read_as_people_say_them(ms, text):
    assert format_ms(ms) == text


def test_a_cut_ends_at_a_word_and_closes_the_quotation_it_cut():
    from lens.text import cut_at_word

    said = "The circuit breaker of openai-gpt-4.1 opened: “2 consecutive failures”"
    assert cut_at_word(said, len(said)) == said
    cut = cut_at_word(said, 64)
    assert cut == "The circuit breaker of openai-gpt-4.1 opened: “2 consecutive…”"
    assert len(cut) <= 64 and cut_at_word(said, 60).endswith("opened: “2…”")
    assert cut_at_word("x" * 30, 10) == "x" * 8 + "…"
    assert cut_at_word("one two\nthree four", 14) == "one two…"

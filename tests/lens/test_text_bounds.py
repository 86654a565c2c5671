"""Display transforms stay linear and clipped: deep values, huge strings,
and numbers past float range are turned into text without blowing up."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from lens.text import (INDENT_DEPTH, SHOWN_DEPTH, clipped_json, collapsed, format_ms, grouped,
                       one_line, value_text, visible)
from recorders.values import exact_float, json_text, number_column


def nested(levels: int, leaf=0):
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


def _one_line_unclipped(text: str, limit: int) -> str:
    flat = visible(text.replace("\t", " ").replace("\r\n", "⏎").replace("\n", "⏎")
                   .replace("\r", "⏎").replace("\u2028", "⏎").replace("\u2029", "⏎")
                   .replace("\x85", "⏎"))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab\r\n\t\u202e\x00\u2028 "), max_size=60),
       limit=st.integers(1, 25))
def test_clipping_before_flattening_gives_the_same_label(text, limit):
    assert one_line(text, limit) == _one_line_unclipped(text, limit)


def test_a_five_million_character_name_becomes_a_short_label():
    label = one_line("\u202e" + "x" * 5_000_000, 80)
    assert len(label) == 80 and label.startswith("⟨U+202E⟩x") and label.endswith("…")


def test_a_deep_value_is_written_compactly_not_indented_quadratically():
    deep = nested(5_000)
    text = value_text(deep)
    assert len(text) == 2 * 5_000 + 1  # compact: one bracket a level each side
    assert text == "[" * 5_000 + "0" + "]" * 5_000


def test_a_shallow_value_is_still_indented():
    assert value_text(nested(INDENT_DEPTH)).count("\n") == 2 * INDENT_DEPTH


def test_json_text_writes_a_value_deeper_than_the_encoder_can_recurse():
    assert json_text(nested(100_000)) == "[" * 100_000 + "0" + "]" * 100_000


def test_clipped_json_costs_the_clip_not_the_value():
    value = {"big": "y" * 50_000_000, "deep": nested(50_000)}
    text = clipped_json(value, 60)
    assert len(text) == 60 and text.startswith('{"big":"yyy') and text.endswith("…")


@settings(max_examples=200, deadline=None)
@given(value=st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                          lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=12))
def test_clipped_json_is_a_prefix_of_the_compact_json(value):
    whole = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    clipped = clipped_json(value, 30)
    assert clipped == whole if len(whole) <= 30 else whole.startswith(clipped[:-1])


def test_a_deep_event_is_collapsed_past_the_shown_depth_with_the_rest_as_text():
    shown, cut = collapsed({"payload": nested(9_990)})
    assert cut
    inner = shown["payload"]
    for _ in range(SHOWN_DEPTH - 1):
        inner = inner[0]
    assert isinstance(inner, str) and inner.startswith("⟨list nested deeper")
    json.dumps(shown)  # the viewer's input serialises without recursion trouble


def test_collapsed_keeps_a_small_value_whole_and_clips_big_strings_and_lists():
    assert collapsed({"a": [1, "x"]}) == ({"a": [1, "x"]}, False)
    shown, cut = collapsed({"s": "z" * 10_000, "l": list(range(5_000))}, chars=10, items=3)
    assert cut and shown["s"].startswith("z" * 10 + "…") and "9,990 more" in shown["s"]
    assert shown["l"][:3] == [0, 1, 2] and shown["l"][3] == "⟨4,997 more items⟩"


def test_collapsed_shows_numbers_a_double_cannot_hold_as_their_digits():
    huge = 10 ** 400
    shown, _ = collapsed({"a": huge, "b": 2 ** 63 + 1, "c": 2 ** 53, "d": 1.5})
    assert shown == {"a": str(huge), "b": str(2 ** 63 + 1), "c": 2 ** 53, "d": 1.5}


def test_a_number_column_is_numeric_only_when_every_value_is_exactly_a_float():
    assert number_column([1, None, 2.5]) == [1.0, None, 2.5]
    assert number_column([1, 2 ** 63 + 1, None]) == ["1", str(2 ** 63 + 1), None]
    assert number_column([2 ** 53 + 1]) == [str(2 ** 53 + 1)]  # would be rounded
    assert exact_float(10 ** 400) is None and exact_float(True) is None


def test_numbers_past_float_range_are_grouped_and_durations_shown_as_recorded():
    assert grouped(10 ** 30) == "1" + ",000" * 10
    assert grouped(1234.5) == "1,234.5" and grouped(float("inf")) == "inf"
    assert format_ms(10 ** 400) == "1" + "0" * 400 + " ms"
    assert format_ms(-1500) == "−1.50 s" and format_ms(float("-inf")) == "-inf ms"

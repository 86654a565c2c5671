"""Every link parameter, whatever its text, is read without an exception."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from lens.link import LINK_KEYS, MAX_VALUE_CHARS, parse_link

# Digits of every script, as the property must hold for them too.
DIGITS = "".join(chr(c) for c in range(0x110000) if chr(c).isdigit())[:400]
values = st.one_of(
    st.text(), st.text(alphabet=DIGITS, min_size=1, max_size=12),
    st.text(alphabet="0123456789", min_size=1, max_size=14),
    st.text(min_size=MAX_VALUE_CHARS - 2, max_size=MAX_VALUE_CHARS + 2))
params = st.dictionaries(st.sampled_from(LINK_KEYS),
                         st.one_of(values, st.lists(values, max_size=3)))


@settings(max_examples=400, deadline=None)
@given(params)
def test_any_link_is_read_into_fields_or_named_problems(link_params):
    link = parse_link(link_params)
    if link.step is not None:
        assert 1 <= link.step <= 999_999_999
        text = link_params["step"]
        assert (text if isinstance(text, str) else text[0]).isascii()
    for problem in link.problems:
        assert problem.startswith("The link") and "\n" not in problem
        assert len(problem) < 200  # app text, never the link's own


def test_digits_of_other_scripts_are_not_a_step():
    for text in ("²", "①", "٣", "३", "３", "𝟗", "1²"):
        link = parse_link({"step": text})
        assert link.step is None and link.bad_step, text

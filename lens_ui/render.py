"""Safe renderers for recording content.

Recording text reaches the page only through ``st.text``, ``st.code``,
``st.json``, ``st.dataframe`` and plotly with escaped strings. Where a widget
label or alert must carry it, it goes through ``markdown_literal`` first.
Long values are clipped with the whole value one click away.
"""

from __future__ import annotations

from typing import Iterable

import streamlit as st

from lens.text import DisplayText, collapsed, compact_json, one_line, visible

# Above this the expander would ship megabytes to the browser; offer a download only.
EXPAND_LIMIT = 200_000
FACT_CHARS = 160
SCROLL_HEIGHT = 320


def facts_grid(facts: Iterable[tuple[str, str]], columns: int = 4) -> None:
    """Facts in a grid, each a small app-written label over its value as plain text."""
    pairs = list(facts)
    for start in range(0, len(pairs), columns):
        cells = st.columns(columns, gap="small")
        for cell, (name, value) in zip(cells, pairs[start:start + columns]):
            cell.caption(name)
            cell.text(one_line(value, FACT_CHARS))


def facts_text(facts: Iterable[tuple[str, str]]) -> None:
    """Facts as one block of plain text, ``name: value`` a line. One element,
    where a grid costs a row of columns and two elements per fact: this is
    drawn again on every slider move."""
    lines = [f"{name}: {one_line(value, FACT_CHARS)}" for name, value in facts]
    if lines:
        st.text("\n".join(lines))


def long_text(part: DisplayText, key: str) -> None:
    """Show a recorded value as :func:`lens.text.display_text` clipped it, the
    rest one click away. Every panel shows recorded values through this."""
    # A clipped value still fills a screen; past a few lines it scrolls in place.
    height = SCROLL_HEIGHT if part.text.count("\n") > 16 or len(part.text) > 900 else "content"
    st.code(part.text if part.text else " ", language=None, wrap_lines=True, height=height)
    if part.truncated:
        _whole_value(part, key)


def _whole_value(part: DisplayText, key: str) -> None:
    st.caption(f"Clipped: {part.hidden_chars:,} more characters ({part.length:,} in all).")
    if part.length <= EXPAND_LIMIT:
        # Drawn only while open: a closed expander's content still ships and renders.
        with st.expander("Show the whole value", key=f"{key}.whole", on_change="rerun") as box:
            if box.open:
                # The untouched value keeps its bidi overrides: shown, they would reorder the text.
                st.code(visible(part.full), language=None, wrap_lines=True, height=480)
    # Encoded on click, not on every rerun: the value may be hundreds of MB.
    st.download_button("Download the whole value", data=lambda: part.full.encode("utf-8"),
                       file_name="value.txt", mime="text/plain", key=f"{key}.download",
                       on_click="ignore", icon=":material/download:")


def whole_json(value: object, key: str) -> None:
    """A recorded JSON value in the interactive viewer, collapsed past
    :data:`lens.text.SHOWN_DEPTH` levels (the browser's viewer crashes the tab
    on a value nested about a thousand deep) and clipped in size; what was
    left out is in the download of the whole value."""
    shown, cut = collapsed(value)
    st.json(shown, expanded=True)
    if cut:
        st.caption("Deep, long or large parts are shown as text above; the download has "
                   "the whole value.")
        st.download_button("Download the whole event (JSON)",
                           # Written on click, not on every rerun: the event may be huge.
                           data=lambda: compact_json(value).encode("utf-8"), file_name="event.json",
                           mime="application/json", key=f"{key}.download", on_click="ignore",
                           icon=":material/download:")

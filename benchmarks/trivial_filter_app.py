"""The archive browser benchmark's baseline: the least a Streamlit app can do
when a filter changes.

One checkbox ("Only runs with a failed tool") and a ``N of M runs match``
caption that follows it, with nothing queried or drawn: what the Archive
page's filter would cost if answering it cost nothing. Run by
``benchmarks/bench_archive_browser.py``.
"""

import streamlit as st

from anchor_collector import freeze_if_asked

freeze_if_asked()  # the frozen anchor only (see anchor_collector.py)

TOTAL, FAILED = 100_000, 12_345

st.set_page_config(page_title="trivial filter", layout="wide")
failed_only = st.checkbox("Only runs with a failed tool", key="failed")
st.caption(f"{FAILED if failed_only else TOTAL:,} of {TOTAL:,} runs match")

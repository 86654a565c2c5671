"""Loads the browser's chart code while the first screen is read, not on the first click.

Streamlit fetches and runs its Plotly chart code (a 4.7 MB script) the first
time a page draws a Plotly chart. The run page draws none until "Why this
skill?" or Timeline is opened, so that first open waited for the script: about
2 s on the 2-core machine (``benchmarks/bench_answer_first.py``), against
0.1-0.2 s for either view once the script is in. A 10×10 (the least Plotly draws), transparent chart drawn last
on the page, once per session, has the browser load it while a person reads
the outcome and its causes; the page's first screen is sent before it.
"""

from __future__ import annotations

import streamlit as st

WARMED = "lens.chart_code_warmed"
# Nothing to see and nothing to hover: one transparent point (a chart with no trace
# is refused), no axes, no margin, no mode bar.
_EMPTY_FIGURE = {
    "data": [{"type": "scatter", "x": [0], "y": [0], "mode": "markers",
              "marker": {"opacity": 0}, "hoverinfo": "skip", "showlegend": False}],
    "layout": {"width": 10, "height": 10, "margin": {"l": 0, "r": 0, "t": 0, "b": 0},
               "xaxis": {"visible": False}, "yaxis": {"visible": False},
               "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)"},
}
_CONFIG = {"displayModeBar": False, "staticPlot": True}


def warm_chart_code() -> None:
    """Draw the empty chart, the first time in this session (the browser keeps the
    script for the page's life; a later run opened in the session needs nothing)."""
    if st.session_state.get(WARMED):
        return
    st.session_state[WARMED] = True
    st.plotly_chart(_EMPTY_FIGURE, width=10, height=10, config=_CONFIG, theme=None,
                    key="lens-chart-warmup")

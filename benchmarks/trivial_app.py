"""The browser benchmark's baseline: the least a Streamlit app can do per step.

One fragment holding a Next button (shortcut N, as in ``lens_ui/stepper.py``)
and a ``step k of n`` label drawn with ``st.text``: what the Lens slider region
would cost if drawing a step cost nothing. Run by ``benchmarks/bench_browser.py``.
"""

import streamlit as st

from anchor_collector import freeze_if_asked

freeze_if_asked()  # the frozen anchor only (see anchor_collector.py)

STEPS = 100_000

st.set_page_config(page_title="trivial stepper", layout="wide")


def _next() -> None:
    st.session_state["step"] = min(st.session_state.get("step", 0) + 1, STEPS - 1)


@st.fragment
def stepper() -> None:
    index = st.session_state.setdefault("step", 0)
    st.button("Next", key="next", on_click=_next, shortcut="N")
    st.text(f"step {index + 1} of {STEPS}")


stepper()

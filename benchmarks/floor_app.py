"""The trivial stepper plus one thing the run page must show, to price that thing.

A benchmark-only app (never the product), run by :mod:`benchmarks.browser_floor`.
It is :mod:`benchmarks.trivial_app` (a fragment with a Next button, shortcut N,
and a ``step k of n`` label drawn with ``st.text``) plus what the environment
variable ``FLOOR_CASE`` names:

- ``inside:K`` / ``outside:K``: K static elements (captions, buttons, text and
  Markdown in containers, the mix of the run page's run bar, breadcrumb,
  controls and detail pane), drawn inside the fragment after the label (so
  re-sent every step) or above it in the page (sent once);
- ``kind:NAME:K``: K copies of one kind of element the run page shows (text,
  button, code, slider, segmented control, expander, JSON), above the
  fragment, to price each kind per press;
- ``diagram``: the run page's actor-arrow chart of the large agent run's root
  scope, this step's arrows lit, drawn as the page draws it
  (:func:`benchmarks.page_work.draw_chart`: one spec, the step as rows, under
  a key, so the browser keeps the chart and swaps its data);
- ``diagram-fixed``: the same chart with the first step's rows on every step
  (nothing in the chart changes: the floor under ``diagram``);
- ``diagram-unkeyed``: the page's chart without its key; a selection chart's
  identity then includes its data, so every step mounts a new chart.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pyarrow as pa
import streamlit as st

# Run as a script from benchmarks/: the repository (its lens, its inputs) comes first.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.page_work import draw_chart  # noqa: E402 (after the path)
from lens.diagram_chart import DIAGRAM_SPEC, DRILL_PARAM, actor_chart  # noqa: E402

CASE = os.environ.get("FLOOR_CASE", "inside:0")
ELEMENT_STEPS = 100_000
# One group of static elements: a row of a caption and two buttons, then a
# line of text and one of Markdown, the run page's kinds of element.
GROUP_SIZE = 5

st.set_page_config(page_title="stepper floor", layout="wide")


def static_elements(count: int, prefix: str) -> None:
    """``count`` elements that never change (rounded down to whole groups)."""
    for group in range(count // GROUP_SIZE):
        with st.container(horizontal=True, vertical_alignment="center", gap="small"):
            st.caption(f"Scope {group}", width="content")
            st.button(f"crumb {group}", key=f"{prefix}.a{group}")
            st.button(f"child {group}", key=f"{prefix}.b{group}", type="secondary")
        st.text(f"fact {group}: a value that stays the same on every step")
        st.markdown(f"**Heading {group}** and a sentence of detail.")


def one_kind(name: str, count: int) -> None:
    """``count`` elements of one kind, each as the run page draws that kind."""
    for number in range(count):
        if name == "text":
            st.text(f"fact {number}: a value that stays the same on every step")
        elif name == "button":
            st.button(f"button {number}", key=f"kind.{number}")
        elif name == "code":
            st.code('{"host": "web-001", "cpu_p95": 91, "note": "a tool result"}',
                    language=None, wrap_lines=True)
        elif name == "slider":
            st.slider("Step", 1, 300, 5, key=f"kind.{number}", label_visibility="collapsed")
        elif name == "segmented":
            st.segmented_control("View", ["Steps", "Timeline", "Route", "Backtrack", "Search"],
                                 default="Steps", key=f"kind.{number}")
        elif name == "expander":
            with st.expander(f"Section {number}"):
                st.caption("inside")  # not st.text: the harness clicks the first one
        elif name == "json":
            st.json({"role": "tool", "content": {"host": "web-001", "cpu_p95": 91}},
                    expanded=True)


@st.cache_resource
def _diagram():
    """The large agent run's root-scope diagram and its step count."""
    from benchmarks.inputs import corpus_path
    from lens.run import open_run
    from lens.scopes import ROOT
    from lens_ui.session import DEFAULT_PROFILE

    run = open_run(corpus_path("large-agent-300-tool-calls").read_bytes())
    steps = len(run.scopes(DEFAULT_PROFILE).get(ROOT).steps)
    return run.diagram(DEFAULT_PROFILE, ROOT), steps


def _chart(index: int):
    diagram, _ = _diagram()
    return actor_chart(diagram, index)


def _next() -> None:
    st.session_state["step"] = st.session_state.get("step", 0) + 1


kind, _, count = CASE.partition(":")
if kind == "outside":
    static_elements(int(count), "outside")
elif kind == "kind":
    element_kind, _, copies = count.partition(":")
    one_kind(element_kind, int(copies))


@st.fragment
def stepper() -> None:
    index = st.session_state.setdefault("step", 0)
    st.button("Next", key="next", on_click=_next, shortcut="N")
    steps = _diagram()[1] if kind.startswith("diagram") else ELEMENT_STEPS
    st.text(f"step {index + 1} of {steps}")
    if kind == "inside":
        static_elements(int(count), "inside")
    elif kind in ("diagram", "diagram-fixed"):
        draw_chart(_chart(index if kind == "diagram" else 0))
    elif kind == "diagram-unkeyed":
        chart = _chart(index)
        st.vega_lite_chart(pa.Table.from_pylist(chart.rows), DIAGRAM_SPEC, on_select="rerun",
                           selection_mode=DRILL_PARAM, height=chart.height, width="stretch")

stepper()

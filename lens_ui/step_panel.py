"""The step detail: what happened at the current step, from the recording."""

from __future__ import annotations

from typing import Callable, Sequence

import pandas as pd
import streamlit as st

from recorders.run_step import RunStep
from lens.step_detail import StepDetail, ToolCallView
from lens.text import one_line
from lens_ui.render import FACT_CHARS, long_text, whole_json
from lens_ui.runs import LoadedRun
from lens_ui.served_context import render_served_context

EVENT_PICKER_LIMIT = 400
FACTS_HELP = ("stage: the flow engine's id for the stage this step shows (runtimeStageId, "
              "name#position); every recorded event at this stage is under Evidence.  \n"
              "subflow path: where in the run's nesting the stage sits (__root__ is the top).  \n"
              "at: time since the run started.")
# The step detail's expanders draw their content only while open (a closed
# expander's content is still sent and rendered, on every slider move), and
# keep one key for the whole run so what the user opened stays open as they
# step through it.
SERVED_OPEN, EVIDENCE_OPEN, WIRE_OPEN = "lens.served_open", "lens.evidence_open", "lens.wire_open"


def step_panel(run: LoadedRun, step: RunStep, detail: StepDetail, key: str) -> None:
    """Draw ``step``'s detail (built with the step's view, :mod:`lens.step_view`)."""
    st.subheader(detail.heading)
    lines = [f"{fact.name}: {one_line(fact.value, FACT_CHARS)}" for fact in detail.facts]
    if lines:
        st.text("\n".join(lines), help=FACTS_HELP)
    for note in detail.absent:
        st.caption(f"Not in the recording: {note}.")
    for number, text in enumerate(detail.texts):
        st.caption(text.title)
        long_text(text.text, key=f"{key}.text{number}")
    if detail.tools_asked:
        st.markdown("**Tools it asked for**")
        for number, tool in enumerate(detail.tools_asked):
            _tool_call(tool, f"{key}.asked{number}", show_args=True)
    if detail.tool_results:
        st.markdown("**Tool results fed back into this call**")
        for number, tool in enumerate(detail.tool_results):
            _tool_call(tool, f"{key}.result{number}", show_args=False)
    if detail.branches:
        st.markdown(f"**Branches ({len(detail.branches)})**")
        st.text("\n".join(f"• {branch}" for branch in detail.branches))
    _evidence(run, detail, key)
    with st.expander("This step as projected (the raw step record)", key=WIRE_OPEN,
                     on_change="rerun") as box:
        if box.open:
            st.caption("The step exactly as the projection built it, in the JSON form other "
                       "tools read (its \"wire form\").")
            st.json(step.to_wire(), expanded=True)


def _tool_call(tool: ToolCallView, key: str, show_args: bool) -> None:
    with st.container(border=True):
        timing = f" · {tool.duration}" if tool.duration else ""
        call_id = f" · call {tool.call_id}" if tool.call_id else ""
        st.text(f"{tool.name}{call_id}{timing}")
        if show_args:
            if tool.args is None:
                st.caption("Arguments: not in the recording.")
            else:
                st.caption("Arguments")
                long_text(tool.args, key=f"{key}.args")
        if tool.result is None:
            st.caption("Result: not in the recording.")
        else:
            if tool.failed:
                st.error("This tool call failed (error: true). Its error text:",
                         icon=":material/error:")
            else:
                st.caption("Result")
            long_text(tool.result, key=f"{key}.result")


def served_context(run: LoadedRun, steps: Sequence[RunStep], position: int,
                   on_navigate: Callable[[int], None]) -> None:
    """What the model was served at this step (``steps`` is the slider's scope,
    ``position`` its index; ``on_navigate(i)`` moves the slider), drawn only
    while its expander is open."""
    with st.expander("Served context: what the model was given at this step",
                     key=SERVED_OPEN, on_change="rerun") as box:
        if box.open:
            render_served_context(run, steps, position, on_navigate)


def _evidence(run: LoadedRun, detail: StepDetail, key: str) -> None:
    """The recorded events behind the step, each viewable whole."""
    refs = detail.events
    # One label for every step: Streamlit tells expanders apart by their label
    # too, so a label carrying the count would close the expander whenever the
    # count changed. The count is the first line inside.
    with st.expander("Evidence: the recorded events at this stage", key=EVIDENCE_OPEN,
                     on_change="rerun") as box:
        if not box.open:
            return
        st.caption(f"{len(refs)} recorded event(s) carry this step's runtimeStageId.")
        if not refs:
            st.caption("No event in the file carries this step's runtimeStageId.")
            return
        table = pd.DataFrame([(r.stream, r.index, r.type) for r in refs],
                             columns=["stream", "#", "type"])
        st.dataframe(table, hide_index=True, height=min(36 * (len(refs) + 1) + 2, 260))
        shown = refs[:EVENT_PICKER_LIMIT]
        choice = st.selectbox(
            "Show one event whole", options=range(len(shown)),
            format_func=lambda i: f"{shown[i].stream} #{shown[i].index} · {shown[i].type}",
            key=f"{key}.event")
        ref = shown[choice]
        events = run.recording.boundary_events if ref.stream == "boundary" else run.recording.typed_events
        whole_json(events[ref.index], f"{key}.whole")

"""The detail pane beside the diagram: what happened at the current step, the
context the model was served there, the recorded events behind it, or the step
as projected, one at a time."""

from __future__ import annotations

from typing import Callable, Sequence

import pandas as pd
import streamlit as st

from recorders.run_step import RunStep
from lens.wording import plural
from lens.evidence.causes import LikelyCause
from lens.step_detail import StepDetail, ToolCallView
from lens.text import markdown_literal, one_line
from lens_ui.panel_guard import guarded_panel
from lens_ui.render import FACT_CHARS, long_text, whole_json
from lens_ui.runs import LoadedRun
from lens_ui.served_context import render_served_context
from lens_ui.view_switch import view_switch
from lens_ui.where_from_panel import where_from_asked, where_from_first, where_from_toggle

EVENT_PICKER_LIMIT = 400
SAID_CHARS = 200  # a cause's headline in the step detail; the whole of it is in Backtrack
FACTS_HELP = ("stage: the flow engine's id for the stage this step shows (runtimeStageId, "
              "name#position); every recorded event at this stage is under Evidence.  \n"
              "subflow path: where in the run's nesting the stage sits (__root__ is the top).  \n"
              "at: time since the run started.")
# The detail pane shows one of these at a time, chosen with a switch above it.
# One switch instead of three expanders: the pane is drawn again on every
# slider move, and the browser's work per move grows with the elements on the
# page (an expander is the dearest of them). The choice has one key for the
# whole session, so what the user chose stays chosen as they step and drill.
THIS_STEP, SERVED, EVIDENCE, RAW_STEP = "This step", "Served context", "Evidence", "Raw step"
DETAIL_PANES = (THIS_STEP, SERVED, EVIDENCE, RAW_STEP)
DETAIL_PANE = "lens.detail_pane"
STAGE_FACTS = "lens.stage_facts"  # the This step part's facts toggle, one for the session
TOOL_CALL_BOX = "lens-tool-call"  # + "-0", "-1", ...: the This step part's tool call boxes


def detail_pane(run: LoadedRun, steps: Sequence[RunStep], position: int, detail: StepDetail,
                key: str, height: int, on_navigate: Callable[[int], None],
                said_here: Sequence[LikelyCause] = ()) -> None:
    """The pane beside the diagram: the switch, then the chosen part, in a
    container of ``height`` that scrolls on its own (``steps`` is the
    slider's scope, ``position`` its index; ``on_navigate(i)`` moves the
    slider; ``said_here``: the likely causes linked to this step, as the
    step's view found them)."""
    if where_from_asked():  # an entry in the served context opens This step's Where from?
        st.session_state[DETAIL_PANE] = THIS_STEP
    pane = view_switch("Detail", DETAIL_PANES, DETAIL_PANE, wrap=True)
    with st.container(height=height, key="lens-step-detail"):
        if pane == SERVED:
            with guarded_panel("served context"):
                render_served_context(run, steps, position, on_navigate)
        elif pane == EVIDENCE:
            with guarded_panel("evidence"):
                evidence(run, detail, key)
        elif pane == RAW_STEP:
            with guarded_panel("raw step"):
                st.caption("The step exactly as the projection built it, in the JSON form "
                           "other tools read (its \"wire form\").")
                st.json(steps[position].to_wire(), expanded=True)
        else:
            where_first = where_from_first(run, position)
            if where_first:
                with guarded_panel("where from"):
                    where_from_toggle(run, steps, position, key)
            with guarded_panel("step detail"):
                step_panel(detail, key, said_here=said_here)
            if not where_first:
                with guarded_panel("where from"):
                    where_from_toggle(run, steps, position, key)


def step_panel(detail: StepDetail, key: str,
               said_here: Sequence[LikelyCause] = ()) -> None:
    """Draw a step's detail (built with the step's view, :mod:`lens.step_view`).

    Every step is drawn in the same frame: heading, then one container each
    for what the recording lacks, the recorded texts, the tool calls and the
    branches, present (if empty) on every step, then the stage facts' toggle. The browser keeps an
    element only while an element of the same kind stays at its place in its
    container, so with a fixed frame a step that asks for tools and the next,
    which reads their results, update the same elements in place instead of
    drawing them anew (``benchmarks/README.md``, seventh round).

    ``said_here`` are the likely causes (the framework's verdicts and warnings,
    failed tools, provider errors, ...) whose link leads to this step: shown
    first, in their own words, since they are what explains the step."""
    st.markdown(heading_markdown(detail.heading))
    with st.container():
        if said_here:
            st.caption(f"What went wrong here ({len(said_here)}; all of them in Backtrack)")
            st.text("\n".join(f"{'✖' if cause.is_error else '⚠'} "
                               f"{one_line(cause.headline, SAID_CHARS)}" for cause in said_here))
    with st.container():
        if detail.absent:
            st.caption("  \n".join(f"Not in the recording: {note}." for note in detail.absent))
    with st.container():
        for number, text in enumerate(detail.texts):
            st.caption(text.title)
            long_text(text.text, key=f"{key}.text{number}")
    with st.container():
        shown = 0  # numbers the boxes the same way on every step, whichever part they are in
        for title, tools, part in (("Tools it asked for", detail.tools_asked, "asked"),
                                   ("Tool results fed back into this call", detail.tool_results,
                                    "result")):
            if tools:
                st.markdown(f"**{title}**")
                for number, tool in enumerate(tools):
                    _tool_call(tool, f"{key}.{part}{number}", box=f"{TOOL_CALL_BOX}-{shown}")
                    shown += 1
    with st.container():
        if detail.branches:
            st.markdown(f"**Branches ({len(detail.branches)})**")
            st.text("\n".join(f"• {branch}" for branch in detail.branches))
    # Last, and drawn only when asked for: the stage's metadata (stage id,
    # subflow path, time, the call's counts) explains where, not what.
    if st.toggle(f"Stage facts ({len(detail.facts)})", key=STAGE_FACTS, help=FACTS_HELP):
        lines = [f"{fact.name}: {one_line(fact.value, FACT_CHARS)}" for fact in detail.facts]
        st.text("\n".join(lines) if lines else "(no facts recorded)")


def heading_markdown(heading: str) -> str:
    """The step's heading as bold text, not a subheader: in the pane's 330 px a
    subheader took a sixth. It can carry a step label (recording text): escaped."""
    return f"**{markdown_literal(heading)}**"


def _tool_call(tool: ToolCallView, key: str, box: str) -> None:
    """One tool call, its arguments then its result, in the same elements
    whether the step asked for it or reads its result."""
    with st.container(border=True, key=box):
        timing = f" · {tool.duration}" if tool.duration else ""
        call_id = f" · call {tool.call_id}" if tool.call_id else ""
        st.text(f"{tool.name}{call_id}{timing}")
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


def evidence(run: LoadedRun, detail: StepDetail, key: str) -> None:
    """The recorded events behind the step, each viewable whole."""
    refs = detail.events
    verb = "carries" if len(refs) == 1 else "carry"
    st.caption(f"{plural(len(refs), 'recorded event')} {verb} this step's runtimeStageId.")
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
    recording = run.recording
    events = recording.boundary_events if ref.stream == "boundary" else recording.typed_events
    whole_json(events[ref.index], f"{key}.whole")

"""The Timeline tab: every model call and tool call of the run on one time
axis, the current step's calls outlined, the retries, fallbacks, recoveries,
pauses and check-ins marked; a click on a bar goes to its step (drilling into
the scope that holds it), a click on a mark to the step at its time."""

from __future__ import annotations

from functools import partial

import streamlit as st

from lens.scopes import ROOT
from lens.timeline import (MARK, MODEL, TOOL, Timeline, build_timeline, mark_summary,
                           span_position, spans_at)
from recorders.values import is_number
from lens.wording import plural
from lens.timeline_figure import timeline_figure
from lens_ui import session
from lens_ui.runs import LoadedRun, server_store

PLOT_CONFIG = {"displayModeBar": False, "scrollZoom": False}
CLICKS = "lens.timeline.clicks"  # bumped after a handled click: a fresh chart key


def timeline_panel(run: LoadedRun, profile: str, path: tuple[str, ...], position: int) -> None:
    timeline = _timeline(run.source.digest, run)
    if not timeline.spans:
        st.info("No model or tool call in this run carries a time, so there is no timeline "
                "to draw.", icon=":material/timeline:")
        return
    current = spans_at(run.step_map(profile, path), run.evidence, position)
    calls = sum(1 for s in timeline.spans if s.kind == MODEL)
    tools = len(timeline.spans) - calls
    summary = (f"{plural(calls, 'model call')} and {plural(tools, 'tool call')} in "
               f"{plural(len(timeline.lanes), 'scope')}; {timeline.failures:,} failed.")
    if timeline.unplaced == 1:
        summary += " 1 call carries no time and is not drawn."
    elif timeline.unplaced:
        summary += f" {timeline.unplaced:,} calls carry no time and are not drawn."
    marked = mark_summary(timeline)
    if marked:
        summary += f" Marked: {marked} (hover a mark for the framework's words)."
    st.caption(summary + " Outlined: this step's calls. Click a bar or a mark to go to "
                         "its step.")
    key = f"lens.timeline.{st.session_state.get(CLICKS, 0)}"
    st.plotly_chart(timeline_figure(timeline, current), key=key,
                    on_select=partial(_clicked, run, profile, key), selection_mode="points",
                    config=PLOT_CONFIG)


def _clicked(run: LoadedRun, profile: str, key: str) -> None:
    points = session.widget_selection(key, "points")
    st.session_state[CLICKS] = st.session_state.get(CLICKS, 0) + 1
    if not points:
        return
    data = points[0].get("customdata") if isinstance(points[0], dict) else None
    everywhere = run.scoped_steps(profile, ROOT)
    if isinstance(data, list) and len(data) == 2 and data[0] == MARK and is_number(data[1]):
        position = run.step_map(profile, ROOT).step_at_time(data[1])
    elif (isinstance(data, list) and len(data) == 2 and data[0] in (MODEL, TOOL)
            and isinstance(data[1], int)):
        position = span_position(run.step_map(profile, ROOT), data[0], data[1])
    else:
        return
    place = everywhere.place(position) if position is not None else None
    if place is None:
        session.notice("That call has no step in this projection.")
        return
    session.move_to(place.path, place.index)
    st.session_state[session.TAB] = session.STEPS_TAB


# Measured with tracemalloc: 0.006-0.025 per byte of the run's JSON on the
# large corpus runs and the 20x copy, rounded up.
TIMELINE_PER_JSON_BYTE = 0.03


def _timeline(digest: str, run: LoadedRun) -> Timeline:
    """Built once per open run and kept with it (counted against the server's
    budget, dropped when the run is)."""
    return server_store().memo(digest, ("timeline",), lambda: build_timeline(run.evidence),
                               per_json_byte=TIMELINE_PER_JSON_BYTE)

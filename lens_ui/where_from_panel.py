"""The "Where from?" part of the step detail pane (a toggle under This step,
one click away on every step: a fifth part in the pane's switch would wrap it
onto a second line and push the pane below a 1280x720 screen): where a state key's value
came from (the stages whose writes produced it, each a link to its step), its
timeline (a small chart on the slider's step axis, the table one click down),
and what it fed afterwards. The view model is :mod:`lens.lineage_view`, the
chart :mod:`lens.key_timeline_figure`; the run's lineage, stage places and
value index are built once per run and kept with it. The served context opens
this part on a key (:func:`ask_where_from`): the request is kept in the
session until the part is drawn, and the detail pane shows This step while
one is pending (:func:`where_from_asked`)."""

from __future__ import annotations

from functools import partial
from typing import Sequence

import pandas as pd
import streamlit as st

from recorders.run_step import RunStep
from lens.key_timeline_figure import key_chart, key_timeline_figure
from lens.lineage_view import (NO_COMMIT_LOG, RunLineage, StageRow, StagePlaces, WhereFrom,
                               key_for_step, key_label, lineage_of, pause_note, snapshot_note,
                               where_from)
from lens.value_keys import ValueIndex
from lens.scopes import ROOT
from lens.step_places import StepPlace
from lens.text import one_line
from lens.wording import plural
from lens_ui import session
from lens_ui.events_page import event_places
from lens_ui.runs import LoadedRun

WHERE_FROM_KEY = "lens.where_from"
WHERE_FROM_TOGGLE = "lens.where_from.open"  # one for the session: stays open as the user steps
WHERE_FROM_LABEL = "Where from?"
WHERE_FROM_ASKED = "lens.where_from.asked"    # (run key, state key, origin): open on this key
WHERE_FROM_ORIGIN = "lens.where_from.origin"  # (run key, state key, origin, step): said there
WHERE_FROM_TABLE = "lens.where_from.table"    # the timeline table toggle, one for the session
WHERE_FROM_CLICKS = "lens.where_from.clicks"  # bumped after a handled chart click: a fresh key
PLOT_CONFIG = {"displayModeBar": False, "scrollZoom": False}
CHAIN_SHOWN = 12  # stages of the chain with a button each; the rest are counted
FED_SHOWN = 12
NAME_CHARS = 60
# The lineage keeps the snapshot's commit log (with its written values), its
# execution tree's reads and their index: measured 0.40 bytes per byte of JSON
# on the largest corpus run (large-agent-300-tool-calls, 15.9 MB).
LINEAGE_PER_JSON_BYTE = 0.4
BYTES_GONE = "gone"  # the file's bytes could not be read again to find its commit log
BYTES_GONE_WORDS = ("The run's file can no longer be read, so its commit log cannot be traced: "
                    "open the file again.")
STAGE_PLACES_PER_JSON_BYTE = 0.02
# The value index keeps a list entry per string the commit log writes (the
# strings themselves are the lineage's): measured 0.22 bytes per byte of JSON
# on the largest corpus run (tracemalloc, large-agent-300-tool-calls).
VALUE_INDEX_PER_JSON_BYTE = 0.25


def run_lineage(run: LoadedRun) -> RunLineage | str | None:
    """The run's lineage (None: no commit log; BYTES_GONE: the file's bytes
    could not be read again), built once per run: the loader keeps no commit
    log, so the snapshot is read from the file's bytes."""
    def build() -> RunLineage | str | None:
        data = run.source.read()
        return BYTES_GONE if data is None else lineage_of(data)
    return run.derived(("lineage",), build, per_json_byte=LINEAGE_PER_JSON_BYTE)


def stage_places(run: LoadedRun, profile: str) -> StagePlaces:
    def build() -> StagePlaces:
        return StagePlaces(run, profile, places=event_places(run, profile))
    return run.derived(("lineage stage places", profile), build,
                       per_json_byte=STAGE_PLACES_PER_JSON_BYTE)


def value_index(run: LoadedRun, lineage: RunLineage) -> ValueIndex:
    """Every string the run's commit log writes, indexed once per run."""
    return run.derived(("lineage value index",), lambda: ValueIndex(lineage.lineage),
                       per_json_byte=VALUE_INDEX_PER_JSON_BYTE)


def ask_where_from(run_key: str, state_key: str, origin: str) -> None:
    """A button's callback: open the Where from? part on ``state_key``;
    ``origin`` (this app's words) says what the user opened it from."""
    st.session_state[WHERE_FROM_ASKED] = (run_key, state_key, origin)
    st.session_state[WHERE_FROM_TOGGLE] = True


def where_from_asked() -> bool:
    """Whether an entry asked for the part and it has not been drawn since."""
    return WHERE_FROM_ASKED in st.session_state


def where_from_first(run: LoadedRun, position: int) -> bool:
    """Whether the part leads This step: on the step where an entry of the
    served context opened it (else, below the step's detail, it would open
    out of sight in the pane's own scroll)."""
    asked = st.session_state.get(WHERE_FROM_ASKED)
    if asked is not None:
        return asked[0] == run.source.key
    origin = st.session_state.get(WHERE_FROM_ORIGIN)
    return (bool(st.session_state.get(WHERE_FROM_TOGGLE)) and origin is not None
            and origin[0] == run.source.key and origin[3] == position)


def go_to_place(path: tuple[str, ...], index: int, count: int) -> None:
    """A button's callback: drill to the stage's scope if needed, move the slider."""
    if tuple(path) != session.current_drill():
        session.notice(f"Moved into the scope that holds this step (see the breadcrumb): "
                       f"step {index + 1} of {count}.")
    session.move_to(tuple(path), index)


def _where(place: StepPlace | None) -> str:
    if place is None:
        return "no step"
    scope = f" in {one_line(place.scope_name, NAME_CHARS)}" if place.scope_name else ""
    return f"step {place.index + 1} of {place.count}{scope}"


def _stage(row: StageRow) -> str:
    name = one_line(row.stage_name or "(unnamed stage)", NAME_CHARS)
    rid = one_line(row.runtime_stage_id or "?", NAME_CHARS)
    return f"{name} ({rid})"


def _stage_rows(rows: Sequence[StageRow], shown: int, key: str) -> None:
    """Stages, one line of plain text each, with a button to the stage's step."""
    for number, row in enumerate(rows[:shown]):
        text_column, button_column = st.columns([3, 1], vertical_alignment="center")
        text_column.text(f"{number + 1}. {_stage(row)} · {one_line(row.what, 2 * NAME_CHARS)}")
        place = row.place
        if place is None:
            button_column.button("No step", key=f"{key}.{number}", disabled=True,
                                 help="No event of the run carries this stage's runtimeStageId.")
        else:
            button_column.button(f"Step {place.index + 1}", key=f"{key}.{number}",
                                 on_click=go_to_place, args=(place.path, place.index, place.count),
                                 help=f"Go to {_where(place)}", width="stretch")
    if len(rows) > shown:
        st.caption(f"and {plural(len(rows) - shown, 'more stage')}.")


def where_from_toggle(run: LoadedRun, steps: Sequence[RunStep], position: int,
                      key: str) -> None:
    """The toggle under This step, and the part when it is on."""
    asked = st.session_state.pop(WHERE_FROM_ASKED, None)
    if st.toggle(WHERE_FROM_LABEL, key=WHERE_FROM_TOGGLE,
                 help="Where a state key's value came from: the stages whose writes made it "
                      "(each a link to its step), its writes and reads, and what it fed "
                      "afterwards, from the snapshot's commit log."):
        where_from_part(run, steps, position, key, asked)


def where_from_part(run: LoadedRun, steps: Sequence[RunStep], position: int, key: str,
                    asked: tuple | None = None) -> None:
    """The pane's "Where from?" part for the slider's step; ``asked`` (see
    :func:`ask_where_from`) opens it on the key an entry named."""
    lineage = run_lineage(run)
    if lineage == BYTES_GONE:
        st.caption(BYTES_GONE_WORDS)
        return
    if lineage is None:
        st.caption(NO_COMMIT_LOG)
        return
    keys = lineage.lineage.keys()
    if not keys:
        st.caption("The commit log writes no state key: there is nothing to trace.")
        return
    facts = run.facts
    several = snapshot_note(facts.runs_in_file, facts.run_id, run.recording.snapshot_run_id)
    if several:
        st.text(several)  # it quotes run ids: recording text
    paused = pause_note(run.evidence, steps, position)
    if paused:
        st.caption(paused)
    chooser = f"{WHERE_FROM_KEY}.{key}.key"
    if asked is not None and asked[0] == run.source.key and asked[1] in keys:
        st.session_state[chooser] = asked[1]
        st.session_state[WHERE_FROM_ORIGIN] = (*asked, position)
    if st.session_state.get(chooser) not in keys:
        step = steps[position]
        st.session_state[chooser] = key_for_step(
            lineage, step.anchor.runtime_stage_id,
            final_step=(position == len(steps) - 1 and tuple(session.current_drill()) == ROOT),
            final_answer=facts.final_answer) or keys[0]
    chosen = st.selectbox("State key", options=keys, format_func=key_label, key=chooser,
                          help="Defaults to a key this step's stage wrote; on the last step, "
                               "the key holding the run's final answer.")
    origin = st.session_state.get(WHERE_FROM_ORIGIN)
    if origin is not None and origin[0] == run.source.key and origin[1:2] == (chosen,) \
            and origin[3] == position:
        st.caption(f"Opened from the served context: {origin[2]}.")
    view = where_from(lineage.lineage, stage_places(run, session.current_profile()), chosen)
    writes = sum(1 for row in view.timeline if row.what != "read")
    reads = len(view.timeline) - writes
    st.caption(f"{plural(writes, 'write')}, {plural(reads, 'recorded read')}; "
               f"{plural(len(view.chain), 'stage')} made its value, "
               f"{plural(len(view.fed), 'later write')} used it.")
    st.markdown("**Made by**, nearest first")
    if view.chain:
        _stage_rows(view.chain, CHAIN_SHOWN, f"{WHERE_FROM_KEY}.{key}.chain")
    else:
        st.caption("No stage in the commit log.")
    st.markdown(f"**Timeline** ({plural(len(view.timeline), 'moment')}"
                ": its writes and reads on the slider's steps)")
    if view.timeline:
        _timeline_chart(lineage, view, steps, position, key)
        if st.toggle("Timeline table, in commit order", key=WHERE_FROM_TABLE):
            table = pd.DataFrame([(row.commit, row.what, _stage(row), _where(row.place))
                                  for row in view.timeline],
                                 columns=["commit", "what", "stage", "step"])
            st.dataframe(table, hide_index=True, height=min(36 * (len(table) + 1) + 2, 220))
    st.markdown("**Fed afterwards**: what the stages that read it wrote")
    if view.fed:
        _stage_rows(view.fed, FED_SHOWN, f"{WHERE_FROM_KEY}.{key}.fed")
    else:
        st.caption("Nothing recorded read this value after its last write.")
    if view.notes:
        st.caption("  \n".join(view.notes))


def _timeline_chart(lineage: RunLineage, view: WhereFrom, steps: Sequence[RunStep],
                    position: int, key: str) -> None:
    """The key's moments as points on the slider's steps; a click goes to a point's step."""
    path = tuple(session.current_drill())
    chart = key_chart(view, lineage.lineage, path, len(steps), position)
    off_axis = []
    if chart.elsewhere:
        off_axis.append(f"{plural(chart.elsewhere, 'moment')} at steps of other scopes")
    if chart.unplaced:
        off_axis.append(f"{plural(chart.unplaced, 'moment')} at no step")
    said = "Hover a point for its stage and value; click it to go to its step."
    if off_axis:
        said += " Not on this axis: " + " and ".join(off_axis) + " (the table lists them)."
    st.caption(said)
    chart_key = f"{WHERE_FROM_KEY}.{key}.chart.{st.session_state.get(WHERE_FROM_CLICKS, 0)}"
    st.plotly_chart(key_timeline_figure(chart), key=chart_key, config=PLOT_CONFIG,
                    on_select=partial(_chart_clicked, chart_key, path, len(steps)),
                    selection_mode="points")


def _chart_clicked(chart_key: str, path: tuple[str, ...], count: int) -> None:
    points = session.widget_selection(chart_key, "points")
    st.session_state[WHERE_FROM_CLICKS] = st.session_state.get(WHERE_FROM_CLICKS, 0) + 1
    data = points[0].get("customdata") if points and isinstance(points[0], dict) else None
    if isinstance(data, list) and data:
        data = data[0]
    if isinstance(data, int) and not isinstance(data, bool) and 0 <= data < count:
        go_to_place(path, data, count)

"""The "Where from?" part of the step detail pane (a toggle under This step,
one click away on every step: a fifth part in the pane's switch would wrap it
onto a second line and push the pane below a 1280x720 screen): where a state key's value
came from (the stages whose writes produced it, each a link to its step), its
timeline, and what it fed afterwards. The view model is :mod:`lens.lineage_view`;
the run's lineage and stage places are built once per run and kept with it."""

from __future__ import annotations

from typing import Sequence

import pandas as pd
import streamlit as st

from recorders.run_step import RunStep
from lens.lineage_view import (NO_COMMIT_LOG, RunLineage, StageRow, StagePlaces, key_for_step,
                               key_label, lineage_of, where_from)
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
CHAIN_SHOWN = 12  # stages of the chain with a button each; the rest are counted
FED_SHOWN = 12
NAME_CHARS = 60
# The lineage keeps the snapshot's commit log (with its written values), its
# execution tree's reads and their index: measured 0.40 bytes per byte of JSON
# on the largest corpus run (large-agent-300-tool-calls, 15.9 MB).
LINEAGE_PER_JSON_BYTE = 0.4
BYTES_GONE = "gone"  # the file's bytes could not be read again to find its commit log
STAGE_PLACES_PER_JSON_BYTE = 0.02


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
        return StagePlaces(run.run, profile, places=event_places(run, profile))
    return run.derived(("lineage stage places", profile), build,
                       per_json_byte=STAGE_PLACES_PER_JSON_BYTE)


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
    if st.toggle(WHERE_FROM_LABEL, key=WHERE_FROM_TOGGLE,
                 help="Where a state key's value came from: the stages whose writes made it "
                      "(each a link to its step), its writes and reads, and what it fed "
                      "afterwards, from the snapshot's commit log."):
        where_from_part(run, steps, position, key)


def where_from_part(run: LoadedRun, steps: Sequence[RunStep], position: int, key: str) -> None:
    """The pane's "Where from?" part for the slider's step."""
    lineage = run_lineage(run)
    if lineage == BYTES_GONE:
        st.caption("The run's file can no longer be read, so its commit log cannot be traced: "
                   "open the file again.")
        return
    if lineage is None:
        st.caption(NO_COMMIT_LOG)
        return
    keys = lineage.lineage.keys()
    if not keys:
        st.caption("The commit log writes no state key: there is nothing to trace.")
        return
    step = steps[position]
    final_answer = run.run.facts.final_answer
    default = key_for_step(lineage, step.anchor.runtime_stage_id,
                           final_step=(position == len(steps) - 1
                                       and tuple(session.current_drill()) == ROOT),
                           final_answer=final_answer)
    index = keys.index(default) if default in keys else 0
    chosen = st.selectbox("State key", options=keys, index=index, format_func=key_label,
                          key=f"{WHERE_FROM_KEY}.{key}.key",
                          help="Defaults to a key this step's stage wrote; on the last step, "
                               "the key holding the run's final answer.")
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
                ": its writes and reads, in commit order)")
    if view.timeline:
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

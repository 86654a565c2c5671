"""The line under a cause that says where its answer's values came from.

Drawn under the first screen's top causes (:mod:`lens_ui.header`) and under
each cause of the Backtrack view (:mod:`lens_ui.evidence_panel`), in the
words of :mod:`lens.cause_lineage`: its short label, opening onto the whole
line and a button per stage that moves the slider to its step. Thin glue:
what the line says is :func:`lens.cause_lineage.came_from`'s.
"""

from __future__ import annotations

import streamlit as st

from lens.cause_lineage import CameFrom, came_from, quotes_answer, stage_label
from lens.evidence.cause_record import LikelyCause
from lens.text import markdown_literal, one_line
from lens_ui import session
from lens_ui.runs import LoadedRun
from lens_ui.where_from_panel import (BYTES_GONE, BYTES_GONE_WORDS, run_lineage, stage_places,
                                      value_index)

CAME_FROM_BUTTON = "lens.came_from"  # + ".<cause>.<stage>" on the first screen
POPOVER_HELP = ("The stages whose writes made the answer, from the snapshot's commit log: "
                "open for a button to each one's step.")


def cause_came_from(run: LoadedRun, profile: str, cause: LikelyCause) -> CameFrom | None:
    """Where a shown cause's answer came from. The commit log is read (the
    file's bytes parsed again, once per run) only for a cause resting on an answer."""
    if not quotes_answer(cause):
        return None
    lineage = run_lineage(run)
    if lineage == BYTES_GONE:
        return CameFrom((), None, BYTES_GONE_WORDS)
    if lineage is None:
        return came_from(cause, run.evidence, None, None, None)
    return came_from(cause, run.evidence, lineage, value_index(run, lineage),
                     stage_places(run, profile))


def came_from_line(came: CameFrom, key: str, chars: int) -> None:
    """One line: the stages the answer's values came from, opening onto a
    button per stage that moves the slider to its step; or, where the
    recording cannot say, one line saying so. ``key`` prefixes the widgets'
    keys (``<key>.<stage>``); ``chars`` is the room the line has."""
    words = came.words
    line = one_line(came.label, chars * 3 // 5)  # one line of the column, beside the icon
    if not came.stages:
        st.caption(markdown_literal(line), help=words)
        return
    # A popover's label is Markdown: the stage names in it are escaped.
    with st.popover(markdown_literal(line), type="tertiary", icon=":material/account_tree:",
                    help=POPOVER_HELP, key=f"{key}.open"):
        st.text(words)  # recording text (stage names)
        with st.container(horizontal=True, gap="small"):  # a loop's many stages wrap in rows
            for at, stage in enumerate(came.stages):
                label = markdown_literal(stage_label(stage))
                if stage.place is None:
                    st.button(label, key=f"{key}.{at}", disabled=True)
                else:
                    st.button(label, key=f"{key}.{at}", on_click=go_to_step,
                              args=(stage.place.path, stage.place.index))


def go_to_step(path: tuple[str, ...], index: int) -> None:
    """A button's callback: show step ``index`` of scope ``path`` in the Steps
    view, and scroll the page to it."""
    session.move_to(path, index)
    st.session_state[session.TAB] = session.STEPS_TAB
    session.ask_to_scroll_to_step()

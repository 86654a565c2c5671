"""The served-context part of the detail pane (``lens_ui/step_panel.py``).

On a step that shows a model call, the served-context panel: the three slots
as the model saw them, each piece with its provenance, the change since the
previous call in the same scope, the output and the tools it asked for; every
source link moves the slider, drilling into another scope when the step lives
there. On any other step, one line and a link to the last model call before
it. Under the reference projection, which shows no model calls as steps, the
panel shows the last call that started before the step and says so.

Under each piece shown whole and under the output, a "Where from?" entry: the
state key whose write holds that text (:mod:`lens.value_keys`), and a button
opening the Where from? part on it; where no key holds it, one line saying so.
"""

from __future__ import annotations

from functools import partial
from typing import Callable, Sequence

import streamlit as st

from recorders.evidence import ModelCall
from recorders.projections import DEFAULT_PROFILE
from recorders.run_step import RunStep
from lens.evidence.delta import SLOT_TITLES
from lens.evidence.nav import nav_for_call, unshown_part
from lens.lineage_view import NO_COMMIT_LOG, RunLineage
from lens.value_keys import INPUT, OUTPUT, NoMatch, match_words
from lens_ui import session
from lens_ui.evidence_panel import render_served_context as served_panel
from lens_ui.evidence_tabs import REFERENCE_NOTE, EvidenceLinks, walk_back_from
from lens_ui.runs import LoadedRun
from lens_ui.where_from_panel import (BYTES_GONE_WORDS, WHERE_FROM_LABEL, ask_where_from,
                                      run_lineage, value_index)

SERVED_KEY = "lens.served"
SERVED_TABS_KEY = f"{SERVED_KEY}.tabs"  # one for the run: the chosen tab stays as the slider moves
SERVED_FACTS_KEY = f"{SERVED_KEY}.facts"  # the call-facts toggle, kept open or shut as it moves


def render_served_context(run: LoadedRun, steps: Sequence[RunStep], position: int,
                          on_navigate: Callable[[int], None]) -> None:
    profile = session.current_profile()
    links = EvidenceLinks(run, profile, session.current_drill())
    index = links.index
    if not links.shows(steps):
        # Not the scope the session names (should not happen): links stay in ``steps``.
        served_panel(index, position, on_navigate, steps=steps, key=f"{SERVED_KEY}.plain",
                     heading=False)
        return
    # No heading and no border of its own: the pane's switch names it, the pane frames it.
    with st.container(key="lens-served-context"):
        if not index.calls:
            st.caption("Served context: no model call was recorded in this run.")
            for notice in index.notices:
                st.warning(notice)
            return
        call_id, exact = links.step_map.call_at(position, nearest=False)
        if call_id is None and profile == DEFAULT_PROFILE:
            _not_a_model_call(links, position)
            return
        if not exact:  # the reference projection: the last call before this step
            st.caption(REFERENCE_NOTE)
            call_id, _ = links.step_map.call_at(position, nearest=True)
        model = served_panel(index, position, links.go, steps=links.steps,
                             step_map=links.step_map, key=f"{SERVED_KEY}.{call_id}",
                             tabs_key=SERVED_TABS_KEY, facts_key=SERVED_FACTS_KEY,
                             step_label=links.label, heading=False,
                             value_source=partial(_where_from_entry, run,
                                                  index.calls[call_id]))
        if model is not None:
            st.button("Walk back from this call's output", key=f"{SERVED_KEY}.backtrack",
                      on_click=walk_back_from, args=(run.source.key, model.call_id),
                      icon=":material/undo:",
                      help="Open the Backtrack tab: the context pieces that fed this output, "
                           "back to the user's message.")


def _not_a_model_call(links: EvidenceLinks, position: int) -> None:
    earlier, _ = links.step_map.call_at(position, nearest=True)
    if earlier is None:
        st.caption("Served context: this step is not a model call, and no model call "
                   "started before it.")
        return
    st.caption("Served context: this step is not a model call.")
    nav = nav_for_call(links.index, links.step_map, earlier)
    if nav.step is not None:
        st.button(f"Last model call before this step: step {links.label(nav.step)}"
                  + ("" if nav.exact else " (nearest)"),
                  key=f"{SERVED_KEY}.previous_call", on_click=links.go, args=(nav.step,))


def _where_from_entry(run: LoadedRun, call: ModelCall, slot: str | None, number: int | None,
                      key: str) -> None:
    """Under a served piece (``slot``, its ``number``) or the output (``slot``
    None): the state key holding its text and a button to its Where from?, or
    one line saying why none is named."""
    lineage = run_lineage(run)
    if not isinstance(lineage, RunLineage):
        why = NO_COMMIT_LOG if lineage is None else BYTES_GONE_WORDS
        st.caption(f"{WHERE_FROM_LABEL} {why}")
        return
    if run.evidence.before_the_resume(call.run_id):  # the one commit log is the resumed part's
        st.caption(f"{WHERE_FROM_LABEL} This call comes before the run's pause, and the file's "
                   "one commit log is the part after the resume's: no state key can be named.")
        return
    if call.in_boundary_log is False or unshown_part(run.evidence, call.run_id, "this call"):
        st.caption(f"{WHERE_FROM_LABEL} This call belongs to an earlier run of the file, and "
                   "the file's one commit log is the last run's: no state key can be named.")
        return
    if slot is None:
        text, served = call.output, OUTPUT
        origin = f"the output of model call {call.id + 1}"
    else:
        piece = call.slots[slot].pieces[number]
        text, served = piece.content, INPUT
        shown = piece.position if isinstance(piece.position, int) else number
        title = SLOT_TITLES.get(slot)  # another slot's name is recording text: not said
        slot_words = f"the {title} slot" if title else "a slot of another name"
        origin = f"piece {shown} of {slot_words} of model call {call.id + 1}"
    found = value_index(run, lineage).key_holding(text, call.runtime_stage_id, served)
    if isinstance(found, NoMatch):
        st.caption(f"{WHERE_FROM_LABEL} {found.why}")
        return
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.button(WHERE_FROM_LABEL, key=key, icon=":material/account_tree:",
                  on_click=ask_where_from, args=(run.source.key, found.key, origin),
                  help="Open Where from? (under This step) on this state key: the stages "
                       "whose writes made its value, its timeline, and what it fed.")
        st.text(match_words(found))  # the key and the stage are recording text

"""The evidence panels wired to the slider: links that move it, and the tabs.

``lens_ui/evidence_panel.py`` draws the served context, the backtrack chain
and the search, linking to positions in a step list it is given. Here that
list is :class:`lens.step_places.ScopedSteps`: the scope on screen first, then
every other scope's steps, so a link to a model call inside a composition's
child can drill there. :class:`EvidenceLinks` turns a link's position into a
scope and a slider index (``session.move_to``) and names it on its button.

Backtrack and Search are tabs of the run view; their widgets are re-seeded
from ``lens.backtrack.*`` / ``lens.search.*`` keys, so what was typed or
chosen survives a trip to the Steps tab and back. Everything built here comes
from caches (the evidence index with the parse, the step lists with the
projection); nothing is rebuilt when the slider moves.
"""

from __future__ import annotations

from typing import Callable, Sequence

import streamlit as st

from recorders.evidence import EvidenceIndex, StepMap
from recorders.projections import DEFAULT_PROFILE
from recorders.run_step import RunStep
from lens.step_places import ScopedSteps
from lens.text import markdown_literal, one_line
from lens.cause_lineage import listed_causes
from lens_ui import session
from lens_ui.came_from_line import cause_came_from
from lens.evidence.causes import LikelyCause, causes_at_step, integrity_line, likely_causes
from lens.summary import unrecorded_in_composition
from lens_ui.evidence_panel import render_backtrack, render_causes, render_search
from lens_ui.runs import LoadedRun

BACKTRACK_KEY = "lens.backtrack"  # evidence_panel widget keys start with this
CAUSES_KEY = "lens.causes"
SEARCH_KEY = "lens.search"
BACKTRACK_TARGET = f"{BACKTRACK_KEY}-target"  # the "walk back from" selectbox
SEARCH_QUERY = f"{SEARCH_KEY}-query"
SEARCH_CASE = f"{SEARCH_KEY}-case"
SEARCH_ERRORS = f"{SEARCH_KEY}-errors"
SEARCH_FAMILIES = f"{SEARCH_KEY}-families"
BACKTRACK_FROM = "lens.backtrack.from"  # (run key, model call id) to walk back from
SEARCH_KEPT = "lens.search.kept"  # (query, match case, errors only, families) last searched
SCOPE_NAME_CHARS = 48

REFERENCE_NOTE = ("The reference projection does not show model calls as steps, so a link "
                  "leads to the nearest step before its call and says \"(nearest)\". Switch "
                  "to the lens projection for the exact step.")


class EvidenceLinks:
    """The evidence panels' step list for the scope on screen, and its links.

    ``steps``/``step_map`` are what the panels get; :meth:`go` is their
    ``on_navigate``; :meth:`label` and :meth:`report_place` name a position.
    """

    def __init__(self, run: LoadedRun, profile: str, path: tuple[str, ...]) -> None:
        self.run = run
        self.profile = profile
        self.scoped: ScopedSteps = run.scoped_steps(profile, path)
        self.index: EvidenceIndex = run.evidence
        self.step_map: StepMap = run.step_map(profile, path)

    @property
    def steps(self) -> tuple[RunStep, ...]:
        return self.scoped.steps

    def shows(self, steps: Sequence[RunStep]) -> bool:
        """Whether ``steps`` is the scope this list starts with (the slider's steps)."""
        if len(steps) != self.scoped.local_count:
            return False
        return not steps or (steps[0] is self.scoped.steps[0] and steps[-1] is
                             self.scoped.steps[len(steps) - 1])

    def label(self, position: int) -> str:
        """``3 of 10``, or ``2 of 4 in ▸ name`` for another scope (name escaped)."""
        place = self.scoped.place(position)
        if place is None:
            return str(position)
        text = f"{place.index + 1} of {place.count}"
        if place.path != self.scoped.path:
            name = place.scope_name
            text += " in " + ("⌂ root" if not name else
                              "▸ " + markdown_literal(one_line(name, SCOPE_NAME_CHARS)))
        return text

    def report_place(self, position: int) -> tuple[int, int, str] | None:
        place = self.scoped.place(position)
        return None if place is None else (place.index + 1, place.count, place.scope_name)

    def go(self, position: int, then: Callable[[], None] | None = None) -> None:
        """A link's callback: drill to the step's scope if needed, move the slider."""
        place = self.scoped.place(position)
        if place is None:
            return
        if place.path != self.scoped.path:
            session.notice(f"Moved into the scope that holds this step (see the breadcrumb): "
                           f"step {place.index + 1} of {place.count}.")
        session.move_to(place.path, place.index)
        if then is not None:
            then()


def show_steps_tab() -> None:
    """After a link moved the slider: the Steps view, scrolled to the step."""
    st.session_state[session.TAB] = session.STEPS_TAB
    session.ask_to_scroll_to_step()


def walk_back_from(run_key: str, call_id: int) -> None:
    """A button callback: open the Backtrack tab walking back from ``call_id``."""
    st.session_state[BACKTRACK_FROM] = (run_key, call_id)
    st.session_state[BACKTRACK_TARGET] = call_id
    st.session_state[session.TAB] = session.BACKTRACK_TAB


# ─── Backtrack ─────────────────────────────────────────────────────────


def backtrack_tab(run: LoadedRun, profile: str, path: tuple[str, ...], position: int) -> None:
    links = EvidenceLinks(run, profile, path)
    index = links.index
    _seed_backtrack_target(run, len(index.calls))
    causes = likely_causes_of(run, profile, tuple(path), links)
    # Said once, above the causes: the integrity ledger, and what a composition's file cannot hold.
    notes = [note for note in (integrity_line(index),
                               unrecorded_in_composition(run.recording.typed_counts)) if note]
    # Each cause resting on an answer says where the answer came from, as on the first screen.
    listed = listed_causes(causes, lambda cause: cause_came_from(run, profile, cause))
    render_causes(listed, lambda target: links.go(target, show_steps_tab), steps=links.steps,
                  key=CAUSES_KEY, step_label=links.label, notes=notes)
    if index.calls:
        _backtrack_starts(run, links, position)
    if profile != DEFAULT_PROFILE:
        st.caption(REFERENCE_NOTE)
    render_backtrack(index, lambda target: links.go(target, show_steps_tab), steps=links.steps,
                     step_map=links.step_map, recording_id=run.run_id, profile=profile,
                     key=BACKTRACK_KEY, step_label=links.label,
                     report_places=links.report_place, causes=listed)
    chosen = st.session_state.get(BACKTRACK_TARGET)
    if isinstance(chosen, int):
        st.session_state[BACKTRACK_FROM] = (run.source.key, chosen)


# Likely causes are a short list: measured at most 0.0001 bytes per byte of JSON;
# counted at a floor so a run with many causes is not free.
CAUSES_PER_JSON_BYTE = 0.01


def likely_causes_of(run: LoadedRun, profile: str, path: tuple[str, ...],
                     links: EvidenceLinks | None = None) -> tuple[LikelyCause, ...]:
    """The run's likely causes, linked into the step list of the scope at
    ``path`` (``links``: that scope's, when the caller has them), built once
    per scope and kept with the run: every widget on the tab reruns the page."""
    links = links or EvidenceLinks(run, profile, path)

    def build() -> tuple[LikelyCause, ...]:
        route = run.views(profile).projection.route
        return likely_causes(links.index, links.step_map, hops=route.get_hops(),
                             trips=route.get_trips(), gaps=run.recording.gaps)
    return run.derived(("likely causes", profile, path), build,
                       per_json_byte=CAUSES_PER_JSON_BYTE)


def causes_here(run: LoadedRun, steps: Sequence[RunStep],
                position: int) -> tuple[LikelyCause, ...]:
    """The likely causes whose link leads to the slider's step (the same causes,
    built once, as the Backtrack view lists); none when ``steps`` is not the
    scope the session names."""
    links = EvidenceLinks(run, session.current_profile(), session.current_drill())
    if not links.shows(steps):
        return ()
    causes = likely_causes_of(run, links.profile, session.current_drill(), links)
    return causes_at_step(causes, position)


def _seed_backtrack_target(run: LoadedRun, calls: int) -> None:
    """Give the selectbox the call chosen last time in this run (widget state is
    dropped while its tab is closed); forget a choice made in another run."""
    kept = st.session_state.get(BACKTRACK_FROM)
    if kept is None or kept[0] != run.source.key or not 0 <= kept[1] < calls:
        st.session_state.pop(BACKTRACK_FROM, None)
        st.session_state.pop(BACKTRACK_TARGET, None)
        return
    if BACKTRACK_TARGET not in st.session_state:
        st.session_state[BACKTRACK_TARGET] = kept[1]


def _backtrack_starts(run: LoadedRun, links: EvidenceLinks, position: int) -> None:
    """Two ways to pick what to walk back from: the final answer, or the model
    call at the slider's step."""
    final = links.index.final_call()
    here, exact = links.step_map.call_at(position, nearest=links.profile != DEFAULT_PROFILE)
    first, second = st.columns(2)
    if final is not None:
        first.button("From the final answer", key=f"{BACKTRACK_KEY}.from_final",
                     on_click=walk_back_from, args=(run.source.key, final.id),
                     icon=":material/flag:", width="stretch")
    where = f"step {links.label(position)}"
    if here is None:
        second.button(f"From the model call at {where}", key=f"{BACKTRACK_KEY}.from_here",
                      disabled=True, width="stretch",
                      help="The step on the slider is not a model call.")
    else:
        second.button(f"From the model call at {where}" + ("" if exact else " (nearest)"),
                      key=f"{BACKTRACK_KEY}.from_here", on_click=walk_back_from,
                      args=(run.source.key, here), icon=":material/my_location:",
                      width="stretch",
                      help=None if exact else "This step is not a model call; the last "
                                              "model call before it.")


# ─── Search ────────────────────────────────────────────────────────────


def search_tab(run: LoadedRun, profile: str, path: tuple[str, ...]) -> None:
    links = EvidenceLinks(run, profile, path)
    kept = st.session_state.get(SEARCH_KEPT)
    if kept is not None and SEARCH_QUERY not in st.session_state:
        (st.session_state[SEARCH_QUERY], st.session_state[SEARCH_CASE],
         st.session_state[SEARCH_ERRORS], st.session_state[SEARCH_FAMILIES]) = kept
    if profile != DEFAULT_PROFILE:
        st.caption(REFERENCE_NOTE)
    render_search(links.index, lambda target: links.go(target, show_steps_tab),
                  steps=links.steps, step_map=links.step_map, key=SEARCH_KEY,
                  step_label=links.label)
    st.session_state[SEARCH_KEPT] = (st.session_state.get(SEARCH_QUERY, ""),
                                     bool(st.session_state.get(SEARCH_CASE, False)),
                                     bool(st.session_state.get(SEARCH_ERRORS, False)),
                                     list(st.session_state.get(SEARCH_FAMILIES, [])))

"""The slider region: breadcrumb, the view switch (Steps, Timeline, route,
Backtrack, Search), time slider, arrow diagram and step detail, in one
fragment so a move reruns only this region.

Clicks that come back as widget state (a diagram node, a hop row) are read
at the top of the fragment, before anything is drawn, and turned into a new
position; their widgets then get fresh keys so no stale selection lingers.
"""

from __future__ import annotations

import hashlib

import pyarrow as pa
import streamlit as st
import streamlit.components.v1 as components
from streamlit.delta_generator import DeltaGenerator

from lens.diagram_chart import DIAGRAM_SPEC, DRILL_PARAM, DiagramChart
from lens.route_view import hop_step_index
from lens.scopes import ROOT, Scope, ScopeIndex, encode_path
from lens.step_view import step_view
from lens.text import markdown_literal
from lens.wording import plural
from lens_ui import session
from lens_ui.evidence_tabs import backtrack_tab, causes_here, search_tab
from lens_ui.panel_guard import guarded_panel
from lens_ui.route_panel import route_panel
from lens_ui.runs import LoadedRun
from lens_ui.step_panel import detail_pane
from lens_ui.timeline_panel import timeline_panel
from lens_ui.view_switch import current_view, view_switch

TAB = session.TAB
STEPS_TAB, ROUTE_TAB = session.STEPS_TAB, session.ROUTE_TAB
BACKTRACK_TAB, SEARCH_TAB = session.BACKTRACK_TAB, session.SEARCH_TAB
TIMELINE_TAB = session.TIMELINE_TAB
VIEWS = (STEPS_TAB, TIMELINE_TAB, ROUTE_TAB, BACKTRACK_TAB, SEARCH_TAB)
GENERATION = "lens.selection_generation"  # bumped after a handled click: fresh widget keys
MAX_CHILD_BUTTONS = 8
# Sized so the controls, the step, its headline and the diagram fit a 1280×720 or
# 1024×768 screen under the run bar and the answer, and the whole pane too (at
# 1280×720 it starts at y≈465, under the top causes): the detail pane scrolls
# within its height.
DETAIL_HEIGHT = 236
PREVIOUS_KEY, NEXT_KEY = "P", "N"
STEP_PANEL = "lens-scope-row"  # the container the step panel starts with: where a link scrolls
# Scrolls the page to the step panel once it is drawn (the link's rerun may
# draw it after this frame starts). Fixed text: nothing from the recording,
# run in a frame of its own (st.components), so the page itself runs no script.
SCROLL_TO_STEP_PANEL = f"""<script>
let tries = 40;
const scroll = () => {{
  const panel = window.parent.document.querySelector('.st-key-{STEP_PANEL}');
  if (panel) {{ panel.scrollIntoView({{block: 'start'}}); return; }}
  if (--tries > 0) setTimeout(scroll, 50);
}};
scroll();
</script>"""


@st.fragment
def run_view(run: LoadedRun, profile: str) -> None:
    scopes = run.views(profile).scopes
    _apply_clicks(run, profile, scopes)
    path, index = session.resolve_position(scopes)
    for text in session.take_notices():
        st.info(text, icon=":material/info:")
    scope = scopes.get(path)
    # The breadcrumb and the view switch are drawn in this slot, which the Steps
    # view fills after the step's label under it (see _steps).
    top = st.container()
    view = current_view(VIEWS, TAB)
    if view == STEPS_TAB:
        _steps(run, profile, scopes, scope, index, top)
        session.write_link(run.source, path, index, len(scope.steps))
        return
    _breadcrumb_and_switch(top, scopes, scope)
    if view == TIMELINE_TAB:
        with guarded_panel("timeline"):
            timeline_panel(run, profile, scope.path, index)
    elif view == ROUTE_TAB:
        with guarded_panel("route"):
            route_panel(run, profile, hops_key(_generation()))
    # Backtrack and Search link to steps anywhere in the run: a link drills into
    # the scope that holds its step, moves the slider there and opens Steps.
    elif view == BACKTRACK_TAB:
        with guarded_panel("backtrack"):
            backtrack_tab(run, profile, scope.path, index)
    elif view == SEARCH_TAB:
        with guarded_panel("search"):
            search_tab(run, profile, scope.path)
    session.write_link(run.source, path, index, len(scope.steps))


# ─── position from clicks ──────────────────────────────────────────────


def _generation() -> int:
    return st.session_state.setdefault(GENERATION, 0)


def diagram_key(path: tuple[str, ...], generation: int) -> str:
    """The diagram widget's key: new per scope, and after every handled click."""
    return f"lens.diagram.{_short_hash(encode_path(path))}.{generation}"


def hops_key(generation: int) -> str:
    return f"lens.hops.{generation}"


def _apply_clicks(run: LoadedRun, profile: str, scopes: ScopeIndex) -> None:
    """Turn last interaction's diagram click or hop pick into a position."""
    path = st.session_state.get(session.DRILL, ROOT)
    nodes = session.widget_selection(diagram_key(path, _generation()), DRILL_PARAM)
    if nodes:
        st.session_state[GENERATION] = _generation() + 1
        target = scopes.lookup(_drill_path(nodes[0]))
        if target is not None and target != path:
            session.drill_to(target)
        return
    rows = session.widget_selection(hops_key(_generation()), "rows")
    if rows:
        st.session_state[GENERATION] = _generation() + 1
        hops = run.views(profile).projection.route.get_hops()
        if 0 <= rows[0] < len(hops):
            session.drill_to(ROOT)
            index = hop_step_index(hops[rows[0]], scopes.root().steps, run.evidence)
            st.session_state[session.STEP] = index or 0
            st.session_state[TAB] = STEPS_TAB


def _drill_path(node: object) -> str:
    path = node.get("drill") if isinstance(node, dict) else None
    return path if isinstance(path, str) else ""


# ─── breadcrumb ────────────────────────────────────────────────────────


def _breadcrumb_and_switch(top: DeltaGenerator, scopes: ScopeIndex, scope: Scope) -> None:
    # One row: the views first (they keep their place as the breadcrumb grows), then where
    # the user is. The breadcrumb is as wide as its content, so where the row is too narrow
    # (a narrow screen, a deep drill) it moves whole onto a row of its own.
    with top, st.container(horizontal=True, vertical_alignment="center", gap="medium",
                           key=STEP_PANEL):
        view_switch("View", VIEWS, TAB)
        _breadcrumb(scopes, scope)


def _breadcrumb(scopes: ScopeIndex, scope: Scope) -> None:
    with st.container(horizontal=True, vertical_alignment="center", key="lens-breadcrumb",
                      width="content"):
        st.caption("Scope", width="content")
        crumbs = scopes.breadcrumb(scope.path)
        for depth, crumb in enumerate(crumbs):
            here = crumb == scope.path
            label = "⌂ root" if crumb == ROOT else markdown_literal(crumb[-1])
            st.button(label, key=f"lens.crumb.{depth}", type="primary" if here else "secondary",
                      disabled=here, on_click=session.drill_to, args=(crumb,),
                      help="the scope you are in" if here else "back out to this scope")
        children = scope.children
        if not children:
            return
        st.caption("· enter", width="content")
        if len(children) <= MAX_CHILD_BUTTONS:
            for number, child in enumerate(children):
                name = "/".join(child[len(scope.path):])
                st.button("▸ " + markdown_literal(name), key=f"lens.child.{number}",
                          on_click=session.drill_to, args=(child,),
                          help=f"{plural(len(scopes.get(child).steps), 'step')} inside")
        else:
            st.selectbox("Enter a child scope", options=[None, *children], key="lens.child_pick",
                         format_func=lambda c: "choose…" if c is None else encode_path(c),
                         label_visibility="collapsed", on_change=_child_picked)


def _child_picked() -> None:
    child = st.session_state.get("lens.child_pick")
    if child is not None:
        session.drill_to(child)
    st.session_state["lens.child_pick"] = None


# ─── the slider and what it shows ──────────────────────────────────────


def _steps(run: LoadedRun, profile: str, scopes: ScopeIndex, scope: Scope, index: int,
           top: DeltaGenerator) -> None:
    steps = scope.steps
    if not steps:
        _breadcrumb_and_switch(top, scopes, scope)
        st.info("This scope has no steps in this projection.", icon=":material/info:")
        return
    slider_key = f"lens.slider.{_short_hash(run.source.key, profile, encode_path(scope.path))}"
    # The workspace: controls, the step and what happened at it, then the diagram
    # beside a detail pane that scrolls on its own, so reading the detail never
    # scrolls the slider or the diagram out of view.
    controls = st.container()
    view = step_view(run, profile, scope, index, diagram=run.diagram(profile, scope.path),
                     said_here=causes_here(run, steps, index))
    # Sent before everything above and below it: the browser applies what the
    # server sends in order, so the step's label shows after a handful of small
    # messages instead of after the breadcrumb, switch and controls.
    st.text(view.caption)
    # Then the rest of the step is built before anything more is drawn: while
    # the server builds it, the browser has the label alone to show, instead of
    # showing it in the same render as the controls, the diagram and the detail.
    view.build_rest()
    _breadcrumb_and_switch(top, scopes, scope)
    with controls:
        _controls(len(steps), index, slider_key)
    # The headline heads the diagram's column, not the page: the detail pane
    # then starts right under the step's label, at the same place on every
    # step whatever the headline's length, and fits a 1280×720 screen; the
    # room under the diagram, empty before, takes the headline's lines.
    diagram_column, detail_column = st.columns([1, 1], gap="medium")
    with diagram_column:
        with guarded_panel("step headline"), st.container(key="lens-step-headline"):
            # Plain text, not Markdown: the sentence quotes recording text (a URL
            # in it would be autolinked even with every character escaped).
            st.text(view.headline.text,
                    help="What happened at this step, in plain words, from the recorded "
                         "events; recorded values are in “quotes”.")
        with guarded_panel("diagram"):
            draw_diagram(view.chart, key=diagram_key(scope.path, _generation()))
        st.caption("Orange: this step's arrows (red dashed: halted or refused · teal dashed: "
                   "via a fallback or retried) · grey: earlier steps · ■ a subflow: click it "
                   f"to drill in · keys: {NEXT_KEY} next, {PREVIOUS_KEY} previous, ←/→ on the slider.")
    with detail_column:
        detail_pane(run, steps, index, view.detail, key=f"{slider_key}.{index}",
                    height=DETAIL_HEIGHT, on_navigate=lambda target: _go_to(target, slider_key),
                    said_here=view.said_here)
    if session.take_scroll_request():
        # Last, so its frame's room is taken under the workspace, not inside it.
        components.html(SCROLL_TO_STEP_PANEL, height=0)


def draw_diagram(chart: DiagramChart, key: str) -> None:
    """The step's diagram: one spec for every step, the step as data, so the
    browser keeps the chart and swaps its rows. Drawn at the height the layout
    computed (squeezed, its labels would overlap); a node click reruns."""
    # Built as Arrow directly: through pandas it costs the server ~7× as much a step.
    rows = pa.Table.from_pylist(chart.rows)
    st.vega_lite_chart(rows, DIAGRAM_SPEC, key=key, on_select="rerun", selection_mode=DRILL_PARAM,
                       height=chart.height, width="stretch")


def _controls(count: int, index: int, slider_key: str) -> None:
    if st.session_state.get(slider_key) != index + 1:
        st.session_state[slider_key] = index + 1
    with st.container(horizontal=True, vertical_alignment="center", gap="small",
                      key="lens-step-controls"):
        st.button("", key="lens.first", help="first step", disabled=index == 0,
                  on_click=_go_to, args=(0, slider_key), icon=":material/first_page:")
        st.button("Prev", key="lens.previous", help="previous step", disabled=index == 0,
                  on_click=_go_to, args=(index - 1, slider_key), shortcut=PREVIOUS_KEY,
                  icon=":material/chevron_left:")
        if count > 1:
            st.slider("Step", min_value=1, max_value=count, key=slider_key,
                      on_change=_slider_moved, args=(slider_key,), label_visibility="collapsed")
        else:
            st.caption("This scope has a single step.")
        st.button("Next", key="lens.next", help="next step", disabled=index >= count - 1,
                  on_click=_go_to, args=(index + 1, slider_key), shortcut=NEXT_KEY,
                  icon=":material/chevron_right:", icon_position="right")
        st.button("", key="lens.last", help="last step", disabled=index >= count - 1,
                  on_click=_go_to, args=(count - 1, slider_key), icon=":material/last_page:")


def _go_to(index: int, slider_key: str) -> None:
    st.session_state[session.STEP] = index
    st.session_state[slider_key] = index + 1


def _slider_moved(slider_key: str) -> None:
    st.session_state[session.STEP] = st.session_state[slider_key] - 1


def _short_hash(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:12]

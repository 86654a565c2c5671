"""Streamlit panels for the evidence views: served context, backtrack, search.

The app calls these from the step detail and from a tab; they hold no domain
logic (``lens/evidence/`` builds every model) and no state beyond their
own widget keys.

``on_navigate(position)`` is called (as a button callback, before the rerun)
with a *position in the step list* the panel was given; the app moves its
slider there.

Rendering rules: anything from the recording goes through ``st.text``,
``st.code`` or ``st.dataframe`` only. Labels, captions, alerts and buttons
carry the view models' own words and numbers (``title``, ``notices``,
``status``, ``relation``...), never recording text, because Streamlit renders
those as Markdown. No HTML anywhere.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import streamlit as st

from recorders.evidence import EvidenceIndex, StepMap
from lens.wording import plural
from recorders.values import number_column
from lens.evidence.backtrack import BacktrackChain, BacktrackLink, backtrack
from lens.cause_lineage import ListedCause
from lens.evidence.delta import ContextDelta
from lens.evidence.nav import Nav, call_title
from lens.evidence.report import StepPlaceOf, backtrack_report
from lens.evidence.search import SearchResults, highlighted_markdown, search, search_families
from lens.evidence.served import (ServedContext, SlotPanel, piece_pages, served_context,
                                  served_context_for_step)
from lens.skill_evaluation import skill_evaluation
from lens.text import display_text, markdown_literal
from lens_ui.came_from_line import came_from_line
from lens_ui.render import facts_text, long_text
from lens_ui.view_switch import view_switch

Navigate = Callable[[int], None]
# Drawn under a served piece (slot, its number in the slot) or under the
# output (slot None): the caller's entry into where the value came from.
ValueSource = Callable[[str | None, int | None, str], None]
# How a link names its step: ``step_label(position)`` -> Markdown-safe text such
# as "3 of 10" (the app's words; recording names in it must be escaped).
StepLabel = Callable[[int], str]

PREVIEW_IN_LISTS = 400
CAME_FROM_CHARS = 200  # of the line saying where a cause's answer came from: the view's width
# Pieces drawn whole at a time: the table lists every piece, but a long
# conversation has hundreds, and each drawn piece is several elements on every
# slider move while the tab is open.
PIECES_PER_PAGE = 10
SERVED_TABS = ("System prompt", "Messages", "Tools", "Output and tool calls",
               "Change since previous call", "Skills, evictions, pressure")
# The slot switch sits in the narrow detail pane: with the full names its six
# buttons wrapped onto four lines. The full names stay the switch's values.
SERVED_TAB_BUTTONS = {"System prompt": "System", "Output and tool calls": "Output",
                      "Change since previous call": "Change",
                      "Skills, evictions, pressure": "Skills"}


def render_served_context(index: EvidenceIndex, step: Any, on_navigate: Navigate, *,
                          steps: Sequence[Any] | None = None, step_map: StepMap | None = None,
                          call_id: int | None = None,
                          key: str = "evidence-served", tabs_key: str | None = None,
                          facts_key: str | None = None, step_label: StepLabel | None = None,
                          heading: bool = True,
                          value_source: ValueSource | None = None) -> ServedContext | None:
    """The served-context panel for a slider position (``step``: its position
    in ``steps``, or the RunStep itself), or for ``call_id`` directly. Without
    ``heading`` where the page already names it (the detail pane's switch).
    ``facts_key`` keys the call-facts toggle (one key keeps it open across calls).
    ``value_source`` draws an entry under each piece shown whole and the output."""
    steps = steps if steps is not None else []
    smap = step_map or StepMap(index, steps)
    note = None
    if call_id is not None:
        model = served_context(index, call_id, smap)
    else:
        position = _position_of(step, steps)
        if position is None:
            st.info("This step is not in the step list given to the evidence panel.")
            return None
        model, note = served_context_for_step(index, smap, position)
    if heading:
        st.subheader("Served context")
    if model is None:
        st.info(note or "No model call to show.")
        for notice in index.notices:
            st.warning(notice)
        return None
    st.caption(model.title)
    if note:
        st.info(note)
    # What explains the call leads: its slots. The call's metadata (model,
    # provider, counts, tokens: some 18 lines) waits behind a toggle, drawn
    # only when on, so the slot switch is on the first screen.
    chosen = view_switch("Slot", SERVED_TABS, tabs_key or f"{key}-tabs",
                         shown_as=SERVED_TAB_BUTTONS)
    for name, panel in zip(SERVED_TABS[:3], model.slots[:3]):
        if chosen == name:
            _render_slot(panel, on_navigate, steps, f"{key}-{panel.slot}", step_label,
                         value_source)
    if chosen == SERVED_TABS[3]:
        _render_output(model, on_navigate, steps, f"{key}-out", value_source)
    elif chosen == SERVED_TABS[4]:
        _render_delta(model.delta, f"{key}-delta")
    elif chosen == SERVED_TABS[5]:
        _render_extras(model, index.calls[model.call_id].evaluated, f"{key}-extras")
    for notice in model.notices:
        st.warning(notice)
    with st.container(horizontal=True, gap="small"):
        _nav_button(model.start_nav, on_navigate, f"{key}-start", steps, "Call starts: step",
                    step_label=step_label)
        _nav_button(model.end_nav, on_navigate, f"{key}-end", steps, "Call ends: step",
                    step_label=step_label)
    if st.toggle(f"Call facts ({len(model.facts)})", key=facts_key or f"{key}-facts",
                 help="The model call's metadata: model, provider, scope, stage, run, "
                      "iteration, the counts llm_start and llm_end recorded."):
        facts_text(model.facts)
    return model


def render_backtrack(index: EvidenceIndex, on_navigate: Navigate, *,
                     steps: Sequence[Any] | None = None, step_map: StepMap | None = None,
                     recording_id: str = "", call_id: int | None = None,
                     profile: str | None = None, key: str = "evidence-backtrack",
                     max_shown: int = 150, step_label: StepLabel | None = None,
                     report_places: StepPlaceOf | None = None,
                     causes: Sequence[ListedCause] = ()) -> BacktrackChain | None:
    """Walk back from a model output (the final answer by default), with a
    Markdown export (which lists ``causes`` too)."""
    steps = steps if steps is not None else []
    smap = step_map or StepMap(index, steps)
    st.subheader("Backtrack")
    if not index.calls:
        st.info("No model call was recorded, so there is nothing to walk back from.")
        for notice in index.notices:
            st.warning(notice)
        return None
    final = index.final_call()
    options = list(range(len(index.calls)))
    default = call_id if call_id is not None else (final.id if final is not None else 0)
    target_key = f"{key}-target"
    # A caller may set the choice through session state (the app's "walk back from
    # this call"); then the default index must not be passed as well.
    chosen = {} if target_key in st.session_state else {"index": default}
    selected = st.selectbox(
        "Walk back from the output of", options,
        format_func=lambda i: call_title(index.calls[i])
        + (" — final answer" if final is not None and i == final.id else ""),
        key=target_key, **chosen)
    chain = backtrack(index, selected, smap)
    report = backtrack_report(index, chain, recording_id=recording_id, steps=steps,
                              profile=profile, step_place=report_places,
                              causes=[listed.cause for listed in causes],
                              came_from=[listed.came_from for listed in causes])
    st.download_button("Download the backtrack report (Markdown)", data=report,
                       file_name="backtrack-report.md", mime="text/markdown",
                       key=f"{key}-export", on_click="ignore")
    for note in chain.notes:
        st.warning(note)
    shown = chain.links[:max_shown]
    for number, section in enumerate(_chain_sections(shown)):
        head = section[0]
        errors = sum(1 for link in section if link.error)
        title = (f"{head.relation}: {head.title}" if head.kind in ("output", "context")
                 else "Context")  # call titles are numbers and our words only
        title += f" — {plural(len(section), 'link')}" + (f", {plural(errors, 'error')}" if errors else "")
        with st.expander(title, expanded=number == 0 or errors > 0,
                         icon=":material/error:" if errors else None):
            for link in section:
                _render_link(link, on_navigate, steps, key, step_label)
    if len(chain.links) > max_shown:
        st.caption(f"{len(chain.links) - max_shown} more links are in the downloaded report.")
    return chain


def render_causes(causes: Sequence[ListedCause], on_navigate: Navigate, *,
                  steps: Sequence[Any] | None = None, key: str = "evidence-causes",
                  step_label: StepLabel | None = None, max_shown: int = 20,
                  notes: Sequence[str] = ()) -> None:
    """The likely causes, most likely first: the headline in a coloured box, why as
    plain text, where its answer came from (a cause resting on one), what was
    recorded (kind and payload) one click down, and a button to the step.
    ``notes`` (the integrity ledger's line, what the recording cannot hold) lead, as text."""
    steps = steps if steps is not None else []
    st.subheader("Likely causes")
    for note in notes:
        st.text(note)  # check names are recorded text
    if not causes:
        st.success("Nothing in this run failed: no failed tool, provider error, rejected "
                   "route, governor trip or cut context was recorded.")
        return
    st.caption("What most often explains a wrong answer, most likely first. Each leads to "
               "the step that shows it.")
    for n, listed in enumerate(causes[:max_shown]):
        cause = listed.cause
        with st.container(border=True, key=f"{key}-{n}"):
            # The headline leads, in words; what was recorded (its kind, which for a
            # framework verdict is the event's type, and the payload) is one click down.
            alert = st.error if cause.is_error else st.warning
            alert(markdown_literal(cause.headline), icon=":material/error:" if cause.is_error
                  else ":material/warning:")
            st.text(cause.why)
            if listed.came_from is not None:
                came_from_line(listed.came_from, f"{key}-came-from-{n}", CAME_FROM_CHARS)
            with st.expander("What was recorded"):
                st.text(f"Kind: {cause.kind}")
                if cause.detail is not None:
                    st.code(display_text(cause.detail.start(PREVIEW_IN_LISTS), PREVIEW_IN_LISTS).text,
                            language=None, wrap_lines=True)
            _nav_button(cause.nav, on_navigate, f"{key}-go-{n}", steps, "Go to step",
                        step_label=step_label)
    if len(causes) > max_shown:
        st.caption(f"{len(causes) - max_shown} more likely causes are not shown; the failed "
                   "tools and provider errors come first.")


def _chain_sections(links: Sequence[BacktrackLink]) -> list[list[BacktrackLink]]:
    """The chain cut where each model call's own context starts: the output and
    its context first, then one section per call the walk went back to."""
    sections: list[list[BacktrackLink]] = []
    for link in links:
        if not sections or link.kind == "context":
            sections.append([])
        sections[-1].append(link)
    return sections


def _render_link(link: BacktrackLink, on_navigate: Navigate, steps: Sequence[Any], key: str,
                 step_label: StepLabel | None) -> None:
    cols = st.columns([5, 1])
    with cols[0]:
        if link.error:
            # A relation can carry a recorded role name: escaped for the alert's Markdown.
            st.error(f"{link.number}. {markdown_literal(link.relation)}",
                     icon=":material/error:")
        head = f"{_indent(link.depth)}{link.number}. " + (
            link.title if link.error else f"{link.relation}: {link.title}")
        if link.inferred:
            head += f"   (inferred: {link.inferred})"
        st.text(head)
        if link.text is not None:
            st.code(display_text(link.text.start(PREVIEW_IN_LISTS), PREVIEW_IN_LISTS).text, language=None,
                    wrap_lines=True)
    with cols[1]:
        _nav_button(link.nav, on_navigate, f"{key}-go-{link.number}", steps, "Step",
                    explain=False, step_label=step_label)


def render_search(index: EvidenceIndex, on_navigate: Navigate, *,
                  steps: Sequence[Any] | None = None, step_map: StepMap | None = None,
                  key: str = "evidence-search", limit: int = 100,
                  step_label: StepLabel | None = None) -> SearchResults | None:
    """Find text anywhere in the run; each hit can move the slider to its step."""
    steps = steps if steps is not None else []
    smap = step_map or StepMap(index, steps)
    query = st.text_input("Find text anywhere in the run", key=f"{key}-query")
    case_column, errors_column = st.columns(2)
    match_case = case_column.checkbox("Match case", key=f"{key}-case")
    errors_only = errors_column.checkbox(
        "Errors only", key=f"{key}-errors",
        help="Error events, and the arguments and results of failed tool calls and the "
             "output of failed model calls.")
    present = dict(search_families(index))
    families = st.multiselect(
        "Families", options=list(present), key=f"{key}-families",
        format_func=lambda f: f"{f} ({present.get(f, 0)})", placeholder="all families",
        help="Only texts of events of these families (the framework's groups of event "
             "types), each with its count of searchable texts in this run.")
    if not query:
        st.caption("Searches prompts, model outputs, tool arguments and results, injected "
                   "context, route reasons and the framework's verdicts and warnings.")
        return None
    results = search(index, query, smap, limit=limit, case_sensitive=match_case,
                     errors_only=errors_only, families=families)
    shown = f", the first {len(results.hits)} shown" if results.truncated else ""
    kind = "matching error value" if errors_only else "matching value"
    st.caption(f"{plural(results.total, kind)}{shown}.")
    for n, hit in enumerate(results.hits):
        with st.container(border=True, key=f"{key}-hit-{n}"):
            if hit.error:
                st.error("Error", icon=":material/error:")
            where = f"{hit.kind} · {hit.label}" if hit.label else hit.kind
            if hit.served_in:
                where += f" · served to {plural(len(hit.served_in), 'model call')}"
            st.text(where)
            # Every part is escaped; the only markup is the bold around each match.
            st.markdown(highlighted_markdown(hit.parts))
            st.caption(f"{hit.value_length:,} characters; match at character "
                       f"{hit.match_start:,}.")
            if hit.preview.truncated:
                st.download_button("Download the whole value",  # encoded on click only
                                   data=lambda value=hit.full_value: value.encode("utf-8"),
                                   file_name="value.txt", mime="text/plain",
                                   key=f"{key}-full-{n}", on_click="ignore")
            _nav_button(hit.nav, on_navigate, f"{key}-go-{n}", steps, "Go to step",
                        step_label=step_label)
    return results


# ─── Pieces ────────────────────────────────────────────────────────────


def _render_slot(panel: SlotPanel, on_navigate: Navigate, steps: Sequence[Any],
                 key: str, step_label: StepLabel | None = None,
                 value_source: ValueSource | None = None) -> None:
    st.caption(f"{panel.title}: {panel.status}.")
    st.caption(f"Budget: {panel.budget}.")
    for note in panel.notes:
        st.info(note)
    if panel.dropped:
        st.caption(f"Dropped from this slot ({panel.dropped_count}):")
        for dropped in panel.dropped:
            st.text(dropped.text)
    if not panel.rows:
        return
    # A recorded number column stays numeric only while every value is exactly a float.
    positions = number_column(row.position for row in panel.rows)
    st.dataframe([{
        "#": position, "role": row.role, "source": row.source, "sourceId": row.source_id,
        "change": row.change or "", "error": "ERROR" if row.error else "",
        "provenance": row.provenance, "reason": row.reason,
        "content": row.content.text[:PREVIEW_IN_LISTS] if row.content else "(not recorded)",
        "chars": row.content.length if row.content else None,
    } for position, row in zip(positions, panel.rows)], hide_index=True, key=f"{key}-table")
    pages, first = piece_pages(panel.rows, PIECES_PER_PAGE)
    shown = pages[first]
    if len(pages) > 1:
        page = st.selectbox(
            f"Pieces shown whole ({len(panel.rows)} in all; the first change since the "
            "previous call is shown first)", options=range(len(pages)), index=first,
            format_func=lambda p: f"{pages[p].start + 1}–{pages[p].stop}", key=f"{key}-page")
        shown = pages[page]
    for n in shown:
        row = panel.rows[n]
        with st.container(border=True):
            head = f"{row.position if row.position is not None else n}. "
            head += " · ".join(x for x in (row.role, row.source, row.source_id) if x)
            if row.change:
                head += f"   [{row.change}]"
            if row.error:
                head += "   [ERROR]"
            st.text(head)
            st.text(row.provenance)
            if row.content is None:
                st.text("content not recorded: " + (", ".join(row.missing) or "no text"))
            else:
                long_text(row.content, f"{key}-full-{n}")
            if row.nav is not None:
                _nav_button(row.nav, on_navigate, f"{key}-go-{n}", steps, "Source: step",
                            step_label=step_label)
            if value_source is not None:
                value_source(panel.slot, n, f"{key}-from-{n}")


def _render_output(model: ServedContext, on_navigate: Navigate, steps: Sequence[Any],
                   key: str, value_source: ValueSource | None = None) -> None:
    st.caption(f"Output: {model.output_status}.")
    if model.output is not None:
        long_text(model.output, f"{key}-full")
        if value_source is not None:
            value_source(None, None, f"{key}-from")
    st.caption(model.usage)
    if model.failure is not None:
        st.error("A fatal error was recorded while this call was open:")
        long_text(model.failure, f"{key}-failure")
    if model.route is not None:
        st.caption("Route taken after this call (agent.route_decided):")
        long_text(model.route, f"{key}-route")
    if not model.tool_rows:
        st.caption("This call asked for no tools.")
        return
    durations = number_column(t.duration_ms for t in model.tool_rows)
    st.dataframe([{"tool": t.name, "toolCallId": t.tool_call_id, "status": t.status,
                   "ms": ms} for t, ms in zip(model.tool_rows, durations)],
                 hide_index=True, key=f"{key}-tools")
    for n, tool in enumerate(model.tool_rows):
        with st.container(border=True):
            st.text(f"{tool.name} · {tool.tool_call_id} · {tool.status}")
            if tool.error:
                st.error("This tool call returned an error.")
            st.caption("Arguments:")
            if tool.args is None:
                st.text("not recorded")
            else:
                long_text(tool.args, f"{key}-args-{n}")
            st.caption("Result:")
            if tool.result is None:
                st.text("not recorded" if tool.status != "did not end" else "the tool call "
                        "did not end in the recording")
            else:
                long_text(tool.result, f"{key}-result-{n}")
            for note in tool.notes:
                st.text(note.text)


def _render_delta(delta: ContextDelta, key: str) -> None:
    st.caption(delta.summary)
    for note in delta.notes:
        st.info(note)
    if delta.skills_added or delta.skills_removed:
        st.text("skills activated: " + (", ".join(delta.skills_added) or "none")
                + "\nskills deactivated: " + (", ".join(delta.skills_removed) or "none"))
    if not delta.items:
        return
    st.dataframe([{
        "slot": item.slot, "change": item.change, "what": item.what,
        "before": item.before.text[:PREVIEW_IN_LISTS] if item.before else "",
        "after": item.after.text[:PREVIEW_IN_LISTS] if item.after else "",
    } for item in delta.items], hide_index=True, key=f"{key}-table")


def _render_extras(model: ServedContext, evaluated: Any, key: str) -> None:
    if not isinstance(evaluated, Mapping):
        st.caption("No skill evaluation (context.evaluated) was recorded before this call.")
    else:
        evaluation = skill_evaluation(evaluated)
        st.caption("Skill evaluation before this call: " + evaluation.summary)
        if evaluation.rows:
            st.dataframe([{"skill": row.skill, "status": row.status, "why": row.why,
                           "tools": row.tools, "description": row.description}
                          for row in evaluation.rows], hide_index=True, key=f"{key}-skills")
        lines = ([evaluation.cursor] if evaluation.cursor else []) + (
            ["Superseded: " + ", ".join(evaluation.superseded)] if evaluation.superseded else [])
        if lines:
            st.text("\n".join(lines))
    if model.evictions:
        st.caption(f"{plural(len(model.evictions), 'piece')} evicted before this call:")
        for n, eviction in enumerate(model.evictions):
            long_text(eviction, f"{key}-eviction-{n}")
    else:
        st.caption("No eviction was recorded before this call.")
    for n, pressure in enumerate(model.pressure):
        st.caption("Budget pressure (context.budget_pressure):")
        long_text(pressure, f"{key}-pressure-{n}")
    if model.other_events:
        st.caption("Other events in this scope before this call:")
        for n, other in enumerate(model.other_events):
            long_text(other, f"{key}-other-{n}")


# ─── Navigation ────────────────────────────────────────────────────────


def _nav_button(nav: Nav | None, on_navigate: Navigate, key: str, steps: Sequence[Any],
                label: str, explain: bool = True, step_label: StepLabel | None = None) -> None:
    if nav is None:
        return
    if nav.step is None:
        if explain and nav.why_no_step:
            st.caption(f"No step: {nav.why_no_step}.")
        return
    if step_label is not None:
        seq: Any = step_label(nav.step)
    else:
        seq = nav.step
        if 0 <= nav.step < len(steps):
            seq = getattr(steps[nav.step], "seq", nav.step)
    text = f"{label} {seq}" + ("" if nav.exact else " (nearest)")
    st.button(text, key=key, on_click=on_navigate, args=(nav.step,))


def _indent(depth: int) -> str:
    """A visible depth marker (st.text does not keep leading spaces)."""
    if depth <= 0:
        return ""
    shown = min(depth, 8)
    return "│ " * (shown - 1) + "↳ " + (f"[depth {depth}] " if depth > shown else "")


def _position_of(step: Any, steps: Sequence[Any]) -> int | None:
    if isinstance(step, int) and not isinstance(step, bool):
        return step if 0 <= step < len(steps) else None
    for position, candidate in enumerate(steps):
        if candidate is step:
            return position
    return None

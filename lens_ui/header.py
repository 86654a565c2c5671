"""The run bar and the answer under it.

The bar: the run's identity and key figures, and the run's details one click
away (a popover); under it, what the run's file says beside the run when
there is something to say (a bug report's title, steps, expected and actual;
that an event stream has no steps), as text. The loader's notes on the file
are in the details.

The answer (:func:`answer_first`, the view model :mod:`lens.first_screen`):
how the run ended and whether its file is whole, as two labelled chips and
the outcome's sentence, then the top likely causes, each with one button to
its step. Both are kept short so the slider, the step and the diagram still
fit under them on the first screen of a laptop; everything left out is in
"Run details" and the Backtrack view.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from lens.wording import plural
from recorders.projections import PROFILES, Projection
from lens.procedure_view import skill_procedures
from lens.route_view import skills_visited_text
from lens.evidence.outcome import run_outcome
from lens.first_screen import TOP_CAUSES, Chip, FirstScreen, TopCause, first_screen, run_ending
from lens.scopes import ROOT
from lens.summary import (RunSummary, figures_line, format_count, format_duration, run_facts,
                          steps_note, summarise, timing_notes)
from lens.text import cut_at_word, markdown_literal, one_line, visible
from lens_ui import navigation, session
from lens_ui.came_from_line import CAME_FROM_BUTTON, came_from_line, cause_came_from, go_to_step
from lens_ui.compare_state import compare_with
from lens_ui.evidence_tabs import EvidenceLinks, likely_causes_of
from lens_ui.labels_panel import labels_on_bar
from lens_ui.runs import FileFacts, LoadedRun
from recorders.read.registry import kind_words

PROFILE_WIDGET = "lens.profile_switch"
RUN_DETAILS = "lens.run_details"  # the popover; True while open
REPORT_CHARS = 600  # of each bug-report text shown; the rest is in the file
# Why a pill may carry no step count: the honest reason, in the switch's help.
UNBUILT_HELP = ("A projection's step count shows once it has been opened: counting its steps "
                "means building it.")
PROFILE_HELP = {
    "lens": "lens: the corrected projection (an Agent shows its user/model/tool arrows)",
    "reference": "reference: agentfootprint's own replay, faults included, for comparison",
}
# What the run facts' names mean, for someone who does not know the framework.
FACT_HELP = {
    "format": "How the file was saved: a bare recording, or an envelope around one.",
    "producer": "The library versions that wrote the recording.",
    "run id": "The run's own id, as the recording names it.",
    "complete": "Whether the recording says the run finished (complete: false means it stopped "
                "early, e.g. on a crash).",
    "boundary detail": "How much the flow engine's log kept of each stage (its boundary mode).",
    "events": "typed: the agent's own events (model calls, tools, context); boundary: the flow "
              "engine's log of stages entered and left. Steps come from the boundary log, the "
              "evidence from the typed events.",
}


def run_bar(run: LoadedRun, profile: str, screen: FirstScreen) -> None:
    """The open run, how it ended and whether its file is whole (``screen``'s
    chips), its key figures, its details."""
    projection = run.views(profile).projection
    recording, evidence = run.recording, run.evidence
    summary = summarise(evidence, projection.route.get_path(), recording.run_info, run.facts)
    problems = _health(run, projection)
    choice = run.source
    file = run.file
    with st.container(horizontal=True, vertical_alignment="center", gap="small",
                      key="lens-run-bar"):
        # The label is one line and bounded (lens.run_label); shown whole, since
        # its tail (digest, time) is what tells two uploads apart.
        st.text(_run_name(run, file), help=f"The open run ({choice.words}).")
        # Two chips, two questions: how the run ended, and whether the file is
        # whole. One "healthy" badge answered the second and read as the first.
        # They wrap as one: split over two lines they read as unrelated.
        with st.container(horizontal=True, gap="small", width="content",
                          key="lens-run-badges"):
            chip(screen.run_chip)
            chip(screen.file_chip)
        st.caption(figures_line(summary), width="content")
        part = steps_note(summary, run.views(profile).scopes.get(ROOT).steps)
        if part:  # the steps show part of the run the figures count: said beside them,
            # in a few words on the bar's line (the whole note wrapped it onto three).
            st.caption(f"· steps: {summary.calls_in_steps} of {summary.model_calls} calls",
                       help=part, width="content")
        labels_on_bar(choice)
        with st.popover("Run details", icon=":material/info:", key=RUN_DETAILS,
                        on_change="rerun") as details:
            # Drawn only while open: closed, its thirty-odd elements would still be
            # sent and re-rendered on every step (each costs the browser time).
            if details.open:
                _details(run, projection, summary, problems)
    file_panel(run, file)


def _run_name(run: LoadedRun, file: FileFacts) -> str:
    """The source's label; for a file with several runs, which one and its words."""
    choice = run.source
    if len(file.runs) < 2 or not 0 <= choice.run_index < len(file.runs):
        return choice.label or choice.name
    # The file's label names its first run; the run shown speaks for itself.
    return f"{one_line(choice.name[:200], 40)} · " \
           f"{file.runs[choice.run_index].words(of=len(file.runs))}"


def file_panel(run: LoadedRun, file: FileFacts) -> None:
    """What the run's file says as a whole, as text (never markup): a bug
    report's words, that the file carries no boundary log (so no steps) and
    what it does show, and the loader's notes. Nothing when there is none."""
    if file.report:
        with st.container(border=True, key="lens-bug-report"):
            parts = dict(file.report)
            title = parts.pop("Title", None)
            with st.container(horizontal=True, vertical_alignment="center", gap="small"):
                st.caption("Bug report" + ("" if title else " (no title)"), width="content",
                           help="Written by whoever filed the report (exportBugReport); "
                                "shown as its text, clipped to a few lines.")
                if title:
                    st.text(_report_text(title))
            if parts:
                for cell, (name, text) in zip(st.columns(len(parts)), parts.items()):
                    cell.caption(name)
                    cell.text(_report_text(text))
    if not run.recording.has_boundary_log:
        what = kind_words(file.kind)
        st.info(f"This run comes from {what}: the agent's own events only. It shows the model "
                "and tool calls, what each model call was served, likely causes, the timeline, "
                "the route and search. Steps (the slider and the diagram) are built from the "
                "flow engine's boundary log, which this file does not carry: open the "
                "recording or envelope of the same run for them.",
                icon=":material/timeline:")


def file_notes(file: FileFacts) -> None:
    """What the loader says of the run's file as a whole (in Run details)."""
    if file.notes:
        st.caption("About this file")
        st.text("\n".join(f"• {one_line(note, 300)}" for note in file.notes))


def _report_text(text: str) -> str:
    clipped = text if len(text) <= REPORT_CHARS else text[:REPORT_CHARS] + "…"
    return visible(clipped)


# ─── the answer, first ─────────────────────────────────────────────────

OUTCOME_CHARS = 104  # of the outcome's sentence: one line at 1280 px, cut at a word; the whole
# is in Run details
CAUSE_HEIGHT = 92  # px: two lines of headline and the button
CAME_FROM_HEIGHT = 36  # px more, when a shown cause says where its answer came from
# Of a cause's headline: two lines of its column at 1280 px (a third of the page when there
# are three causes, half for two, the whole width for one), cut at a word; a longer one is
# whole one click down (the cut headline opens it).
CAUSE_CHARS_BY_COLUMNS = {1: 220, 2: 110, 3: 64}
CHIP_ICONS = {"green": ":material/check_circle:", "orange": ":material/warning:",
              "red": ":material/error:", "gray": ":material/info:"}
TOP_CAUSE_BUTTON = "lens.top_cause"  # + ".0", ".1", ...


def first_screen_of(run: LoadedRun, profile: str) -> FirstScreen:
    """What the first screen says of the run. The causes are linked into the
    root's step list, as ``footprint-lens causes`` links them, so both name
    the same step."""
    links = EvidenceLinks(run, profile, ROOT)
    # The file chip counts the file's own gaps, the ones `footprint-lens info`
    # lists; what a view cannot show is a note in Run details, not a gap.
    return first_screen(run_ending(run), likely_causes_of(run, profile, ROOT, links),
                        links.scoped.place, run.recording.complete,
                        len(run.recording.gaps), lambda cause: cause_came_from(run, profile, cause))


def answer_first(screen: FirstScreen) -> None:
    """Under the run bar: the outcome's sentence, then the top likely causes,
    each with a button that moves the slider to its step and scrolls there."""
    with st.container(key="lens-answer-first"):
        with st.container(key="lens-outcome-sentence"):
            # Plain text: the sentence quotes the recording (an error, the answer).
            st.text(cut_at_word(screen.sentence, OUTCOME_CHARS))
        if not screen.causes:
            st.text("No likely cause was found: no failed tool, provider error, rejected "
                    "route, framework verdict or cut context is recorded.")
            return
        # One column a cause, side by side, and no gap inside one: stacked,
        # three causes took the height the workspace needs on a laptop screen.
        more = (f" All {len(screen.causes) + screen.more_causes} likely causes are in the "
                "Backtrack view." if screen.more_causes else "")
        # As many columns as causes: one cause has the width to say its point.
        columns = min(len(screen.causes), TOP_CAUSES)
        chars = CAUSE_CHARS_BY_COLUMNS.get(columns, CAUSE_CHARS_BY_COLUMNS[TOP_CAUSES])
        height = CAUSE_HEIGHT + (CAME_FROM_HEIGHT if any(cause.came_from is not None
                                                         for cause in screen.causes) else 0)
        for number, (column, cause) in enumerate(zip(st.columns(columns), screen.causes)):
            # A fixed height: the workspace under the causes starts at the same
            # place whatever their length (a longer one scrolls in its box).
            with column, st.container(key=f"lens-top-cause-{number}", gap=None,
                                      height=height, border=False):
                _top_cause(cause, number, more, chars)


def chip(shown: Chip) -> None:
    st.badge(shown.label, icon=CHIP_ICONS.get(shown.colour), color=shown.colour,
             help=shown.help)


def _top_cause(cause: TopCause, number: int, more: str, chars: int) -> None:
    # The button first: where a long headline is cut, its step is not.
    if cause.place is None:
        # "no step", its reason on hover: the reason on two lines took the headline's room.
        no_step, _, why = cause.where.partition(": ")
        st.text(("✖ " if cause.is_error else "⚠ ") + no_step, help=why.capitalize() or None)
    else:
        # A button's label is Markdown: the scope's name in it is escaped.
        st.button(markdown_literal(cause.where), key=f"{TOP_CAUSE_BUTTON}.{number}",
                  icon=":material/error:" if cause.is_error else ":material/warning:",
                  on_click=go_to_step,
                  args=(cause.place.path, cause.place.index),
                  help=f"Move the slider to the step that shows it.{more}")
    _headline(cause, number, chars)
    if cause.came_from is not None:
        came_from_line(cause.came_from, f"{CAME_FROM_BUTTON}.{number}", chars)


def _headline(cause: TopCause, number: int, chars: int) -> None:
    """The cause's headline, whole; or cut at a word, opening its whole text in
    one click, in its own place, so the box keeps its height."""
    shown = cut_at_word(cause.headline, chars)
    if shown == one_line(cause.headline):
        # The headline is recording text: st.text, never Markdown.
        st.text(shown)
        return
    # A label is Markdown: escaped.
    with st.popover(markdown_literal(shown), type="tertiary", width="stretch",
                    key=f"{TOP_CAUSE_BUTTON}.whole.{number}",
                    help="Click to read the whole of this cause"):
        st.text(visible(cause.headline))


@dataclass(frozen=True)
class Health:
    """The file's gaps (as ``footprint-lens info`` lists them) apart from the
    notes on what this projection or the run's timings cannot show."""
    gaps: list[str]
    notes: list[str]


def _health(run: LoadedRun, projection: Projection) -> Health:
    recording = run.recording
    return Health([gap.message for gap in recording.gaps],
                  list(projection.notes) + timing_notes(run.evidence, recording.run_info))


def _details(run: LoadedRun, projection: Projection, summary: RunSummary,
             problems: Health) -> None:
    if st.button("Compare with…", key="lens.compare_with",
                 help="Open the Compare page with this run as run A"):
        compare_with(run.source)
        navigation.switch_to(navigation.COMPARE)
    recording, evidence = run.recording, run.evidence
    outcome = run_outcome(evidence, recording)
    st.caption(f"How the run ended: {outcome.kind}.")
    st.text("\n".join(one_line(text, 400) for text in (outcome.sentence, outcome.headline,
                                                       outcome.detail) if text))
    _facts(run_facts(recording, evidence))
    health_line(problems)
    file_notes(run.file)
    summary_figures(run, summary)
    st.caption("  \n".join(PROFILE_HELP.get(p, p) for p in PROFILES))


def _facts(facts: list[tuple[str, str]]) -> None:
    for start in range(0, len(facts), 2):
        cells = st.columns(2, gap="small")
        for cell, (name, value) in zip(cells, facts[start:start + 2]):
            cell.caption(name, help=FACT_HELP.get(name))
            cell.text(one_line(value, 120))


def health_line(problems: Health) -> None:
    """Every gap the loader reported and every note of the projection, plainly,
    each counted under its own name."""
    if not problems.gaps and not problems.notes:
        st.success("Recording: nothing missing. The file carries what these views need.",
                   icon=":material/check_circle:")
        return
    with st.container(border=True, key="lens-health"):
        said = ([f"{plural(len(problems.gaps), 'gap')} in the file"] if problems.gaps else []) + (
            [f"{plural(len(problems.notes), 'note')} on what this view cannot show"]
            if problems.notes else [])
        st.warning(f"Recording: {' and '.join(said)}.", icon=":material/warning:")
        st.text("\n".join(f"• {message}" for message in problems.gaps + problems.notes))


def summary_figures(run: LoadedRun, summary: RunSummary) -> None:
    columns = st.columns(3)
    columns[0].metric("Model calls", summary.model_calls)
    failed = f" · {summary.failed_tool_calls} failed" if summary.failed_tool_calls else ""
    columns[1].metric("Tool calls", f"{summary.tool_calls}{failed}")
    columns[2].metric("Duration", format_duration(summary))
    columns = st.columns(3)
    columns[0].metric("Tokens in", format_count(summary.tokens_in))
    columns[1].metric("Tokens out", format_count(summary.tokens_out))
    nested = run.views("lens").projection.nested_skill_graphs
    procedures = [p.skill for p in skill_procedures(run.evidence, run.facts.run_ids)]
    columns[2].metric("Skills visited", skills_visited_text(summary.skills_visited, nested,
                                                            procedures),
                      help="Skills the skill-graph route moved through (Why this skill? tab).")
    if summary.skills_visited:
        st.text("Route: " + " → ".join(summary.skills_visited))


def profile_switch(run: LoadedRun) -> str:
    """Lens or reference projection, each labelled with its step count at the
    root once it is built. Only the profile on screen is built: the other is
    built when chosen, so a page that never shows it never pays for it."""
    current = session.current_profile()
    # Through the run's cache: a profile not built yet is built under its spinner.
    run.views(current)
    counts = run.built_step_counts()
    if st.session_state.get(PROFILE_WIDGET) != current:
        st.session_state[PROFILE_WIDGET] = current
    # Pills, not a segmented control: the two labels do not fit the sidebar on one
    # row, and a segmented control wrapped onto two rows looks broken.
    st.pills(
        "Projection",
        options=list(PROFILES),
        format_func=lambda p: profile_label(p, counts.get(p)),
        key=PROFILE_WIDGET,
        required=True,
        on_change=_profile_changed,
        help="  \n".join([*(PROFILE_HELP.get(p, p) for p in PROFILES), UNBUILT_HELP]),
    )
    return session.current_profile()


def profile_label(profile: str, steps: int | None) -> str:
    """A pill's label: the profile and its root step count, or the profile
    alone when it has not been built (counting its steps would build it)."""
    return profile if steps is None else f"{profile} · {plural(steps, 'step')}"


def _profile_changed() -> None:
    chosen = st.session_state.get(PROFILE_WIDGET)
    if chosen in PROFILES:
        session.choose_profile(chosen)
    else:
        # The control was re-created (its labels carry the new run's step
        # counts) and reported no choice: keep the profile that is shown.
        st.session_state[PROFILE_WIDGET] = session.current_profile()

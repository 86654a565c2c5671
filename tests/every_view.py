"""Open a file and build everything the app shows of it, short of Streamlit.

:func:`show_everywhere` is the run page (run bar and details, every step of
every scope in both profiles: caption, headline, detail, diagram and served
context; likely causes, backtrack, search, timeline, route), the raw events
page (both tables as the Arrow bytes ``st.dataframe`` sends, and the step of
every event), the Compare page against another run, and the archive's rows.
A test calls it to show that a file opens and is shown without a traceback;
what each view says is tested where the view is.
"""

from __future__ import annotations

from streamlit.dataframe_util import convert_pandas_df_to_arrow_bytes

from archive.rows import run_rows
from lens.compare.comparison import compare_runs
from lens.compare.report import comparison_text, comparison_to_wire
from lens.event_places import BOUNDARY, TYPED, EventPlaces
from lens.event_tables import boundary_table, typed_table
from lens.evidence.backtrack import backtrack
from lens.evidence.causes import likely_causes
from lens.evidence.search import search
from lens.evidence.served import served_context, served_context_for_step
from lens.figures import route_figure
from lens.route_view import hop_rows
from lens.run import PROFILES, OpenRun, open_run
from lens.run_label import upload_label
from lens.scopes import ROOT
from lens.step_view import step_view
from lens.summary import run_facts, summarise, timing_notes
from lens.timeline import build_timeline
from lens.timeline_figure import timeline_figure

_DIGEST = "0" * 64


def show_everywhere(data: bytes, other: OpenRun | None = None) -> OpenRun:
    """Open ``data`` and build every view of it; ``other`` is compared with it
    (the run itself when None). Returns the open run."""
    run = open_run(data)
    recording, evidence = run.recording, run.evidence
    upload_label("recording.json", run, _DIGEST, 0.0)
    for _, value in run_facts(recording, evidence):
        assert isinstance(value, str)
    timing_notes(evidence, recording.run_info)
    for profile in PROFILES:
        _show_profile(run, profile)
    for call in evidence.calls:
        served_context(evidence, call.id)
        backtrack(evidence, call.id)
    backtrack(evidence)
    search(evidence, "a")
    timeline_figure(build_timeline(evidence)).to_json()
    for table in (typed_table(recording.typed_events), boundary_table(recording.boundary_events)):
        convert_pandas_df_to_arrow_bytes(table.frame)
    comparison = compare_runs(run, other or run)
    comparison_to_wire(comparison)
    comparison_text(comparison)
    run_rows(recording, "recording.json", len(data), _DIGEST)
    return run


def _show_profile(run: OpenRun, profile: str) -> None:
    recording, evidence = run.recording, run.evidence
    projection = run.projection(profile)
    route = projection.route
    summarise(evidence, route.get_path(), recording.run_info)
    hops, trips = route.get_hops(), route.get_trips()
    hop_rows(hops, trips)
    route_figure(hops, trips).to_json()
    likely_causes(evidence, run.step_map(profile, ROOT), hops=hops, trips=trips,
                  gaps=recording.gaps)
    for path in run.scopes(profile).paths():
        scope = run.scope(profile, path)
        if not scope.steps:
            continue
        diagram = run.diagram(profile, path)
        step_map = run.step_map(profile, path)
        for index in range(len(scope.steps)):
            view = step_view(run, profile, scope, index, diagram=diagram)
            assert isinstance(view.caption, str)
            view.headline, view.detail, view.chart  # noqa: B018 (built on first read)
            served_context_for_step(evidence, step_map, index)
    places = EventPlaces.for_run(run, profile)
    for position in range(len(recording.typed_events)):
        places.step_of(TYPED, position)
    for position in range(len(recording.boundary_events)):
        places.step_of(BOUNDARY, position)

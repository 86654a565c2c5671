"""The pure work the app does, call for call, without Streamlit.

:func:`open_run` is what ``lens_ui/runs.py`` and the page builds when a run
opens: the digest of the bytes, ``load_recording`` + the evidence index (the
``_parsed`` cache), per profile ``build_projection`` + ``ScopeIndex`` (the
``_projected`` cache; the header's projection switch counts both profiles'
root steps, so both are built on open), the root scope's arrow diagram (the
``_diagram`` cache), the header's facts and summary (route path included),
and the header's run id.

:func:`step_change` is what the slider fragment recomputes when the step
changes (``lens_ui/stepper.py`` ``run_view``/``_steps`` and
``lens_ui/step_panel.py``): the position and breadcrumb, the caption, the
arrow figure and what ``st.plotly_chart`` does to it (validate, serialise),
the step detail with its clipped texts, and the link; with the step detail's
expanders open, also the evidence table and JSON bodies and the
served-context model (``lens_ui/served_context.py``) on its first tab. Widget plumbing and protobuf are Streamlit's, measured only in the
browser benchmark. Keep this file in step with those modules by hand.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from time import perf_counter
from typing import Callable

from lens_ui import collector
from recorders.evidence import EvidenceIndex, StepMap, build_evidence_index, run_id
from recorders.loading import Recording, load_recording
from recorders.projections import PROFILES, Projection, build_projection
from lens.arrows import ArrowDiagram, build_arrow_diagram
from lens.scopes import ROOT, ScopeIndex, encode_path
from lens.step_places import StepPlaces
from lens.summary import run_facts, summarise

# Constants of the UI modules, repeated so this file imports no Streamlit page code.
FACT_CHARS = 160  # lens_ui/render.py
EVENT_PICKER_LIMIT = 400  # lens_ui/step_panel.py
MAX_CHILD_BUTTONS = 8  # lens_ui/stepper.py
PREVIEW_IN_LISTS = 400  # lens_ui/evidence_panel.py
PIECES_PER_PAGE = 10  # lens_ui/evidence_panel.py


@dataclass
class OpenedRun:
    digest: str
    recording: Recording
    evidence: EvidenceIndex
    projections: dict[str, Projection]
    scopes: dict[str, ScopeIndex]
    places: dict[str, StepPlaces]
    evidence_index: EvidenceIndex
    diagrams: dict[tuple[str, tuple[str, ...]], ArrowDiagram] = field(default_factory=dict)

    def diagram(self, profile: str, path: tuple[str, ...]) -> ArrowDiagram:
        """The per-scope diagram cache of ``lens_ui/runs.py``."""
        key = (profile, path)
        if key not in self.diagrams:
            scopes = self.scopes[profile]
            scope = scopes.get(path) or scopes.root()
            self.diagrams[key] = build_arrow_diagram(scope.steps, scope.path, scopes)
        return self.diagrams[key]


def open_run(data: bytes, profile: str = "lens", timings: dict | None = None) -> OpenedRun:
    """Everything the app builds when ``data`` is opened (see the module doc)."""
    clock = _Clock(timings)
    digest = clock("digest", lambda: hashlib.sha256(data).hexdigest())
    recording = clock("load", lambda: load_recording(data))
    index = evidence = clock("evidence_index", lambda: build_evidence_index(recording))
    clock("header", lambda: run_id(recording))
    clock("keep", lambda: collector.keep_built(recording.source_chars))
    projections: dict[str, Projection] = {}
    scopes: dict[str, ScopeIndex] = {}
    places: dict[str, StepPlaces] = {}
    for name in PROFILES:
        projections[name] = clock(f"project_{name}", lambda: build_projection(recording, name))
        scopes[name] = clock(f"scopes_{name}", lambda: ScopeIndex.build(
            projections[name], projections[name].steps.raw_steps()))
        places[name] = clock(f"scopes_{name}", lambda: StepPlaces(scopes[name]))
        clock("keep", lambda: collector.keep_built(recording.source_chars))
    run = OpenedRun(digest, recording, evidence, projections, scopes, places, index)
    clock("root_diagram", lambda: run.diagram(profile, ROOT))
    shown = projections[profile]
    clock("header", lambda: (run_facts(recording, evidence),
                             summarise(evidence, shown.route.get_path(), recording.run_info),
                             [gap.message for gap in recording.gaps] + list(shown.notes),
                             {p: len(scopes[p].root().steps) for p in PROFILES}))
    return run


class _Clock:
    def __init__(self, timings: dict | None) -> None:
        self.timings = timings

    def __call__(self, name: str, work: Callable):
        if self.timings is None:
            return work()
        start = perf_counter()
        value = work()
        self.timings[name] = self.timings.get(name, 0.0) + perf_counter() - start
        return value


# ─── a slider move ─────────────────────────────────────────────────────


def step_change(run: OpenedRun, profile: str, path: tuple[str, ...], index: int,
                timings: dict | None = None, opened: bool = False) -> int:
    """Recompute what one step change recomputes; returns bytes produced (a sink).

    The step detail's expanders (served context, evidence, wire form) are drawn
    only while open: ``opened`` times a move with all three open, the served
    context on its first tab."""
    import plotly.io
    import plotly.tools
    import pandas as pd
    from streamlit import dataframe_util

    from lens.actors import relative_to_scope
    from lens.figures import actor_figure
    from lens.link import link_params
    from lens.step_detail import describe_step, step_caption
    from lens.text import markdown_literal, one_line

    clock = _Clock(timings)
    out = 0

    def view_model() -> int:
        # run_view: the scope, the breadcrumb, the slider key, the caption, the link.
        scopes = run.scopes[profile]
        scope = scopes.get(path)
        crumbs = [markdown_literal(c[-1]) for c in scopes.breadcrumb(scope.path)]
        children = scope.children
        if len(children) <= MAX_CHILD_BUTTONS:
            crumbs += [markdown_literal(relative_to_scope("/".join(c[1:]), scope.path))
                       + str(len(scopes.get(c).steps)) for c in children]
        else:
            crumbs += [encode_path(c) for c in children]
        key = hashlib.sha1("\x1f".join((run.digest, profile, encode_path(scope.path)))
                           .encode()).hexdigest()[:12]
        caption = step_caption(scope.steps[index], index, len(scope.steps), run.evidence)
        link = link_params(run=None, step=index + 1, drill=encode_path(scope.path),
                           profile=profile)
        return len(caption) + len(key) + len(link) + sum(map(len, crumbs))

    def figure() -> int:
        # _steps: actor_figure, then st.plotly_chart's own validate + serialise.
        built = actor_figure(run.diagram(profile, path), index, title="")
        checked = plotly.tools.return_figure_from_figure_or_data(built, validate_figure=True)
        return len(plotly.io.to_json(checked, validate=False))

    def detail() -> int:
        # step_panel: describe_step, the facts text, clipped texts and tool values.
        scope = run.scopes[profile].get(path)
        step = scope.steps[index]
        described = describe_step(step, run.evidence)
        size = len("\n".join(f"{f.name}: {one_line(f.value, FACT_CHARS)}" for f in described.facts))
        values = [t.text for t in described.texts]
        for tool in described.tools_asked:
            values += [v for v in (tool.args, tool.result) if v is not None]
        for tool in described.tool_results:
            values += [v for v in (tool.result,) if v is not None]
        for part in values:
            size += len(part.text)
            if part.truncated:
                size += len(part.full.encode("utf-8"))  # the download button's data
        size += len("\n".join(described.branches))
        return size

    def expanders() -> int:
        # step_panel's evidence expander (table + one event) and wire form, open.
        step = run.scopes[profile].get(path).steps[index]
        refs = describe_step(step, run.evidence).events
        size = 0
        if refs:
            table = pd.DataFrame([(r.stream, r.index, r.type) for r in refs],
                                 columns=["stream", "#", "type"])
            size += len(dataframe_util.convert_pandas_df_to_arrow_bytes(table))
            shown = refs[:EVENT_PICKER_LIMIT]
            labels = [f"{r.stream} #{r.index} · {r.type}" for r in shown]
            ref = shown[0]
            events = (run.recording.boundary_events if ref.stream == "boundary"
                      else run.recording.typed_events)
            size += len(json.dumps(events[ref.index])) + len(labels)
        size += len(json.dumps(step.to_wire()))
        return size

    def served() -> int:
        # lens_ui/served_context.py: the evidence links of the scope (cached step
        # list and step map), the call at this position, and its served-context model.
        from lens.evidence.nav import nav_for_call
        from lens.evidence.served import piece_pages, served_context_for_step

        scoped = run.places[profile].for_scope(path)
        index_ = run.evidence_index
        step_map = StepMap(index_, scoped.steps)
        if not index_.calls:
            return 0
        call_id, exact = step_map.call_at(index, nearest=False)
        if call_id is None and profile == "lens":
            earlier, _ = step_map.call_at(index, nearest=True)
            return 0 if earlier is None else len(str(nav_for_call(index_, step_map, earlier)))
        model, _ = served_context_for_step(index_, step_map, index)
        if model is None:
            return 0
        # The facts text, and the first tab: the slot's table and a page of pieces.
        size = len("\n".join(f"{label}: {value}" for label, value in model.facts))
        panel = model.slots[0] if model.slots else None
        if panel is not None and panel.rows:
            table = pd.DataFrame([{"content": r.content.text[:PREVIEW_IN_LISTS] if r.content
                                   else "", "provenance": r.provenance} for r in panel.rows])
            size += len(dataframe_util.convert_pandas_df_to_arrow_bytes(table))
            pages, first = piece_pages(panel.rows, PIECES_PER_PAGE)
            size += sum(len(panel.rows[n].content.text) for n in pages[first]
                        if panel.rows[n].content)
        return size

    out += clock("view_model", view_model)
    out += clock("figure", figure)
    out += clock("step_detail", detail)
    if opened:
        out += clock("expanders", expanders)
        out += clock("served_context", served)
    return out

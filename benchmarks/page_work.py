"""The work a page does, driven through the library the app itself calls.

:func:`open_for_page` is an open as the run page needs it: ``lens.run.open_run``
(load and evidence index), each profile's views (the projection switch counts
both profiles' steps) and the root scope's diagram. :func:`step_change` is a
slider move: :func:`lens.step_view.step_view`, the very function the app's
slider region draws from, plus what ``st.plotly_chart`` does with the figure
(validate and serialise it). Drawing the rest is Streamlit's, measured end to
end by the browser benchmark. Nothing here repeats the app's code: when the
page changes what it computes per step, it changes ``lens.step_view``, and
this measures the change.
"""

from __future__ import annotations

from time import perf_counter
from typing import Callable

import plotly.io
import plotly.tools

from lens.arrows import ArrowDiagram
from lens.run import PROFILES, OpenRun, open_run
from lens.scopes import ROOT
from lens.step_view import StepView, step_view


def open_for_page(data: bytes, profile: str = "lens",
                  timings: dict[str, float] | None = None) -> OpenRun:
    """Open ``data`` and build what the run page shows first (see the module doc)."""
    clock = _Clock(timings)
    run = open_run(data, timings)
    for name in PROFILES:
        clock(f"views_{name}", lambda: run.views(name))
    clock("root_diagram", lambda: run.diagram(profile, ROOT))
    return run


def step_change(run: OpenRun, profile: str, path: tuple[str, ...], index: int,
                diagram: ArrowDiagram, timings: dict[str, float] | None = None) -> int:
    """One slider move to step ``index`` of scope ``path``, whose ``diagram`` the
    caller keeps (as the app keeps one per scope); returns the figure's JSON size
    (a sink, so nothing is optimised away)."""
    clock = _Clock(timings)
    scope = run.scope(profile, path)
    view = clock("step_view", lambda: _built(step_view(run, profile, scope, index, diagram=diagram)))

    def plotly_chart() -> int:
        checked = plotly.tools.return_figure_from_figure_or_data(view.figure, validate_figure=True)
        return len(plotly.io.to_json(checked, validate=False))

    return clock("figure_to_browser", plotly_chart) + len(view.caption) + len(view.headline.text)


def _built(view: StepView) -> StepView:
    """Every part of ``view`` built (a view builds each part when first read)."""
    for part in (view.caption, view.headline, view.detail, view.figure):
        assert part is not None
    return view


class _Clock:
    def __init__(self, timings: dict[str, float] | None) -> None:
        self.timings = timings

    def __call__(self, name: str, work: Callable):
        if self.timings is None:
            return work()
        start = perf_counter()
        value = work()
        self.timings[name] = self.timings.get(name, 0.0) + perf_counter() - start
        return value

"""The work a page does, driven through the library the app itself calls.

:func:`open_for_page` is an open as the run page needs it: ``lens.run.open_run``
(load and evidence index), each profile's views (the projection switch counts
both profiles' steps) and the root scope's diagram. :func:`step_change` is a
slider move: :func:`lens.step_view.step_view`, the very function the app's
slider region draws from, then the step's diagram drawn by the page's own
``lens_ui.stepper.draw_diagram`` (:func:`draw_chart`). Its ``st.vega_lite_chart`` is
Streamlit's own, run in bare mode (no session): it copies the spec, turns the
rows into Arrow bytes (``streamlit.dataframe_util``), serialises the spec and
builds the element; only queueing the message for the session's websocket is
left out. Drawing is the browser's, measured end to end by the browser
benchmark. Nothing here repeats the app's code: when the page changes what it
computes per step, it changes ``lens.step_view``, and this measures the change.
"""

from __future__ import annotations

import logging
from time import perf_counter
from typing import Callable

import streamlit
import streamlit.runtime

from lens.arrows import ArrowDiagram
from lens.diagram_chart import DiagramChart
from lens.run import PROFILES, OpenRun, open_run
from lens.scopes import ROOT
from lens.step_view import step_view
from lens_ui.stepper import draw_diagram


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
    caller keeps (as the app keeps one per scope); returns the chart's row count
    plus the label's and headline's lengths (a sink, so nothing is optimised away).

    Timed parts: ``step_view`` (label, headline, detail), ``chart_rows`` (the
    diagram's rows for this step) and ``chart_to_browser`` (:func:`draw_chart`)."""
    clock = _Clock(timings)
    view = step_view(run, profile, run.scope(profile, path), index, diagram=diagram)
    clock("step_view", lambda: (view.caption, view.headline, view.detail))
    chart = clock("chart_rows", lambda: view.chart)
    clock("chart_to_browser", lambda: draw_chart(chart))
    return len(chart.rows) + len(view.caption) + len(view.headline.text)


def draw_chart(chart: DiagramChart) -> None:
    """What the server does with a step's chart: the page's own call
    (``lens_ui.stepper.draw_diagram``), run outside a session (see the module doc)."""
    draw_diagram(chart, key="diagram")


def _quiet_bare_mode() -> None:
    """Outside a server Streamlit logs a warning on every call (and a hint to
    use ``streamlit run`` once); neither is work the app does."""
    streamlit.config.set_option("global.showWarningOnDirectExecution", False)
    # After set_option, which sets every Streamlit logger's level again.
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(
        logging.ERROR)


if not streamlit.runtime.exists():  # a benchmark app run by a server keeps its settings
    _quiet_bare_mode()


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

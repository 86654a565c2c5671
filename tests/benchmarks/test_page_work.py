"""The benchmarks' page work drives the library the app calls, on a real recording."""

from __future__ import annotations

import inspect

from streamlit import dataframe_util

import lens_ui.stepper
from benchmarks.page_work import draw_chart, open_for_page, step_change
from corpus_files import read_bytes, recording_path
from lens.diagram_chart import actor_chart
from lens.scopes import ROOT


def test_open_and_every_step_of_a_small_run():
    timings: dict = {}
    run = open_for_page(read_bytes(recording_path("agent-refund-multi-tools-error")), timings=timings)
    assert {"load", "evidence", "views_lens", "views_reference", "root_diagram"} <= set(timings)
    for profile in ("lens", "reference"):
        parts: dict = {}
        diagram = run.diagram(profile, ROOT)
        for index in range(len(run.root_steps(profile))):
            assert step_change(run, profile, ROOT, index, diagram, parts) > 0
        assert set(parts) == {"step_view", "chart_rows", "chart_to_browser"}


def test_drawing_the_chart_turns_its_rows_into_arrow_bytes(monkeypatch):
    """The timed draw runs Streamlit's own marshalling: the step's rows become
    Arrow bytes inside it, so that cost is in the slider's figure."""
    run = open_for_page(read_bytes(recording_path("agent-refund-multi-tools-error")))
    chart = actor_chart(run.diagram("lens", ROOT), 1)
    converted: list = []
    real = dataframe_util.convert_anything_to_arrow_bytes

    def spy(data, *args, **kwargs):
        converted.append(data)
        return real(data, *args, **kwargs)

    monkeypatch.setattr(dataframe_util, "convert_anything_to_arrow_bytes", spy)
    draw_chart(chart)
    [table] = converted
    assert table.to_pylist() == chart.rows


def test_the_slider_region_draws_what_the_step_view_builds():
    """lens_ui/stepper.py takes a step's caption, headline, detail and chart from
    lens.step_view, so the slider benchmark times what the page computes."""
    assert "step_view(" in inspect.getsource(lens_ui.stepper._steps)

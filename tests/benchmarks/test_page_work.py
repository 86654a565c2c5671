"""The benchmarks' page work drives the library the app calls, on a real recording."""

from __future__ import annotations

from benchmarks.page_work import open_for_page, step_change
from corpus_files import read_bytes, recording_path
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
        assert set(parts) == {"step_view", "figure_to_browser"}


def test_the_slider_region_draws_what_the_step_view_builds():
    """lens_ui/stepper.py takes a step's caption, headline, detail and figure from
    lens.step_view, so the slider benchmark times what the page computes."""
    import inspect

    import lens_ui.stepper

    assert "step_view(" in inspect.getsource(lens_ui.stepper._steps)

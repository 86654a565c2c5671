"""A step's view builds each part when it is first read (lens/step_view.py):
the page sends the label before the heavier parts are built."""

from __future__ import annotations

import pytest

from corpus_files import read_bytes, recording_path
from lens.diagram_chart import actor_chart
from lens.run import open_run
from lens.scopes import ROOT
from lens.step_view import step_view


class _DiagramThatMustNotBeDrawn:
    """A stand-in scope diagram: any use of it fails the test."""

    def __getattr__(self, name):
        raise AssertionError(f"the diagram was used ({name}) before the chart was read")

    def __len__(self):
        raise AssertionError("the diagram was used before the chart was read")


@pytest.fixture(scope="module")
def run():
    return open_run(read_bytes(recording_path("agent-refund-multi-tools-error")))


def test_the_label_is_read_without_building_the_chart(run):
    scope = run.scope("lens", ROOT)
    view = step_view(run, "lens", scope, 1, diagram=_DiagramThatMustNotBeDrawn())
    assert view.caption.startswith(f"step 2 of {len(scope.steps)} · ")
    assert view.headline.text
    assert view.detail.heading


def test_each_part_is_built_once_and_kept(run):
    scope = run.scope("lens", ROOT)
    view = step_view(run, "lens", scope, 0)
    assert view.chart is view.chart
    assert view.detail is view.detail


def test_build_rest_leaves_a_failing_part_to_fail_where_it_is_read(run):
    scope = run.scope("lens", ROOT)
    view = step_view(run, "lens", scope, 0, diagram=_DiagramThatMustNotBeDrawn())
    view.build_rest()  # the chart fails; the headline and the detail are built
    assert view.headline.text and view.detail.heading
    with pytest.raises(AssertionError, match="diagram was used"):
        view.chart


def test_the_chart_is_the_scopes_diagram_at_this_step(run):
    scope = run.scope("lens", ROOT)
    diagram = run.diagram("lens", ROOT)
    charts = [step_view(run, "lens", scope, index).chart for index in range(2)]
    assert [chart.rows for chart in charts] == [actor_chart(diagram, i).rows for i in range(2)]
    assert charts[0].rows != charts[1].rows

"""A step's view builds each part when it is first read (lens/step_view.py):
the page sends the label before the heavier parts are built."""

from __future__ import annotations

import pytest

from corpus_files import read_bytes, recording_path
from lens.run import open_run
from lens.scopes import ROOT
from lens.step_view import step_view


class _DiagramThatMustNotBeDrawn:
    """A stand-in scope diagram: any use of it fails the test."""

    def __getattr__(self, name):
        raise AssertionError(f"the diagram was used ({name}) before the figure was read")

    def __len__(self):
        raise AssertionError("the diagram was used before the figure was read")


@pytest.fixture(scope="module")
def run():
    return open_run(read_bytes(recording_path("agent-refund-multi-tools-error")))


def test_the_label_is_read_without_building_the_figure(run):
    scope = run.scope("lens", ROOT)
    view = step_view(run, "lens", scope, 1, diagram=_DiagramThatMustNotBeDrawn())
    assert view.caption.startswith(f"step 2 of {len(scope.steps)} · ")
    assert view.headline.text
    assert view.detail.heading


def test_each_part_is_built_once_and_kept(run):
    scope = run.scope("lens", ROOT)
    view = step_view(run, "lens", scope, 0)
    assert view.figure is view.figure
    assert view.detail is view.detail


def test_build_rest_leaves_a_failing_part_to_fail_where_it_is_read(run):
    scope = run.scope("lens", ROOT)
    view = step_view(run, "lens", scope, 0, diagram=_DiagramThatMustNotBeDrawn())
    view.build_rest()  # the figure fails; the headline and the detail are built
    assert view.headline.text and view.detail.heading
    with pytest.raises(AssertionError, match="diagram was used"):
        view.figure

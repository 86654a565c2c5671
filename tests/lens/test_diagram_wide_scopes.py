"""A scope with more actors than a diagram can show (a fork of thousands of
branches) draws at most MAX_DRAWN_ACTORS nodes: the step's own actors first,
and one "+N more" node for the rest, with their arrows drawn to it. Before,
every branch was laid out, at a cost that grew with the square of their
number (a 4,000-branch fork took 48 s a page run)."""

from __future__ import annotations

import copy
import json

from corpus_files import read_bytes, recording_path
from diagram_geometry import every_step_chart

from lens.diagram_chart import MAX_DRAWN_ACTORS
from lens.run import open_run

EXTRA_BRANCHES = 300


def _wide_fork() -> bytes:
    """parallel-3-reviewers whose fork lists EXTRA_BRANCHES more branches."""
    document = json.loads(read_bytes(recording_path("parallel-3-reviewers")))
    log = next(r for r in document["snapshot"]["recorders"] if r["name"] == "BoundaryEvents")["data"]
    at = next(i for i, e in enumerate(log) if e["type"] == "fork.branch")
    extra = []
    for k in range(EXTRA_BRANCHES):
        branch = copy.deepcopy(log[at])
        branch["childName"] = f"extra-{k}"
        extra.append(branch)
    log[at + 1:at + 1] = extra
    return json.dumps(document).encode()


def test_a_wide_fork_is_drawn_with_its_step_first_and_one_node_for_the_rest():
    charts = list(every_step_chart(open_run(_wide_fork())))
    assert charts
    capped = 0
    for where, diagram, chart in charts:
        nodes = chart.of_kind("node")
        assert len(nodes) <= MAX_DRAWN_ACTORS, where
        if len(diagram.actors) > MAX_DRAWN_ACTORS:
            capped += 1
            [more] = [n for n in nodes if n["text"].startswith("+")]
            hidden = len(diagram.actors) - (MAX_DRAWN_ACTORS - 1)
            assert more["text"] == f"+{hidden:,} more", where
            assert f"{hidden:,} actors not drawn" in more["hover0"], where
    assert capped, "the fork's scope has more actors than are drawn"


def test_a_scope_within_the_limit_is_drawn_whole():
    run = open_run(read_bytes(recording_path("parallel-3-reviewers")))
    for where, diagram, chart in every_step_chart(run):
        assert len(chart.of_kind("node")) == len(diagram.actors) + len(diagram.options), where
        assert not [n for n in chart.of_kind("node") if n["text"].startswith("+")], where

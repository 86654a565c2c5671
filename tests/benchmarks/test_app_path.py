"""The benchmark's mirror of the app's pure work runs on a real recording.

``benchmarks/app_path.py`` repeats, call for call, what the app builds on open
and recomputes on a slider move; this keeps it from rotting as the app moves.
"""

from __future__ import annotations

from benchmarks.app_path import open_run, step_change
from corpus_files import read_bytes, recording_path
from lens.scopes import ROOT


def test_open_and_every_step_of_a_small_run():
    timings: dict = {}
    run = open_run(read_bytes(recording_path("agent-refund-multi-tools-error")), timings=timings)
    assert {"load", "project_lens", "project_reference", "evidence_index"} <= set(timings)
    for profile in ("lens", "reference"):
        steps = run.scopes[profile].root().steps
        parts: dict = {}
        for index in range(len(steps)):
            assert step_change(run, profile, ROOT, index, parts) > 0
        assert set(parts) == {"view_model", "figure", "step_detail"}
        for index in range(len(steps)):
            assert step_change(run, profile, ROOT, index, parts, opened=True) > 0
        assert set(parts) == {"view_model", "figure", "step_detail", "expanders", "served_context"}

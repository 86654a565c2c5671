"""The reference projection equals the JS recorders' output on every corpus case.

Exact JSON equality with expected.json: root kind, raw steps, steps, every
drill path (tsMs included) for both replay variants, and the route replay.
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from corpus_files import case_names, load_expected, recording_path
from recorders.loading import Recording, load_path
from recorders.reference import reference_route, reference_run_steps

CASES = case_names()
VARIANTS = {"replayCoalesced": False, "replayIngest": True}


@lru_cache(maxsize=None)
def _recording(case: str) -> Recording:
    return load_path(recording_path(case))


@lru_cache(maxsize=None)
def _expected(case: str) -> dict:
    return load_expected(case)


def test_the_corpus_is_complete():
    assert len(CASES) == 20


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("case", CASES)
def test_run_steps_equal_the_reference(case: str, variant: str):
    expected = _expected(case)["runSteps"][variant]
    recorder = reference_run_steps(_recording(case), per_event=VARIANTS[variant])

    assert recorder.root_kind == expected["rootKind"]
    assert recorder.is_leaf_root() == expected["isLeafRoot"]
    assert [s.to_wire() for s in recorder.raw_steps()] == expected["rawSteps"]
    assert [s.to_wire() for s in recorder.get_steps()] == expected["steps"]
    for drill in expected["drill"]:
        got = [s.to_wire() for s in recorder.get_steps(drill["path"])]
        assert got == drill["steps"], f"drill {'/'.join(drill['path'])}"


@pytest.mark.parametrize("case", CASES)
def test_every_drill_path_is_checked(case: str):
    expected = _expected(case)
    for variant in VARIANTS:
        paths = [d["path"] for d in expected["runSteps"][variant]["drill"]]
        assert sorted(paths) == sorted(expected["drillPaths"])


@pytest.mark.parametrize("case", CASES)
def test_route_equals_the_reference(case: str):
    expected = _expected(case)["route"]["replay"]
    assert reference_route(_recording(case)).to_wire() == expected


@pytest.mark.parametrize("case", CASES)
def test_loader_counts_match_the_reference(case: str):
    counts = _expected(case)["counts"]
    recording = _recording(case)
    assert len(recording.typed_events) == counts["typedEvents"]
    assert len(recording.boundary_events) == counts["boundaryEvents"]
    assert recording.typed_counts == counts["typedEventsByType"]
    assert recording.boundary_counts == counts["boundaryEventsByType"]
    assert recording.boundary_mode == counts["boundaryMode"]
    assert len(recording.typed_run_ids) == counts["distinctTypedRunIds"]
    assert (recording.structure is not None) == counts["structurePresent"]

"""The synthetic archive's runs must be runs a real archive could hold: the
archive benchmarks filter, sort and chart them as a team's year of runs."""

from __future__ import annotations

import json
import random

import pytest

from archive.rows import RUN, index_file
from archive_support import copy_archive
from benchmarks.synthetic_archive import synthetic_run, templates


def _run_row(name: str, data: bytes) -> dict:
    outcome = index_file(name, data)
    assert outcome.status == RUN, outcome.problem
    return outcome.tables["runs"][0]


def test_a_synthetic_run_lasts_as_long_as_its_template_when_its_end_is_read_from_the_log(tmp_path):
    shapes = [s for s in templates(copy_archive(tmp_path / "runs")) if "endedAt" not in s["run"]]
    assert shapes, "no sample run without endedAt: the root exit's time is never read here"
    rng = random.Random(3)
    for number, shape in enumerate(shapes):
        source = _run_row("template.json", json.dumps(shape).encode())
        _, run_id, data = synthetic_run(shape, number, rng)
        run = _run_row(f"{run_id}.json.gz", data)
        assert run["run_id"] == run_id
        assert run["duration_ms"] == pytest.approx(source["duration_ms"], abs=1), run_id
        assert run["started_at"] != source["started_at"]


def test_every_synthetic_run_ends_after_it_starts(tmp_path):
    shapes = templates(copy_archive(tmp_path / "runs"))
    rng = random.Random(5)
    for number, shape in enumerate(shapes):
        _, run_id, data = synthetic_run(shape, number, rng)
        run = _run_row(f"{run_id}.json.gz", data)
        assert 0 <= run["duration_ms"] <= 24 * 3600 * 1000, (run_id, run["duration_ms"])

"""The V8 anchor of measurement 1: measured where node is, named as missing where not."""

from __future__ import annotations

import json
import subprocess

import pytest

from benchmarks import bench_open, v8_anchor
from benchmarks.run import format_table


def test_without_node_the_row_says_it_was_skipped_and_why(monkeypatch):
    monkeypatch.setattr(v8_anchor.shutil, "which", lambda name: None)
    result = bench_open.measure_open_v8(1)
    assert result == {"skipped": v8_anchor.MISSING}
    table = format_table({"machine": {"nproc": 2, "cpu": "x", "python": "3", "load_average_at_start": []},
                          "results": {"v8": result}})
    assert "skipped" in table and "node is not installed" in table


@pytest.mark.skipif(v8_anchor.node_path() is None, reason="node is not installed")
def test_node_times_its_own_read_and_parse(tmp_path):
    path = tmp_path / "small.json"
    path.write_text(json.dumps({"events": list(range(1000))}))
    seconds = v8_anchor.v8_read_and_parse(path)
    assert 0 < seconds < 30
    path.write_text("{not json")
    with pytest.raises(subprocess.CalledProcessError):  # node refuses it: no time is made up
        v8_anchor.v8_read_and_parse(path)

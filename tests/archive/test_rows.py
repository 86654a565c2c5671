"""The per-file function on its own: bytes in, rows or a one-line reason out."""

from __future__ import annotations

import gzip
import json
import random

import pytest

from archive.rows import NOT_A_RUN, RUN, UNREADABLE, index_file, short_text
from archive.schema import RUN_TABLES
from recorders.evidence import usage_tokens
from archive_support import copy_archive, manifest


@pytest.fixture(scope="module")
def sample_files(tmp_path_factory):
    folder = copy_archive(tmp_path_factory.mktemp("rows") / "runs")
    return {entry["file"]: (folder / entry["file"]).read_bytes() for entry in manifest()["files"]}


def test_every_row_has_exactly_its_tables_columns(sample_files):
    file, data = next(iter(sample_files.items()))
    outcome = index_file(file, data)
    assert outcome.status == RUN
    for table in RUN_TABLES:
        for row in outcome.tables[table.name]:
            assert tuple(row) == table.column_names, table.name
            assert row["file"] == file


def test_gzipped_bytes_index_as_the_plain_file_does(sample_files):
    file, data = next(iter(sample_files.items()))
    plain, packed = index_file(file, data), index_file(file, gzip.compress(data))
    assert {k: v for k, v in plain.tables["runs"][0].items() if k not in ("size_bytes", "sha256")} \
        == {k: v for k, v in packed.tables["runs"][0].items() if k not in ("size_bytes", "sha256")}
    assert packed.tables["runs"][0]["size_bytes"] == len(gzip.compress(data))


@pytest.mark.parametrize("data", [b'{"name": "lens", "version": 1}', b'[]', b'"text"', b'42',
                                  b'[{"type": "Feature", "geometry": null}]'])
def test_well_formed_json_that_is_not_a_run_is_skipped_quietly(data):
    outcome = index_file("other.json", data)
    assert (outcome.status, outcome.problem, outcome.tables) == (NOT_A_RUN, None, {})


@pytest.mark.parametrize("data, words", [
    (b"", "empty"),
    (b'{"format": "agentfootprint.recording.v1", "recording": {"events": [', "truncated"),
    (b'{"format": "agentfootprint.recording.v9", "recording": {}}', "not supported"),
    (b"\x1f\x8b\x08\x00garbage", "gzip"),
    (b"\xff\xfe{}", "UTF-8"),
])
def test_a_file_that_looks_like_a_run_but_cannot_be_read_says_why(data, words):
    outcome = index_file("bad.json", data)
    assert outcome.status == UNREADABLE
    assert words in outcome.problem and "\n" not in outcome.problem


def test_a_crashed_run_has_an_error_and_no_final_answer(sample_files):
    crashed = [e for e in manifest()["files"] if e["complete"] is False]
    assert crashed, "the sample archive holds crashed runs"
    for entry in crashed:
        run = index_file(entry["file"], sample_files[entry["file"]]).tables["runs"][0]
        assert run["final_answer"] is None and run["error"], entry["file"]


@pytest.mark.parametrize("usage, expected", [
    ({"input": 12, "output": 3}, (12, 3)),
    ({"inputTokens": 5, "outputTokens": 7}, (5, 7)),
    ({"prompt_tokens": 9, "completion_tokens": 1}, (9, 1)),
    ({"input": True, "output": "3"}, (None, None)),
    (None, (None, None)),
    ("12", (None, None)),
])
def test_usage_tokens_reads_one_rule(usage, expected):
    assert usage_tokens(usage) == expected


def test_short_text_clips_long_values_and_renders_json():
    assert short_text("x" * 600).endswith("…") and len(short_text("x" * 600)) == 500
    assert short_text({"a": [1, "é"]}) == '{"a":[1,"é"]}'
    assert short_text(None) is None


def test_mangled_event_fields_never_raise(sample_files):
    """Payloads and metas of the wrong type, as a damaged or foreign file has
    them: the file is indexed or refused with a reason, never a traceback."""
    rng = random.Random(7)
    file, data = next(iter(sample_files.items()))
    document = json.loads(data)
    oddities = [None, "text", 7, [], {"usage": "many"}, {"compositionPath": "root"}, True]
    for _ in range(40):
        mangled = json.loads(json.dumps(document))
        for event in rng.sample(mangled["recording"]["events"], 12):
            event[rng.choice(["payload", "meta"])] = rng.choice(oddities)
        outcome = index_file(file, json.dumps(mangled).encode())
        assert outcome.status in (RUN, UNREADABLE)
        if outcome.status == UNREADABLE:
            assert outcome.problem and "\n" not in outcome.problem


def test_an_envelope_that_recorded_no_events_is_still_a_run(sample_files):
    """The sink wrote the run's envelope (id, agent, times, outcome) but no
    events: the run is listed, and its gaps say what is missing."""
    file, data = next(iter(sample_files.items()))
    document = json.loads(data)
    document["recording"] = {"events": [], "snapshot": None}
    outcome = index_file(file, json.dumps(document).encode())
    assert outcome.status == RUN
    [run] = outcome.tables["runs"]
    assert (run["run_id"], run["model_calls"]) == (document["run"]["runId"], 0)
    assert {g["code"] for g in outcome.tables["gaps"]} >= {"no-snapshot"}


@pytest.mark.parametrize("data", [b'{"events": []}', b'{"snapshot": null, "events": []}'])
def test_a_recording_object_with_no_events_is_listed_not_skipped(data):
    outcome = index_file("empty.json", data)
    assert outcome.status == UNREADABLE and "no events" in outcome.problem


def test_a_gzip_bomb_is_inflated_once_and_listed(monkeypatch):
    """Refused at the archive's limit (LENS_MAX_EXPANDED_MB), and not inflated a
    second time to see whether it looks like a run (that doubled the memory a
    bomb cost)."""
    import recorders.loading as loading

    calls = []
    real = loading._gunzip

    def counted(raw, limit=None):
        calls.append(limit)
        return real(raw, limit)
    monkeypatch.setattr(loading, "_gunzip", counted)
    monkeypatch.setenv("LENS_MAX_EXPANDED_MB", "1")
    bomb = gzip.compress(b'{"format": "agentfootprint.recording.v1", "pad": "'
                         + b" " * (8 * 1024**2) + b'"}')
    outcome = index_file("bomb.json.gz", bomb)
    assert outcome.status == UNREADABLE
    assert outcome.problem == ("it expands to more than 1 MiB, the limit "
                               "(LENS_MAX_EXPANDED_MB); not read")
    assert calls == [1024**2]


def test_a_file_whose_indexing_would_pass_the_memory_budget_is_not_expanded_past_it():
    """With a 16 MB budget, a file may expand to 4 MiB (16 / INDEXING_PER_BYTE):
    the budget binds before LENS_MAX_EXPANDED_MB, and the reason says so."""
    from archive.limits import INDEXING_PER_BYTE, FileLimits

    limits = FileLimits(max_expanded_bytes=200 * 1024**2, memory_budget_bytes=16 * 1024**2)
    assert limits.max_indexed_bytes == int(16 * 1024**2 / INDEXING_PER_BYTE)
    pad = b" " * (limits.max_indexed_bytes + 1)
    outcome = index_file("big.json.gz", gzip.compress(b'{"events": []' + pad + b"}"),
                         limits=limits)
    assert outcome.status == UNREADABLE
    assert "would need more than the memory budget (16 MB, LENS_MEMORY_BUDGET_MB)" \
        in outcome.problem


def test_gzip_inside_gzip_is_refused_not_expanded_twice():
    """Each layer was held to the limit on its own: 679 bytes expanded to 300 MB."""
    inner = gzip.compress(b'{"events": [' + b" " * (64 * 1024**2) + b"]}")
    outcome = index_file("nested.json.gz", gzip.compress(inner))
    assert outcome.status == UNREADABLE
    assert outcome.problem == "the file is gzip inside gzip; Lens undoes one layer"


def test_a_bare_boundary_list_of_a_real_run_is_still_a_run():
    from corpus_files import read_bytes, recording_path
    from recorders.loading import load_recording

    recording = load_recording(read_bytes(recording_path("agent-no-tools")))
    outcome = index_file("boundary.json", json.dumps(recording.boundary_events).encode())
    assert outcome.status == RUN

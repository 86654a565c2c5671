"""Values legal in JSON that no column of the index holds as recorded: a token
count past 64 bits, an iteration past 32, a duration past the largest float,
half of a UTF-16 surrogate pair in a text, a start time whose offset moves it
out of range. The run is indexed with what fits, each value that does not is
named in its gaps, and no such file keeps another out of the index."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

import archive.frames
from archive.embedded import index_folder
from archive.query import open_index
from archive.rows import RUN, UNREADABLE, UNSTORABLE_GAP, index_file
from archive.schema import TABLES
from archive.storable import FITTERS, fit_rows
from archive_support import copy_archive, manifest
from recorders.surrogates import GAP_CODE as SURROGATE_GAP

LONG_NUMBER = "1" + "0" * 400  # a JSON integer no float holds


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """A completed sample run with tool calls and usage: its file and document."""
    folder = copy_archive(tmp_path_factory.mktemp("unstorable") / "runs")
    entry = next(e for e in manifest()["files"] if e["toolCalls"] and e["complete"])
    return entry["file"], json.loads((folder / entry["file"]).read_bytes())


def _events(document: dict, kind: str) -> list[dict]:
    return [e["payload"] for e in document["recording"]["events"]
            if e["type"] == f"agentfootprint.stream.{kind}"]


def _with_raw(document: dict, place, raw: str) -> bytes:
    """The document as JSON with the value at ``place`` (a function that sets
    it) written as the raw JSON text ``raw``, which Python would not write."""
    copy = json.loads(json.dumps(document))
    place(copy, "@@raw@@")
    return json.dumps(copy).replace('"@@raw@@"', raw).encode()


def _set_first(kind: str, *keys: str):
    def place(document: dict, value) -> None:
        target = _events(document, kind)[0]
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
    return place


def _set_run(key: str):
    def place(document: dict, value) -> None:
        document["run"][key] = value
    return place


CASES = {
    "input tokens past 64 bits": (_set_first("llm_end", "usage", "input"), str(2**63),
                                  UNSTORABLE_GAP, ["runs.input_tokens",
                                                   "model_calls.input_tokens", "64-bit integer"]),
    "iteration past 32 bits": (_set_first("llm_start", "iteration"), str(2**31),
                               UNSTORABLE_GAP, ["model_calls.iteration", "32-bit integer"]),
    "duration past the largest float": (_set_first("llm_end", "durationMs"), LONG_NUMBER,
                                        UNSTORABLE_GAP,
                                        ["model_calls.duration_ms", "401-digit number"]),
    # The loader mends these (recorders/surrogates.py); its gap reaches the index.
    "half a surrogate pair in tool args": (_set_first("tool_start", "args"),
                                           '{"q": "caf\\ud83d"}', SURROGATE_GAP,
                                           ["1 text", "surrogate"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_value_no_column_holds_is_stored_as_it_can_be_and_named_in_the_gaps(sample, case):
    file, document = sample
    place, raw, code, words = CASES[case]
    outcome = index_file(file, _with_raw(document, place, raw))
    assert outcome.status == RUN
    notes = [g["message"] for g in outcome.tables["gaps"] if g["code"] == code]
    assert notes and all(any(w in note for note in notes) for w in words), notes
    assert outcome.tables["runs"][0]["gap_count"] == len(outcome.tables["gaps"])
    untouched = index_file(file, json.dumps(document).encode())
    assert not [g for g in untouched.tables["gaps"] if g["code"] == code]


def test_a_surrogate_becomes_the_replacement_character_and_whole_pairs_stay(sample):
    file, document = sample
    raw = '{"q": "caf\\ud83d", "ok": "\\ud83d\\ude00"}'
    outcome = index_file(file, _with_raw(document, _set_first("tool_start", "args"), raw))
    args = outcome.tables["tool_calls"][0]["args_text"]
    assert "caf\ufffd" in args and "\U0001F600" in args


def test_texts_past_the_loader_are_fitted_too():
    table = next(t for t in TABLES if t.name == "tool_calls")
    row = {c: None for c in table.column_names} | {"tool_name": "caf\ud83d"}
    [note] = fit_rows(table, [row])
    assert row["tool_name"] == "caf\ufffd" and "tool_calls.tool_name" in note


def test_a_start_time_moved_out_of_range_by_its_offset_falls_back_to_the_events(sample):
    file, document = sample
    raw = '"0001-01-01T00:00:00+01:00"'
    run = index_file(file, _with_raw(document, _set_run("startedAt"), raw)).tables["runs"][0]
    recorded = index_file(file, json.dumps(document).encode()).tables["runs"][0]
    assert isinstance(run["started_at"], datetime)
    assert abs((run["started_at"] - recorded["started_at"]).total_seconds()) < 60


def test_a_folder_with_such_files_indexes_every_run(sample, tmp_path):
    """Before, one such file rolled back its batch and every later pass."""
    folder = copy_archive(tmp_path / "runs")
    file, document = sample
    for index, (place, raw, _, _) in enumerate(CASES.values()):
        (folder / f"odd-{index}.json").write_bytes(_with_raw(document, place, raw))
    expected_runs = len(manifest()["files"]) + len(CASES)
    for _ in range(2):  # the first pass, and a pass over the unchanged folder
        report = index_folder(folder, tmp_path / "index.duckdb")
        assert (report.runs, report.unreadable) == (expected_runs, [])
    with open_index(tmp_path / "index.duckdb") as con:
        noted = con.execute("SELECT count(DISTINCT file) FROM gaps WHERE code IN (?, ?)",
                            [UNSTORABLE_GAP, SURROGATE_GAP]).fetchone()[0]
    assert noted == len(CASES)


def test_rows_the_database_still_refuses_cost_only_their_own_file(sample, tmp_path, monkeypatch):
    """The last line: should a value get past the fitting, the batch is written
    file by file and the refused file is listed as unreadable with the reason."""
    folder = copy_archive(tmp_path / "runs")
    file, document = sample
    (folder / "odd.json").write_bytes(
        _with_raw(document, _set_first("llm_end", "usage", "input"), str(2**70)))
    monkeypatch.setattr(archive.frames, "fit_rows", lambda table, rows: [])
    monkeypatch.setattr("archive.rows.fit_tables", lambda tables: [])
    report = index_folder(folder, tmp_path / "index.duckdb")
    assert report.runs == len(manifest()["files"])
    [refused] = report.unreadable
    assert refused["file"] == "odd.json"
    assert "could not store" in refused["problem"] and "\n" not in refused["problem"]


@pytest.mark.parametrize("value, fits", [
    (2**31 - 1, True), (-(2**31), True), (2**31, False), (-(2**31) - 1, False),
])
def test_integer_columns_hold_exactly_their_range(value, fits):
    table = next(t for t in TABLES if t.name == "model_calls")
    row = {c: None for c in table.column_names} | {"iteration": value}
    notes = fit_rows(table, [row])
    assert (row["iteration"] == value, not notes) == (fits, fits)


def test_every_column_type_of_the_schema_has_a_fitting():
    assert {c.sql_type for t in TABLES for c in t.columns} <= set(FITTERS)


def test_a_file_whose_rows_cannot_be_built_is_listed_with_a_reason(sample, monkeypatch):
    file, document = sample

    def broken(*_args, **_kwargs):
        raise ValueError("a shape nobody expected")
    monkeypatch.setattr("archive.rows.run_rows", broken)
    outcome = index_file(file, json.dumps(document).encode())
    assert outcome.status == UNREADABLE
    assert "a shape nobody expected" in outcome.problem and "\n" not in outcome.problem


def test_a_list_of_texts_keeps_its_nulls_and_mends_its_halves():
    table = next(t for t in TABLES if t.name == "runs")
    row = {c: None for c in table.column_names} | {"skills": ["triage", None, "caf\ud83d"]}
    [note] = fit_rows(table, [row])
    assert row["skills"] == ["triage", None, "caf\ufffd"] and "runs.skills" in note

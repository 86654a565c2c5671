"""The sample archive for the archive tests, and what its manifest says.

The runs are kept as the sink wrote them in ``tests/archive_sample/runs.tar.gz``
with the ground truth beside it (``_lens-manifest.json``, not part of the
archive). ``LENS_ARCHIVE_SAMPLE`` may name another such folder (run files plus
``_lens-manifest.json``) to check the same code against other archives.
"""

from __future__ import annotations

import json
import os
import shutil
import tarfile
from collections import Counter
from pathlib import Path
from typing import Any, Callable

SAMPLE = Path(__file__).resolve().parents[1] / "archive_sample"
MANIFEST_NAME = "_lens-manifest.json"

Select = Callable[[str], list[dict[str, Any]]]


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``footprint-lens ARGV`` in process: its exit status, stdout and stderr."""
    from lens_cli.main import main

    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def sample_source() -> Path:
    return Path(os.environ.get("LENS_ARCHIVE_SAMPLE") or SAMPLE)


def manifest() -> dict:
    return json.loads((sample_source() / MANIFEST_NAME).read_text("utf-8"))


def copy_archive(target: Path) -> Path:
    """A writable copy of the archive's run files (without the manifest) at ``target``."""
    source = sample_source()
    target.mkdir(parents=True, exist_ok=True)
    bundle = source / "runs.tar.gz"
    if bundle.exists():
        with tarfile.open(bundle) as tar:
            tar.extractall(target, filter="data")
    else:
        shutil.copytree(source, target, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(MANIFEST_NAME, "README.md"))
    for path in target.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


def expected_run(entry: dict) -> dict[str, Any]:
    """The ``runs`` columns the manifest states for one file."""
    expected = {
        "file": entry["file"], "run_id": entry["runId"], "agent": entry["agent"],
        "complete": entry["complete"], "lean": entry["lean"],
        "model_calls": entry["modelCalls"], "tool_calls": entry["toolCalls"],
        "failed_tool_calls": entry["failedToolCalls"],
        "input_tokens": entry["inputTokens"], "output_tokens": entry["outputTokens"],
        "final_answer": entry.get("finalAnswer"),
    }
    if "userMessage" in entry:
        expected["user_message"] = entry["userMessage"]
    if "sessionId" in entry:
        expected["session_id"] = entry["sessionId"]
    return expected


def unreadable_files(facts: dict) -> set[str]:
    listed = list(facts.get("unreadable") or [])
    return {item["file"] if isinstance(item, dict) else item for item in listed}


# ─── the assertions both engines must pass ─────────────────────────────


def assert_runs_match_manifest(select: Select, facts: dict) -> None:
    rows = {row["file"]: row for row in select("SELECT * FROM runs")}
    assert set(rows) == {entry["file"] for entry in facts["files"]}
    for entry in facts["files"]:
        row = rows[entry["file"]]
        expected = expected_run(entry)
        assert {key: row[key] for key in expected} == expected, entry["file"]
        # A crashed run says how it ended; a run that completed has no error.
        assert (row["error"] is not None) == ("error" in entry), entry["file"]
        assert row["size_bytes"] > 0 and len(row["sha256"]) == 64


def assert_tool_totals_match_manifest(select: Select, facts: dict) -> None:
    grouped = select("SELECT tool_name, count(*) AS n FROM tool_calls GROUP BY tool_name")
    assert {row["tool_name"]: row["n"] for row in grouped} == facts["totals"]["toolsByName"]
    failed = select("SELECT count(*) AS n FROM tool_calls WHERE error")[0]["n"]
    assert failed == facts["totals"]["failedToolCalls"]
    by_file = Counter()
    for row in select("SELECT file, tool_name FROM tool_calls"):
        by_file[(row["file"], row["tool_name"])] += 1
    for entry in facts["files"]:
        for tool, count in entry["toolsByName"].items():
            assert by_file[(entry["file"], tool)] == count, (entry["file"], tool)


def assert_model_calls_match_manifest(select: Select, facts: dict) -> None:
    rows = select("SELECT file, count(*) AS n, sum(input_tokens) AS tokens_in "
                  "FROM model_calls GROUP BY file")
    calls = {row["file"]: row for row in rows}
    for entry in facts["files"]:
        assert calls.get(entry["file"], {}).get("n", 0) == entry["modelCalls"]
        assert (calls.get(entry["file"], {}).get("tokens_in") or 0) == entry["inputTokens"]

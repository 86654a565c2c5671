"""A subflow id holding "/" is its own scope in both projections and in the CLI's
--drill, never the nested path its text also reads as."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recorders.cli import main
from recorders.loading import load_recording
from recorders.projections import build_projection

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "nested-sequence-with-parallel.json"
RENAMED, SLASHED = "step-summarise", "step-reviewers/style"  # the latter also reads as a nested path


def _files(tmp_path) -> tuple[Path, Path]:
    original = SAMPLE.read_bytes()
    assert RENAMED.encode() in original and b'"style"' in original
    slashed = tmp_path / "slashed.json"
    slashed.write_bytes(original.replace(RENAMED.encode(), SLASHED.encode()))
    return SAMPLE, slashed


def _shape(steps) -> list[tuple]:
    """What a step is, without the names that differ between the two files."""
    wire = [s.to_wire() if hasattr(s, "to_wire") else s for s in steps]
    return [(w.get("kind"), w.get("arrow", {}).get("kind") if isinstance(w.get("arrow"), dict)
             else None, len(w.get("tools") or ())) for w in wire]


def test_the_slashed_subflow_has_the_steps_of_the_subflow_it_renames(tmp_path):
    original, slashed = _files(tmp_path)
    before = build_projection(load_recording(original.read_bytes()), "lens")
    after = build_projection(load_recording(slashed.read_bytes()), "lens")
    own = after.get_steps(("__root__", SLASHED))
    assert own and _shape(own) == _shape(before.get_steps(("__root__", RENAMED)))
    nested = ("__root__", "step-reviewers", "style")
    assert _shape(after.get_steps(nested)) == _shape(before.get_steps(nested))
    assert _shape(after.get_steps()) == _shape(before.get_steps())


def test_the_reference_keeps_a_slashed_id_as_one_path_segment(tmp_path):
    # The reference recorder keys forks by subflow id, as the JS reference does,
    # and a nested subflow's id is its path joined with "/": there the two ids
    # are one and the same. Its paths, though, keep the id whole.
    _, slashed = _files(tmp_path)
    projection = build_projection(load_recording(slashed.read_bytes()), "reference")
    own = projection.get_steps(("__root__", SLASHED))
    assert own and all(tuple(s.anchor.subflow_path[:2]) == ("__root__", SLASHED) for s in own)
    nested = projection.get_steps(("__root__", "step-reviewers", "style"))
    assert nested and all(tuple(s.anchor.subflow_path[:3]) == ("__root__", "step-reviewers",
                                                                "style") for s in nested)


def _cli_steps(capsys, *argv: str) -> list[dict]:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)["steps"]


def test_cli_drill_reads_an_escaped_slash_as_part_of_one_id(tmp_path, capsys):
    profile = "lens"
    original, slashed = _files(tmp_path)
    renamed = _cli_steps(capsys, "steps", str(original), "--profile", profile,
                         "--drill", f"__root__/{RENAMED}")
    escaped = _cli_steps(capsys, "steps", str(slashed), "--profile", profile,
                         "--drill", "__root__/step-reviewers%2Fstyle")
    assert escaped and _shape(escaped) == _shape(renamed)
    nested_before = _cli_steps(capsys, "steps", str(original), "--profile", profile,
                               "--drill", "__root__/step-reviewers/style")
    nested_after = _cli_steps(capsys, "steps", str(slashed), "--profile", profile,
                              "--drill", "__root__/step-reviewers/style")
    assert _shape(nested_after) == _shape(nested_before)
    assert {tuple(s["anchor"]["subflowPath"][:2]) for s in escaped} == {("__root__", SLASHED)}
    assert {tuple(s["anchor"]["subflowPath"][:3]) for s in nested_after} == {
        ("__root__", "step-reviewers", "style")}


def test_cli_help_documents_the_escaping(capsys):
    with pytest.raises(SystemExit):
        main(["steps", "--help"])
    assert "%2F" in capsys.readouterr().out


def test_a_flow_event_deep_in_a_slashed_subflow_belongs_to_it():
    from recorders.lens_scopes import AGENT, SEQUENCE, ScopeTracker

    scopes = ScopeTracker()
    scopes.open_root("seed#0")
    outer, _ = scopes.open_child(("__root__", "pipeline"), "pipeline", SEQUENCE, None, "p#1")
    slashed, _ = scopes.open_child(("__root__", "pipeline", "team/style"), "pipeline/team/style",
                                   AGENT, None, "s#2")
    assert scopes.owner_of_stage("pipeline/team/style/call-llm#7") is slashed
    assert scopes.owner_of_stage("pipeline/team/style#3") is outer  # the subflow's own stage
    assert scopes.owner_of_stage("pipeline/team/other/x#8") is outer
    assert scopes.owner_of_stage("pipeline/teamwork/x#9") is outer  # ids match whole, not by prefix
    assert scopes.owner_of_stage("elsewhere/x#4") is scopes.root
    scopes.close("pipeline/team/style")
    assert scopes.owner_of_stage("pipeline/team/style/call-llm#7") is outer

"""``footprint-lens slice FILE [KEY]`` (lens_cli/slice_command.py), called directly:
JSON equal to the footprintjs reference, UTF-8 as it is, and status 2 with one
clear line for a file without a commit log or a key the log never writes."""

from __future__ import annotations

import argparse
import json

import pytest

from lineage_refs import ROOT, reference_of
from lens_cli import slice_command
from recorders.cli import UsageError
from recorders.lineage import NoCommitLog

LOOP = "sample_runs/loop-refine-4-iterations.json"
NESTED = "tests/data/families/hr-handbook-rag-outdated-policy/recording.json.gz"


def sliced(capsys, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    status = slice_command.slice_command([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("recording", [LOOP, "sample_runs/skillgraph-route-hops-envelope.json.gz",
                                       "tests/corpus/hostile-strings-agent/recording.json.gz"])
def test_every_key_prints_the_reference(capsys, recording):
    status, out, err = sliced(capsys, ROOT / recording)
    assert (status, err) == (0, "")
    assert json.loads(out) == reference_of(recording)


def test_output_is_utf8_not_ascii_escaped(capsys):
    recording = "tests/corpus/hostile-strings-agent/recording.json.gz"
    status, out, _ = sliced(capsys, ROOT / recording)
    assert status == 0
    assert any(ord(ch) > 127 for ch in out) and "\\u2014" not in out


def test_one_key_prints_that_key_alone(capsys):
    status, out, _ = sliced(capsys, ROOT / LOOP, "iteration")
    assert status == 0
    assert json.loads(out) == {"iteration": reference_of(LOOP)["iteration"]}


def test_a_nested_key_is_named_by_its_path(capsys):
    key = "retrievalEvidence_hr-handbook\u001fcandidates"
    status, out, _ = sliced(capsys, ROOT / NESTED, "retrievalEvidence_hr-handbook/candidates")
    assert status == 0
    assert json.loads(out) == {key: reference_of(NESTED)[key]}


def test_an_unknown_key_exits_2_naming_it(capsys):
    status, out, err = sliced(capsys, ROOT / LOOP, "no-such-key")
    assert (status, out) == (2, "")
    assert "'no-such-key'" in err and "current" in err and len(err.splitlines()) == 1


def test_a_file_without_a_commit_log_exits_2_with_one_line(capsys, tmp_path):
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"events": []}), "utf-8")
    status, out, err = sliced(capsys, bare)
    assert (status, out) == (2, "")
    assert "no snapshot" in err and len(err.splitlines()) == 1
    no_log = tmp_path / "no-log.json"
    no_log.write_text(json.dumps({"snapshot": {"sharedState": {}}, "events": []}), "utf-8")
    status, _, err = sliced(capsys, no_log)
    assert status == 2 and "no commitLog" in err


def test_run_returns_the_wire_and_raises_what_the_command_line_reports(tmp_path):
    args = argparse.Namespace(file=str(ROOT / LOOP), key="startMs")
    assert slice_command.run(args) == {"startMs": reference_of(LOOP)["startMs"]}
    with pytest.raises(UsageError):
        slice_command.run(argparse.Namespace(file=str(ROOT / LOOP), key="nope"))
    bare = tmp_path / "bare.json"
    bare.write_text("{\"events\": []}", "utf-8")
    with pytest.raises(NoCommitLog):
        slice_command.run(argparse.Namespace(file=str(bare), key=None))


def test_the_command_is_ready_to_register():
    parser = argparse.ArgumentParser()
    slice_command.add_arguments(parser)
    args = parser.parse_args(["run.json"])
    assert (args.file, args.key) == ("run.json", None)
    assert slice_command.NAME == "slice" and slice_command.HELP


def test_registered_in_footprint_lens_it_runs_as_a_subcommand(capsys):
    from lens_cli import main as cli

    assert any(command.name == slice_command.NAME for command in cli.COMMANDS)
    capsys.readouterr()
    assert cli.main(["slice", str(ROOT / LOOP), "current"]) == 0
    assert json.loads(capsys.readouterr().out) == {"current": reference_of(LOOP)["current"]}
    assert cli.main(["slice", str(ROOT / LOOP), "nope"]) == 2

"""``footprint-lens follow FILE [--idle-exit SECONDS]`` run as a user runs it: a
subprocess, with a writer appending while it follows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from follow_support import append, counts_of, expected_counts, sample, whole_lines
from lens_cli.main import main

PROJECT = Path(__file__).resolve().parents[2]


def _follow(*argv: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    command = [sys.executable, "-c", "import sys; from lens_cli.main import main; "
               "sys.exit(main(sys.argv[1:]))", "follow", *argv]
    return subprocess.Popen(command, cwd=PROJECT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _first_line(process: subprocess.Popen) -> dict:
    return json.loads(process.stdout.readline())


def test_prints_a_line_per_change_while_a_writer_appends_then_exits_when_idle(tmp_path):
    data = sample("agent-failing-tool.ndjson")
    lines = data.splitlines(keepends=True)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"")
    process = _follow(str(path), "--idle-exit", "1.5")
    assert _first_line(process)["status"] == "waiting"
    for at in range(0, len(lines), 8):  # batches, each a moment apart
        append(path, b"".join(lines[at:at + 8]))
        time.sleep(0.3)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0 and err == ""
    printed = [json.loads(line) for line in out.splitlines()]
    assert all(a != b for a, b in zip(printed, printed[1:]))  # only changes are printed
    # Every batch's count was printed on its way, and the last line is the file's.
    seen = {line["typedEvents"] for line in printed}
    assert {min(at + 8, len(lines)) for at in range(0, len(lines), 8)} <= seen
    last = printed[-1]
    assert counts_of(last) == expected_counts(whole_lines(data))
    assert last["status"] == "ended"
    assert last["newestCause"] == ("Tool get_weather failed after 1.20 s: "
                                   "“weather-api 503: upstream timeout for Oslo”")


def test_idle_exit_on_a_run_that_stopped_says_stopped_with_its_open_call(tmp_path):
    path = tmp_path / "events.ndjson"
    path.write_bytes(sample("agent-tool.mid-run.ndjson"))
    started = time.monotonic()
    process = _follow(str(path), "--idle-exit", "1")
    out, err = process.communicate(timeout=60)
    took = time.monotonic() - started
    assert process.returncode == 0 and err == ""
    last = json.loads(out.splitlines()[-1])
    assert last["status"] == "stopped-without-end"
    assert last["openCalls"] == ["tool get_weather (event 14)"]
    assert 1 <= took < 20


def test_garbage_appended_mid_stream_exits_2_naming_the_line(tmp_path):
    lines = sample("agent-failing-tool.ndjson").splitlines(keepends=True)
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:10]))
    process = _follow(str(path), "--idle-exit", "5")
    assert _first_line(process)["typedEvents"] == 10
    append(path, b"\x00\x01 not json\n" + b"".join(lines[10:]))
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert err.count("\n") == 1 and "line 11" in err and str(path) in err
    assert "Traceback" not in err


def test_bad_arguments_and_paths_exit_2_with_one_line(tmp_path, capsys):
    for argv in (["follow", str(tmp_path / "missing.ndjson")], ["follow", str(tmp_path)],
                 ["follow", str(tmp_path / "x"), "--idle-exit", "soon"],
                 ["follow", str(tmp_path / "x"), "--idle-exit", "-1"]):
        capsys.readouterr()
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's own refusal
            code = exc.code
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1, (argv, err)


def test_an_ended_stream_prints_once_and_exits(tmp_path, capsys):
    path = tmp_path / "events.ndjson"
    path.write_bytes(sample("parallel-agents.ndjson"))
    capsys.readouterr()
    assert main(["follow", str(path), "--idle-exit", "0"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(printed) == 1
    assert printed[0]["status"] == "ended"
    assert counts_of(printed[0]) == expected_counts(whole_lines(sample("parallel-agents.ndjson")))

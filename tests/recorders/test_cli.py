"""python -m recorders: JSON in the wire format, one clear line on bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from corpus_files import load_expected, recording_path
from recorders.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_steps_reference_equals_build_run_steps(capsys):
    case = "nested-sequence-with-parallel"
    code, out, _ = run(capsys, "steps", str(recording_path(case)), "--profile", "reference")
    expected = load_expected(case)["runSteps"]["replayCoalesced"]
    assert code == 0
    assert json.loads(out) == {"rootKind": expected["rootKind"], "steps": expected["steps"]}


def test_steps_drill_raw_and_per_event(capsys):
    case = "parallel-3-reviewers"
    path = str(recording_path(case))
    expected = load_expected(case)["runSteps"]
    drill = expected["replayCoalesced"]["drill"][0]
    _, out, _ = run(capsys, "steps", path, "--profile", "reference", "--drill", "/".join(drill["path"]))
    assert json.loads(out)["steps"] == drill["steps"]
    _, out, _ = run(capsys, "steps", path, "--profile", "reference", "--raw")
    assert json.loads(out)["steps"] == expected["replayCoalesced"]["rawSteps"]
    _, out, _ = run(capsys, "steps", path, "--profile", "reference", "--per-event")
    assert json.loads(out)["steps"] == expected["replayIngest"]["steps"]


def test_route_prints_path_hops_rejections_and_trips(capsys):
    case = "skillgraph-rejected-cap-then-model-pick"
    code, out, _ = run(capsys, "route", str(recording_path(case)), "--profile", "reference")
    assert code == 0 and json.loads(out) == load_expected(case)["route"]["replay"]


def test_info_reports_what_the_loader_found(capsys):
    case = "crash-provider-error-envelope"
    code, out, _ = run(capsys, "info", str(recording_path(case)))
    info = json.loads(out)
    counts = load_expected(case)["counts"]
    assert code == 0
    assert info["format"] == "agentfootprint.recording.v1"
    assert info["producer"] == {"agentfootprintVersion": "9.62.0", "footprintjsVersion": "9.24.0"}
    assert info["complete"] is False and info["lean"] is False
    assert info["typedEventsByType"] == counts["typedEventsByType"]
    assert info["boundaryEventsByType"] == counts["boundaryEventsByType"]
    assert info["typedRunIds"] == ["run-1795961517628-17"]
    assert "incomplete" in [g["code"] for g in info["gaps"]]


@pytest.mark.parametrize("content", [b"{", b"[1, 2", b"\"just text\"", b"\xff\xfe\x00",
                                     b'{"format": "agentfootprint.recording.v2"}'])
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, content):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    for command in ("steps", "route", "info"):
        code, out, err = run(capsys, command, str(bad))
        assert code == 2 and out == ""
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_missing_file_and_bad_usage_exit_2(capsys):
    code, _, err = run(capsys, "steps", "/no/such/file.json")
    assert code == 2 and "cannot read" in err
    code, _, err = run(capsys, "teleport")
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_module_entry_point_runs_as_a_program(tmp_path):
    bad = tmp_path / "truncated.json"
    bad.write_text('{"events": [')
    result = subprocess.run([sys.executable, "-m", "recorders", "info", str(bad)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "truncated" in result.stderr
    ok = subprocess.run([sys.executable, "-m", "recorders", "steps", "--profile", "reference",
                         str(recording_path("llmcall-single"))],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and json.loads(ok.stdout)["rootKind"] == "leaf"


def test_lens_is_the_default_profile(capsys):
    path = str(recording_path("agent-refund-multi-tools-error"))
    _, default, _ = run(capsys, "steps", path)
    _, lens, _ = run(capsys, "steps", path, "--profile", "lens")
    assert default == lens
    output = json.loads(default)
    assert output["rootKind"] == "agent"
    assert [s["label"] for s in output["steps"]][:3] == ["user→llm", "llm→tool", "tool→llm"]
    assert output["steps"][1]["meta"]["toolNames"] == ["lookup_order"]


def test_lens_drill_and_route(capsys):
    path = str(recording_path("conditional-routes-to-agent"))
    _, out, _ = run(capsys, "steps", path, "--drill", "__root__/billing")
    assert [s["label"] for s in json.loads(out)["steps"]] == ["user→llm", "llm→tool", "tool→llm", "llm→user"]
    _, out, _ = run(capsys, "route", str(recording_path("skillgraph-rejected-cap-then-model-pick")))
    assert json.loads(out)["path"] == ["triage", "inventory"]


def test_per_event_needs_the_reference_profile(capsys):
    code, out, err = run(capsys, "steps", str(recording_path("llmcall-single")), "--per-event")
    assert code == 2 and out == "" and "--profile reference" in err


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_or_a_device_is_refused_at_once_not_read(tmp_path):
    """A FIFO named like a run waited for a writer forever; /dev/zero was read
    until memory ran out. Each is now one line and status 2, at once."""
    import os

    fifo = tmp_path / "run.json"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/zero"):
        done = subprocess.run([sys.executable, "-m", "recorders", "info", str(path)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and "not a regular file" in done.stderr


def test_json_is_printed_in_utf8_whatever_the_locale(tmp_path):
    """`→` is printed as `→`, not `\\u2192`, even where Python's stdout would be
    ASCII; only what JSON must escape (control characters) is escaped."""
    import os
    import re

    case = recording_path("hostile-strings-agent")
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    done = subprocess.run([sys.executable, "-m", "recorders", "steps", str(case)],
                          capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode("utf-8")
    assert any(ord(c) > 127 for c in text)
    escaped = [int(code, 16) for code in re.findall(r"\\u([0-9a-fA-F]{4})", text)]
    assert all(code < 0x20 or 0xD800 <= code <= 0xDFFF for code in escaped), escaped
    assert json.loads(text)["steps"]  # whole, valid JSON


def test_a_lone_surrogate_is_written_as_its_json_escape(capsysbinary):
    from recorders.cli import write_json

    write_json({"label": "\ud800 → x"})
    out = capsysbinary.readouterr().out
    assert out.decode("utf-8") == '{\n  "label": "\\ud800 → x"\n}\n'
    assert json.loads(out) == {"label": "\ud800 → x"}


def test_steps_say_why_there_are_none_whatever_the_files_kind(capsys, tmp_path):
    """A recording without its BoundaryEvents recorder has no steps, as an event
    stream has none: either way the steps output says why (before, only kinds
    other than a recording, an envelope or a boundary list said it)."""
    document = json.loads(recording_path("agent-refund-multi-tools-error").read_bytes())
    inner = document.get("recording", document)
    inner["snapshot"]["recorders"] = []
    path = tmp_path / "no-boundary-log.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    code, out, _ = run(capsys, "steps", str(path))
    assert code == 0
    output = json.loads(out)
    assert output["steps"] == [] or all(not s for s in output["steps"])
    assert any("BoundaryEvents" in note for note in output.get("notes", [])), output

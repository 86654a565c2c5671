"""``footprint-lens causes FILE``: the likely causes as JSON, most likely first;
bad input is one line and status 2."""

from __future__ import annotations

import gzip
import json

import pytest

from corpus_files import recording_path
from family_files import family_recording
from lens_cli.main import main
from lens.run import OpenRun
from recorders import catalogue
from recorders.loading import load_path

KEYS = {"kind", "severity", "subject", "headline", "why", "events", "step"}


def causes(capsys, path) -> list[dict]:
    capsys.readouterr()
    assert main(["causes", str(path)]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("path", [family_recording("payments-permission-halt"),
                                  family_recording("returns-bot-canned-after-provider-outage"),
                                  recording_path("agent-refund-multi-tools-error")])
def test_each_cause_has_the_wire_shape_and_cites_real_events(capsys, path):
    found = causes(capsys, path)
    assert found
    events = load_path(str(path)).typed_events
    for cause in found:
        assert KEYS <= set(cause) <= KEYS | {"detail", "no_step"}
        assert (cause["step"] is None) == ("no_step" in cause)
        assert cause["severity"] in ("error", "warning")
        assert all(isinstance(i, int) and 0 <= i < len(events) for i in cause["events"])
        step = cause["step"]
        assert step is None or (step["path"][0] == "__root__" and step["index"] >= 0)
    severities = [cause["severity"] for cause in found]
    assert severities == sorted(severities, key=lambda s: s != "error")


def test_the_halt_is_a_cause_on_the_step_of_the_call_it_stopped(capsys):
    path = family_recording("payments-permission-halt")
    found = causes(capsys, path)
    events = load_path(str(path)).typed_events
    [halt] = [c for c in found
              if any(events[i]["type"] == catalogue.PERMISSION_HALT for i in c["events"])]
    payload = next(events[i]["payload"] for i in halt["events"])
    assert halt["severity"] == "error"
    assert payload["reason"] in halt["why"] and payload["target"] in halt["headline"]
    # The step the link names shows the model call the halted tool call came after.
    run = OpenRun(load_path(str(path)))
    steps = run.scope("lens", tuple(halt["step"]["path"])).steps
    assert steps[halt["step"]["index"]].runtime_stage_id.startswith("call-llm")


def test_a_run_with_nothing_wrong_has_no_causes(capsys):
    assert causes(capsys, recording_path("agent-no-tools")) == []


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"hello": "world"}',
                                     gzip.compress(b"[1, 2")[:-4]])
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, content):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    capsys.readouterr()
    assert main(["causes", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err


def test_a_missing_file_exits_2(capsys, tmp_path):
    assert main(["causes", str(tmp_path / "nope.json")]) == 2
    assert "nope.json" in capsys.readouterr().err

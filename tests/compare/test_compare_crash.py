"""Compare places a crash on the step of the model call it happened in.

Each crashed run is compared with the same real run where that call answered;
the first difference is the crash (``error.fatal``) against the call's end, and
both sides' steps must be that call's steps (before, the crash sat at step 0).
"""

from __future__ import annotations

import json

from compare_support import cli_json
from corpus_files import recording_path
from crash_recordings import (CRASH_CASE, SEQUENCE_CASE, agent_third_call_answered,
                              sequence_crashed_in_third_call, write)
from lens_cli.main import main
from recorders.catalogue import ERROR_FATAL, LLM_END, LLM_START


def _steps(capsys, path, *drill: str) -> list[dict]:
    capsys.readouterr()
    args = ["steps", str(path)] + (["--drill", "/".join(drill)] if drill else [])
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)["steps"]


def _third_call_stage(envelope: dict) -> str:
    starts = [e for e in envelope["recording"]["events"] if e["type"] == LLM_START]
    return starts[2]["meta"]["runtimeStageId"]


def _indices_at(steps: list[dict], stage: str) -> list[int]:
    return [i for i, step in enumerate(steps) if step["anchor"]["runtimeStageId"] == stage]


def test_an_agent_crashed_in_its_third_call_differs_on_that_calls_step(tmp_path, capsys):
    crashed = recording_path(CRASH_CASE)
    answered = write(agent_third_call_answered(), tmp_path / "answered.json")
    stage = _third_call_stage(agent_third_call_answered())
    start, = _indices_at(_steps(capsys, crashed), stage)
    answered_start, answered_end = _indices_at(_steps(capsys, answered), stage)

    got = cli_json(capsys, str(crashed), str(answered))["firstDifference"]
    assert (got["a"]["type"], got["b"]["type"]) == (ERROR_FATAL, LLM_END)
    assert got["a"]["step"] == {"path": ["__root__"], "index": start}
    assert got["b"]["step"] == {"path": ["__root__"], "index": answered_end}
    assert start == answered_start != 0


def test_a_sequence_crashed_in_its_third_call_differs_on_the_crashed_childs_steps(
        tmp_path, capsys):
    crashed = write(sequence_crashed_in_third_call(), tmp_path / "crashed.json")
    finished = recording_path(SEQUENCE_CASE)
    got = cli_json(capsys, str(crashed), str(finished))["firstDifference"]
    assert (got["a"]["type"], got["b"]["type"]) == (ERROR_FATAL, LLM_END)
    # step-draft, the third LLMCall, starts its call at step 0 and answers at step 1.
    assert got["a"]["step"] == {"path": ["__root__", "step-draft"], "index": 0}
    assert got["b"]["step"] == {"path": ["__root__", "step-draft"], "index": 1}


def test_the_text_report_names_the_crashed_calls_step(tmp_path, capsys):
    crashed = write(sequence_crashed_in_third_call(), tmp_path / "crashed.json")
    capsys.readouterr()
    assert main(["compare", str(crashed), str(recording_path(SEQUENCE_CASE)),
                 "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert f"A: event #18 {ERROR_FATAL} at (root) · step 1 of scope __root__/step-draft" in out


def test_the_steps_command_shows_the_crash_on_the_call_and_not_answers(tmp_path, capsys):
    crashed = write(sequence_crashed_in_third_call(), tmp_path / "crashed.json")
    root = _steps(capsys, crashed)
    assert [s["label"] for s in root] == ["asks", "forwards", "forwards", "crashed"]
    assert "503 Service Unavailable" in root[-1]["meta"]["error"]
    (draft,) = _steps(capsys, crashed, "__root__", "step-draft")
    assert draft["meta"]["crashed"] == "in this model call"

    agent = _steps(capsys, recording_path(CRASH_CASE))
    stage = _third_call_stage(agent_third_call_answered())
    marked = [i for i, step in enumerate(agent) if "crashed" in step.get("meta", {})]
    assert marked == _indices_at(agent, stage)
    assert "529 Overloaded" in agent[marked[0]]["meta"]["error"]

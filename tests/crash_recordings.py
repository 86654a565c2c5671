"""Crashed runs built from real recordings by the smallest edit that crashes them.

Two real runs crash in the corpus: ``crash-provider-error-envelope`` (an Agent
whose third model call fails with a provider 529) and the family case
``translation-desk-hub-outage-shadowed`` (an Agent that crashes while finding
its tools for the third call). No real Sequence crashes, so one is made here:

- :func:`sequence_crashed_in_third_call`: the real ``sequence-3-llmcalls``
  run cut right after its third model call (the third LLMCall, ``step-draft``)
  started, ended the way the real crash ends (a root ``run.exit`` whose
  payload is ``{"error": ...}``; the typed stream's ``error.fatal`` at the
  run's root stage, copied from the real crash, and ``complete: false``).
- :func:`agent_third_call_answered`: the real crashed Agent with its third call
  answering instead (``llm.end``/``stream.llm_end`` where the crash was, and a
  run that exits with that answer): the run the crash is compared against.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from corpus_files import load_json, recording_path
from recorders.catalogue import ERROR_FATAL, LLM_END, LLM_START
from recorders.loading import BOUNDARY_RECORDER_NAME

CRASH_CASE = "crash-provider-error-envelope"
SEQUENCE_CASE = "sequence-3-llmcalls-envelope"
SEQUENCE_ERROR = "The AI call failed: 503 Service Unavailable (mock-draft)"
THIRD_CALL_ANSWER = "Rounding now uses round2(amount * rate); one test still fails."


def _envelope(case: str) -> dict[str, Any]:
    return copy.deepcopy(load_json(recording_path(case)))


def _recording_of(envelope: dict[str, Any]) -> dict[str, Any]:
    return envelope["recording"]


def boundary_events(recording: dict[str, Any]) -> list[dict[str, Any]]:
    """The BoundaryEvents recorder's log inside a recording's snapshot."""
    (boundary,) = [r for r in recording["snapshot"]["recorders"]
                   if r.get("name") == BOUNDARY_RECORDER_NAME]
    return boundary["data"]


def _fatal_of_the_real_crash() -> dict[str, Any]:
    events = _recording_of(_envelope(CRASH_CASE))["events"]
    return next(e for e in events if e["type"] == ERROR_FATAL)


def sequence_crashed_in_third_call() -> dict[str, Any]:
    """The Sequence envelope, crashed in its third model call (see the module doc)."""
    envelope = _envelope(SEQUENCE_CASE)
    recording = _recording_of(envelope)
    log = boundary_events(recording)
    starts = [i for i, e in enumerate(log) if e["type"] == "llm.start"]
    third = starts[2]
    assert log[third]["subflowPath"][:2] == ["__root__", "step-draft"]
    run_exit = next(e for e in log if e["type"] == "run.exit")
    crashed_exit = {**run_exit, "ts": log[third]["ts"] + 10, "payload": {"error": SEQUENCE_ERROR}}
    del log[third + 1:]
    log.append(crashed_exit)

    typed = recording["events"]
    typed_starts = [i for i, e in enumerate(typed) if e["type"] == LLM_START]
    del typed[typed_starts[2] + 1:]
    fatal = _fatal_of_the_real_crash()
    last_meta = typed[-1]["meta"]
    typed.append({"type": ERROR_FATAL,
                  "payload": {**fatal["payload"], "error": SEQUENCE_ERROR},
                  "meta": {**fatal["meta"], "runId": last_meta["runId"],
                           "wallClockMs": last_meta["wallClockMs"] + 10}})
    envelope["run"]["complete"] = False
    envelope["run"].pop("endedAt", None)
    return envelope


def agent_third_call_answered() -> dict[str, Any]:
    """The crashed Agent envelope, with its third model call answering instead."""
    envelope = _envelope(CRASH_CASE)
    recording = _recording_of(envelope)
    log = boundary_events(recording)
    start = max(i for i, e in enumerate(log) if e["type"] == "llm.start")
    run_exit = log[-1]
    assert run_exit["type"] == "run.exit" and "error" in run_exit["payload"]
    end = {key: value for key, value in log[start].items()
           if key in ("runtimeStageId", "subflowPath", "depth", "commitIdxBefore",
                      "commitIdxAfter")}
    log[start + 1:] = [
        {"type": "llm.end", **end, "ts": log[start]["ts"] + 5, "toolCallCount": 0,
         "content": THIRD_CALL_ANSWER},
        {**run_exit, "payload": THIRD_CALL_ANSWER},
    ]
    typed = recording["events"]
    fatal_at = next(i for i, e in enumerate(typed) if e["type"] == ERROR_FATAL)
    started = typed[fatal_at - 1]
    assert started["type"] == LLM_START
    typed[fatal_at] = {"type": LLM_END,
                       "payload": {"iteration": started["payload"]["iteration"],
                                   "content": THIRD_CALL_ANSWER, "toolCallCount": 0,
                                   "stopReason": "end_turn", "durationMs": 5},
                       "meta": {**started["meta"],
                                "wallClockMs": started["meta"]["wallClockMs"] + 5}}
    envelope["run"]["complete"] = True
    return envelope


def write(envelope: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(envelope), "utf-8")
    return path

"""How a run ended: its final answer, or the error it crashed with.

Read from the recording, latest first: the boundary log's last ``run.exit``
(its payload is the run's output: a text, or an object with an ``error``);
failing that, the typed stream's last ``error.fatal``, then the last
``agent.turn_end`` ``finalContent``, then the last ``stream.llm_end``
``content``. A run with no exit and ``complete: false`` (or no exit at all)
did not finish.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recorders import boundary_names
from recorders.catalogue import AGENT_TURN_END, ERROR_FATAL, LLM_END
from recorders.loading import Recording

COMPLETE = "complete"
CRASHED = "crashed"
UNFINISHED = "unfinished"

_ANSWER_KEYS = ("finalContent", "content", "answer", "output")


@dataclass(frozen=True)
class RunEnding:
    status: str               # complete | crashed | unfinished
    answer: str | None        # recording text
    error: str | None         # recording text


def _text_of(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in _ANSWER_KEYS:
            if isinstance(value.get(key), str):
                return value[key]
    return None


def _last(events: list, wanted: str) -> dict | None:
    for event in reversed(events):
        if isinstance(event, dict) and event.get("type") == wanted:
            return event
    return None


def run_ending(recording: Recording) -> RunEnding:
    exit_event = _last(recording.boundary_events, boundary_names.RUN_EXIT)
    error: str | None = None
    answer: str | None = None
    if exit_event is not None:
        payload = exit_event.get("payload")
        if isinstance(payload, dict) and payload.get("error") is not None:
            error = _text_of(payload.get("error")) or repr(payload.get("error"))
        else:
            answer = _text_of(payload)
    typed = recording.typed_events
    if error is None:
        fatal = _last(typed, ERROR_FATAL)
        if fatal is not None:
            payload = fatal.get("payload")
            error = _text_of(payload.get("error") if isinstance(payload, dict) else payload) \
                or "error.fatal recorded without a message"
    if error is not None:
        return RunEnding(CRASHED, None, error)
    if answer is None:
        turn_end = _last(typed, AGENT_TURN_END)
        llm_end = _last(typed, LLM_END)
        answer = (_text_of((turn_end or {}).get("payload"))
                  or _text_of((llm_end or {}).get("payload")))
    finished = exit_event is not None or recording.complete is True
    if recording.complete is False:
        finished = False
    return RunEnding(COMPLETE if finished else UNFINISHED, answer, None)

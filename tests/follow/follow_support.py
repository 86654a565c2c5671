"""Samples and an independent count of what a stream's bytes hold, for the follow tests.

The expected counts are read straight from the lines (types and payloads),
never from the code under test.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "follow"

LLM_START = "agentfootprint.stream.llm_start"
TOOL_START = "agentfootprint.stream.tool_start"
TOOL_END = "agentfootprint.stream.tool_end"


def sample(name: str) -> bytes:
    return (DATA / name).read_bytes()


def whole_lines(data: bytes) -> list[dict]:
    """The events of the complete lines in ``data`` (a partial last line is not one)."""
    complete = data[: data.rfind(b"\n") + 1]
    return [json.loads(line) for line in complete.splitlines() if line.strip()]


def expected_counts(events: list[dict]) -> dict:
    return {
        "typedEvents": len(events),
        "modelCalls": sum(1 for e in events if e["type"] == LLM_START),
        "toolCalls": sum(1 for e in events if e["type"] == TOOL_START),
        "failedToolCalls": sum(1 for e in events if e["type"] == TOOL_END
                               and e["payload"].get("error") is True),
    }


def counts_of(summary: dict) -> dict:
    return {key: summary[key] for key in ("typedEvents", "modelCalls", "toolCalls",
                                          "failedToolCalls")}


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as out:
        out.write(data)


class Clock:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

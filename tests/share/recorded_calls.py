"""What a recording holds, read straight from its typed events (not through Lens):
the yardstick the OTLP export tests measure the export against.

Every model call opens with a ``stream.llm_start`` and every tool call with a
``stream.tool_start``; a failed tool call ends with a ``stream.tool_end``
whose ``error`` is true and whose ``result`` is the error text; a model call's
tokens are its ``stream.llm_end``'s ``usage`` (``input``/``output`` in 9.62).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from corpus_files import case_names, load_json, recording_path
from family_files import family_files

LLM_START = "agentfootprint.stream.llm_start"
LLM_END = "agentfootprint.stream.llm_end"
TOOL_START = "agentfootprint.stream.tool_start"
TOOL_END = "agentfootprint.stream.tool_end"


def every_recording() -> list[Path]:
    """Each corpus recording or envelope and each family file."""
    return [recording_path(case) for case in case_names()] + family_files()


def typed_events(path: Path) -> list[dict[str, Any]]:
    document = load_json(path)
    if isinstance(document, dict) and isinstance(document.get("recording"), dict):
        document = document["recording"]  # an envelope
    events = document.get("events", []) if isinstance(document, dict) else document
    return [e for e in events if isinstance(e, dict)
            and str(e.get("type", "")).startswith("agentfootprint.")]


def count(path: Path, event_type: str) -> int:
    return sum(1 for e in typed_events(path) if e["type"] == event_type)


def failed_tools(path: Path) -> dict[str, str]:
    """toolCallId → error text of every tool call that ended with an error."""
    failed = {}
    for event in typed_events(path):
        payload = event.get("payload") or {}
        if event["type"] == TOOL_END and payload.get("error") is True:
            result = payload.get("result")
            failed[payload.get("toolCallId")] = result if isinstance(result, str) \
                else json.dumps(result, ensure_ascii=False)
    return failed


def tokens(path: Path) -> tuple[int, int]:
    """(input, output) tokens summed over every ``stream.llm_end``'s ``usage``."""
    total_in = total_out = 0
    for event in typed_events(path):
        usage = (event.get("payload") or {}).get("usage") if event["type"] == LLM_END else None
        if isinstance(usage, dict):
            total_in += usage.get("input") or 0
            total_out += usage.get("output") or 0
    return total_in, total_out

"""Which kind of agentfootprint file a parsed JSON document is, by its shape.

The loader (``recorders/loading.py``) reads recordings, envelopes and boundary
lists; this module recognises the other files agentfootprint writes about a
run, from their keys alone (never a file name):

- a Trace from ``localObservability`` (``{version, events, structure,
  snapshot?, redaction, capturedAtMs}``): its ``events`` are the boundary log;
- an artifact-store entry from ``fileArtifacts`` (``{format: 1, meta, payload}``);
- a single typed event (an event stream of one line);
- files that are not runs (a checkpoint, an AgentThinkingUI trace, a bug
  report's manifest, transcript or host file), with the sentence that says
  what the file is and what to open instead;

and says what an event stream's typed events show of how far its run got.
"""

from __future__ import annotations

from typing import Any

from recorders.errors import RecordingError
from recorders.catalogue import (AGENT_TURN_END, AGENT_TURN_START, COMPOSITION_ENTER,
                                 COMPOSITION_EXIT, LLM_END, LLM_START, TOOL_END, TOOL_START)
from recorders.gaps import Gap

TRACE_VERSION = 1
ARTIFACT_FORMAT = 1
ARTIFACT_RECORDING_KIND = "recording/run"

_OPEN_A_RUN = "open the run's recording, envelope, event stream, Trace or bug report instead"
# Every kind of file about a run that Lens opens, for a refusal to name them all.
# No token longer than a narrow sidebar's line (the app shows it there): no format ids.
READ_KINDS = ("a recording {snapshot, events, structure}, its envelope (plain or packed), "
              "an event stream (.ndjson), a Trace, an artifact-store entry, an audit "
              "bundle, a bug report .zip or a list of boundary events")
_OPEN_THE_ZIP = ("open the bug report .zip itself (or the envelope.json or recording.json "
                 "inside it) instead")


class NotARun(RecordingError):
    """A file agentfootprint writes that is not a record of a run (a checkpoint,
    a thinking trace, a bug report's manifest); the message says what it is and
    what to open instead."""


def is_trace(document: dict) -> bool:
    """A ``Trace``: a version, the boundary events, and the trace's own stamps."""
    return ("version" in document and "events" in document
            and ("redaction" in document or "capturedAtMs" in document)
            and "recording" not in document)


def is_artifact(document: dict) -> bool:
    """An artifact store's envelope: a numeric format beside meta or payload."""
    fmt = document.get("format")
    return (isinstance(fmt, (int, float)) and not isinstance(fmt, bool)
            and ("meta" in document or "payload" in document))


def is_one_typed_event(document: dict) -> bool:
    """A lone ``{type, payload, meta}``: an event stream of one line."""
    return (isinstance(document.get("type"), str)
            and ("meta" in document or "payload" in document)
            and not {"events", "snapshot", "format", "recording"} & document.keys())


def not_a_run(document: Any) -> str | None:
    """The refusal for a file agentfootprint writes that is not a run, or None."""
    if not isinstance(document, dict):
        return None
    keys = document.keys()
    if "events" in keys or "snapshot" in keys or "recording" in keys:
        return None
    if "history" in keys and keys & {"lastCompletedIteration", "checkpointedAt",
                                     "originalInput"}:
        return ("this is an agent checkpoint (agent.checkpoint(): the conversation to "
                "continue a run from with run({ continueFrom })), not a record of a run; "
                f"{_OPEN_A_RUN}")
    if isinstance(document.get("steps"), list) and keys & {"asker", "task"} and "agent" in keys:
        return ("this is an AgentThinkingUI trace (agentThinkingTrace().getTrace(): the "
                "narrated beats the thinking UI shows), not a record of a run; "
                f"{_OPEN_A_RUN}")
    if "manifestVersion" in keys:
        return ("this is a bug report's manifest.json (the list of what the report holds "
                f"and the reporter's text), not a run; {_OPEN_THE_ZIP}")
    conversations = document.get("conversations")
    if (isinstance(conversations, list) and conversations
            and all(isinstance(c, dict) and "turns" in c for c in conversations)):
        return ("this is a bug report's conversation.json (the readable transcript), not "
                f"a run; {_OPEN_THE_ZIP}")
    if {"node", "platform", "arch"} <= keys:
        return ("this is a bug report's environment.json (the host that ran the run and "
                f"the reporter's text), not a run; {_OPEN_THE_ZIP}")
    return None


# ─── An event stream's run ─────────────────────────────────────────────

STREAM_ONLY_GAP = Gap(
    "no-boundary-log",
    "an event stream (fileObservability) holds the typed events only: no boundary log, "
    "snapshot or structure. Calls, served context, tools, causes, the timeline and the "
    "route are read from the typed events; steps need the boundary log, which the run's "
    "recording, envelope or Trace carries")


def stream_gaps(events: list[dict]) -> list[Gap]:
    """What an event stream's events say of how far the run got: an end
    never written, calls started and not ended."""
    opened = closed = 0
    calls = {LLM_START: 0, LLM_END: 0, TOOL_START: 0, TOOL_END: 0}
    open_tools: dict[Any, str] = {}
    for event in events:
        kind = event.get("type")
        if kind in (AGENT_TURN_START, COMPOSITION_ENTER):
            opened += 1
        elif kind in (AGENT_TURN_END, COMPOSITION_EXIT):
            closed += 1
        if kind in calls:
            calls[kind] += 1
        if kind in (TOOL_START, TOOL_END):
            payload = event.get("payload")
            call_id = payload.get("toolCallId") if isinstance(payload, dict) else None
            if kind == TOOL_START:
                name = payload.get("toolName") if isinstance(payload, dict) else None
                open_tools[call_id if call_id is not None else object()] = (
                    name if isinstance(name, str) else "a tool")
            else:
                open_tools.pop(call_id, None)
    from recorders.loading import shown_text  # the loader imports this module

    gaps: list[Gap] = []
    if events and (opened == 0 or closed < opened):
        gaps.append(Gap(
            "unbalanced",
            "the stream stops before the run's end: it is still being written, or the run "
            "crashed (a crashed run's stream simply stops, with no error event)"))
    model_open = calls[LLM_START] - calls[LLM_END]
    if model_open > 0:
        gaps.append(Gap("unbalanced", f"{model_open} model call{'s' if model_open > 1 else ''} "
                        "started and not ended (stream.llm_start without stream.llm_end)"))
    tool_open = max(calls[TOOL_START] - calls[TOOL_END], len(open_tools))
    if tool_open > 0:
        names = sorted(set(open_tools.values()))
        named = f": {', '.join(shown_text(n) for n in names[:6])}" if names else ""
        gaps.append(Gap("unbalanced", f"{tool_open} tool call{'s' if tool_open > 1 else ''} "
                        f"started and not ended (stream.tool_start without stream.tool_end)"
                        f"{named}"))
    return gaps

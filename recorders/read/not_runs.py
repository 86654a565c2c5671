"""Files agentfootprint writes about a run that are not runs, refused by name.

A checkpoint, an AgentThinkingUI trace, a bug report's manifest, transcript
or host file, and a replay of a run's state without its events: each is
recognised from its keys alone (never a file name) and refused with the
sentence that says what the file is and what to open instead.
"""

from __future__ import annotations

from typing import Any

from recorders.errors import RecordingError
from recorders.values import describe, shown_text

_OPEN_A_RUN = "open the run's recording, envelope, event stream, Trace or bug report instead"
# A replay's state: the commits and the subflows' results, with no events beside them.
_REPLAY_KEYS = frozenset({"commits", "subflowResults"})
# Keys by which another kind (an envelope, an artifact, an audit bundle, a typed
# event, a Trace) is told apart: such a file is that kind's to read or refuse.
_OTHER_KINDS_KEYS = frozenset({"format", "header", "type", "version", "records"})
_OPEN_THE_ZIP = ("open the bug report .zip itself (or the envelope.json or recording.json "
                 "inside it) instead")


class NotARun(RecordingError):
    """A file agentfootprint writes that is not a record of a run (a checkpoint,
    a thinking trace, a bug report's manifest, a replay's state without its
    events); the message says what it is and what to open instead. It holds
    the message only."""


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
    if keys & _REPLAY_KEYS and not keys & _OTHER_KINDS_KEYS:
        held = " and ".join(sorted(keys & _REPLAY_KEYS))
        return (f"this holds a run's {held} (the state a BoundaryRecorder replay reads) "
                "but no boundary event log, and Lens shows a run from its events: there is "
                f"nothing here to show; {_OPEN_A_RUN}")
    if {"node", "platform", "arch"} <= keys:
        return ("this is a bug report's environment.json (the host that ran the run and "
                f"the reporter's text), not a run; {_OPEN_THE_ZIP}")
    return None


def unread(document: Any, read_kinds: str) -> RecordingError:
    """The refusal of a document no kind reads: every kind Lens reads (``read_kinds``,
    the registry's words for them), and what was found (an object's first few keys, each cut short, so the
    message stays one line)."""
    if not isinstance(document, dict):
        return RecordingError(f"expected one of the files Lens reads: {read_kinds}; "
                              f"found {describe(document)}")
    names = sorted(map(str, document))
    keys = ", ".join(shown_text(k, limit=24) for k in names[:5]) or "no keys"
    if len(names) > 5:
        keys += f" and {len(names) - 5} more"
    return RecordingError(f"expected one of the files Lens reads: {read_kinds}; "
                          f"found an object with {keys}")

"""An ``agentfootprint.recording.v1`` envelope: a recording with what its writer says of the run.

Any object with a ``format`` that no other kind claims is read as an envelope,
so an unknown format is refused here by name.
"""

from __future__ import annotations

from typing import Any

from recorders.counting import noun_for
from recorders.errors import RecordingError
from recorders.gaps import Gap
from recorders.read.model import NestedReader, Recording
from recorders.read.names import ENVELOPE
from recorders.read.recording import read_recording
from recorders.values import describe, is_number, js_number_text, shown_text

ENVELOPE_FORMAT = "agentfootprint.recording.v1"


def is_envelope(document: Any) -> bool:
    """An object with a format (checked after the audit bundle and the packed recording)."""
    return isinstance(document, dict) and "format" in document


def says_agentfootprint(document: Any) -> bool:
    """An object that says it is agentfootprint's run file: a format agentfootprint
    names (every one starts ``agentfootprint.``), or a recording inside it."""
    if not isinstance(document, dict):
        return False
    fmt = document.get("format")
    return (isinstance(fmt, str) and fmt.startswith(AGENTFOOTPRINT_FORMATS)) or \
        "recording" in document


# Every format agentfootprint names for a run's file (recording, envelope, packed,
# audit bundle) starts so.
AGENTFOOTPRINT_FORMATS = "agentfootprint."


def read(document: dict, nested: NestedReader) -> Recording:
    fmt = document.get("format")
    if fmt != ENVELOPE_FORMAT:
        shown = shown_text(fmt, quoted=True) if isinstance(fmt, str) else describe(fmt)
        raise RecordingError(
            f"format {shown} is not supported; this version reads {ENVELOPE_FORMAT}"
            if isinstance(fmt, str)
            else f"format: expected a string, found {shown}"
        )
    inner = document.get("recording")
    if not isinstance(inner, dict):
        raise RecordingError(
            f"recording: expected the recording object, found {describe(inner)}"
        )
    recording = read_recording(inner, where="recording.")
    recording.source_kind = ENVELOPE
    recording.envelope_format = fmt
    recording.producer = _optional_object(document, "producer", "")
    recording.run_info = _optional_object(document, "run", "")
    recording.privacy = _optional_object(document, "privacy", "")
    recording.configuration = document.get("configuration")
    recording.gaps[:0] = _envelope_gaps(recording.run_info)
    return recording


def _optional_object(document: dict, key: str, where: str) -> dict | None:
    value = document.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RecordingError(f"{where}{key}: expected an object, found {describe(value)}")
    return value


def _envelope_gaps(run: dict | None) -> list[Gap]:
    gaps: list[Gap] = []
    if run is None:
        return [Gap("no-run-info", "the envelope has no 'run' section")]
    if run.get("complete") is False:
        gaps.append(Gap("incomplete", "the run did not complete (complete: false): "
                        "it failed or the recording was cut off"))
    dropped = run.get("droppedEvents")
    if is_number(dropped) and dropped > 0:
        gaps.append(Gap("dropped", f"{js_number_text(dropped)} {noun_for(dropped, 'event')} "
                        f"{'was' if dropped == 1 else 'were'} dropped by the recorder's buffer; "
                        "the earliest events are missing"))
    first = run.get("firstRetainedEventIndex")
    if is_number(first) and first > 0 and not (is_number(dropped) and dropped > 0):
        gaps.append(Gap("dropped", "the first event was not retained" if first == 1 else
                        f"the first {js_number_text(first)} events were not retained"))
    return gaps

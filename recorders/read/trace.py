"""A ``Trace`` from ``localObservability`` (``{version, events, structure,
snapshot?, redaction, capturedAtMs}``): its ``events`` are the boundary log."""

from __future__ import annotations

from typing import Any

from recorders.errors import RecordingError
from recorders.gaps import Gap
from recorders.read.boundary_log import boundary_recording
from recorders.read.model import NestedReader, Recording
from recorders.read.names import TRACE
from recorders.values import describe, is_number, js_number_text, shown_text

TRACE_VERSION = 1


def is_trace(document: Any) -> bool:
    """A ``Trace``: a version, the boundary events, and the trace's own stamps."""
    return (isinstance(document, dict) and "version" in document and "events" in document
            and ("redaction" in document or "capturedAtMs" in document)
            and "recording" not in document)


def read(document: dict, nested: NestedReader) -> Recording:
    """A ``Trace`` (localObservability): its events are the boundary log; with
    ``includeSnapshot``, the snapshot rides beside them."""
    version = document.get("version")
    if version != TRACE_VERSION:
        shown = js_number_text(version) if is_number(version) else describe(version)
        raise RecordingError(f"this is a Trace of version {shown}; this version reads "
                             f"Traces of version {TRACE_VERSION}")
    events = document.get("events")
    if not isinstance(events, list):
        raise RecordingError(f"events: expected the Trace's boundary events, found "
                             f"{describe(events)}")
    snapshot = document.get("snapshot")
    if snapshot is not None and not isinstance(snapshot, dict):
        raise RecordingError(f"snapshot: expected an object, found {describe(snapshot)}")
    structure = document.get("structure")
    return boundary_recording(
        events, TRACE, "a Trace (localObservability) holds the boundary log, not the typed "
        "event stream: model-call details and the skill route are unavailable",
        _trace_gaps(snapshot, structure, document.get("redaction")),
        snapshot=snapshot, structure=structure)


def _trace_gaps(snapshot: dict | None, structure: Any, redaction: Any) -> list[Gap]:
    """What a Trace says it left out: its snapshot, its structure, its content."""
    gaps = []
    if snapshot is None:
        gaps.append(Gap(
            "no-snapshot", "the Trace was saved without its snapshot (includeSnapshot was "
            "not set): no state or commit history"))
    if structure is None:
        gaps.append(Gap("no-structure", "the Trace has no build-time structure"))
    if redaction == "pii":
        gaps.append(Gap(
            "redacted", "the Trace is redacted (redaction: 'pii', from redactContent): "
            "messages, payloads and tool content read '[redacted]'"))
    elif redaction not in (None, "none"):
        shown = shown_text(redaction, quoted=True) if isinstance(redaction, str) else describe(
            redaction)
        gaps.append(Gap("redacted", f"the Trace says its redaction is {shown}, which this "
                        "version does not know: content may be redacted"))
    return gaps


def notes(recording: Recording) -> list[str]:
    """What the file is, in a sentence for the loaded file's notes."""
    held = "with its snapshot" if recording.snapshot is not None else "without its snapshot"
    redacted = any(gap.code == "redacted" for gap in recording.gaps)
    return [f"a Trace from localObservability, {held}: its events are the boundary log"
            + ("; its content is redacted" if redacted else "")]

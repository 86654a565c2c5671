"""A recording ``{snapshot, events, structure}`` from ``recordRun(...).toRecording()``.

The typed event stream is ``events``; the boundary log is the
``BoundaryEvents`` recorder's data in the snapshot. The envelope and packed
readers read the recording they hold with :func:`read_recording`.
"""

from __future__ import annotations

from typing import Any

from recorders.errors import RecordingError
from recorders.gaps import Gap
from recorders.read.model import NestedReader, Recording
from recorders.read.names import RECORDING
from recorders.validation import recording_gaps, validate_boundary, validate_typed
from recorders.values import describe

BOUNDARY_RECORDER_NAME = "BoundaryEvents"


def is_recording(document: Any) -> bool:
    """An object with a snapshot or typed events (checked after every other
    kind, which may hold those keys too)."""
    return isinstance(document, dict) and ("snapshot" in document or "events" in document)


def read(document: dict, nested: NestedReader) -> Recording:
    """The registry's reader: a recording at the top of its file."""
    return read_recording(document, where="")


def read_recording(document: dict, where: str) -> Recording:
    gaps: list[Gap] = []
    typed_raw = document.get("events")
    has_typed = typed_raw is not None
    if typed_raw is None:
        typed_raw = []
        gaps.append(Gap("no-typed-stream", "the recording has no typed event stream ('events'); "
                        "model-call details and the skill route are unavailable"))
    elif not isinstance(typed_raw, list):
        raise RecordingError(f"{where}events: expected a list of events, found {describe(typed_raw)}")

    snapshot = document.get("snapshot")
    boundary_raw: list | None = None
    boundary_where = ""
    mode = None
    if snapshot is None:
        gaps.append(Gap("no-snapshot", "the recording has no snapshot, so no boundary log: "
                        "the step projections are empty"))
    elif not isinstance(snapshot, dict):
        raise RecordingError(f"{where}snapshot: expected an object, found {describe(snapshot)}")
    else:
        boundary_raw, boundary_where, mode = _find_boundary_log(snapshot, f"{where}snapshot")
        if boundary_raw is None:
            gaps.append(Gap("no-boundary-log",
                            f"{where}snapshot.recorders has no '{BOUNDARY_RECORDER_NAME}' entry: "
                            "the step projections are empty"))
    if "structure" not in document or document.get("structure") is None:
        gaps.append(Gap("no-structure", "the recording has no build-time structure"))

    recording = Recording(
        source_kind=RECORDING,
        typed_events=typed_raw,
        boundary_events=boundary_raw if boundary_raw is not None else [],
        has_typed_stream=has_typed,
        has_boundary_log=boundary_raw is not None,
        boundary_mode=mode,
        snapshot=snapshot if isinstance(snapshot, dict) else None,
        structure=document.get("structure"),
    )
    validate_typed(recording, f"{where}events")
    balance = validate_boundary(recording, boundary_where) if boundary_raw is not None else None
    recording.gaps.extend(gaps)
    recording.gaps.extend(recording_gaps(recording, balance))
    return recording


def _find_boundary_log(snapshot: dict, where: str) -> tuple[list | None, str, str | None]:
    recorders = snapshot.get("recorders")
    if recorders is None:
        return None, "", None
    if not isinstance(recorders, list):
        raise RecordingError(f"{where}.recorders: expected a list, found {describe(recorders)}")
    for index, entry in enumerate(recorders):
        if isinstance(entry, dict) and entry.get("name") == BOUNDARY_RECORDER_NAME:
            entry_where = f"{where}.recorders[{index}]"
            data = entry.get("data")
            if not isinstance(data, list):
                raise RecordingError(
                    f"{entry_where}.data: expected the boundary-event list, found {describe(data)}"
                )
            meta = entry.get("meta")
            mode = meta.get("mode") if isinstance(meta, dict) else None
            return data, f"{entry_where}.data", mode if isinstance(mode, str) else None
    return None, "", None

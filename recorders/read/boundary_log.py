"""A run whose file carries the boundary log alone, no typed stream: what a
bare boundary-event list and a ``Trace`` read into, built once for both."""

from __future__ import annotations

from typing import Any, Sequence

from recorders.gaps import Gap
from recorders.read.model import Recording
from recorders.validation import recording_gaps, validate_boundary


def boundary_recording(events: list, kind: str, no_typed_stream: str,
                       kind_gaps: Sequence[Gap] = (), **extra: Any) -> Recording:
    """The run of ``events`` (checked as boundary events, at ``events[i]``) from a
    file of ``kind``: its gaps are why it has no typed stream (``no_typed_stream``,
    in the kind's words), then the kind's own (``kind_gaps``), then every run's.
    ``extra``: what else the file holds of the run (a snapshot, a structure)."""
    recording = Recording(source_kind=kind, typed_events=[], boundary_events=events,
                          has_typed_stream=False, has_boundary_log=True, **extra)
    balance = validate_boundary(recording, "events")
    recording.gaps.append(Gap("no-typed-stream", no_typed_stream))
    recording.gaps.extend(kind_gaps)
    recording.gaps.extend(recording_gaps(recording, balance))
    return recording

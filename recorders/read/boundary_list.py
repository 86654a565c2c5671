"""A bare boundary-event list (``DomainEvent[]``): the boundary log alone, no typed stream."""

from __future__ import annotations

from typing import Any

from recorders.gaps import Gap
from recorders.read.model import NestedReader, Recording
from recorders.read.names import BOUNDARY_LIST
from recorders.validation import recording_gaps, validate_boundary


def is_boundary_list(document: Any) -> bool:
    """Any JSON list: its elements are checked as boundary events."""
    return isinstance(document, list)


def read(events: list, nested: NestedReader) -> Recording:
    """The list's run: its elements checked as boundary events."""
    recording = Recording(
        source_kind=BOUNDARY_LIST,
        typed_events=[],
        boundary_events=events,
        has_typed_stream=False,
        has_boundary_log=True,
    )
    balance = validate_boundary(recording, "events")
    recording.gaps.append(Gap(
        "no-typed-stream",
        "a bare boundary-event list has no typed event stream: model-call details "
        "and the skill route are unavailable",
    ))
    recording.gaps.extend(recording_gaps(recording, balance))
    return recording

"""A bare boundary-event list (``DomainEvent[]``): the boundary log alone, no typed stream."""

from __future__ import annotations

from typing import Any

from recorders.read.boundary_log import boundary_recording
from recorders.read.model import NestedReader, Recording
from recorders.read.names import BOUNDARY_LIST


def is_boundary_list(document: Any) -> bool:
    """Any JSON list: its elements are checked as boundary events."""
    return isinstance(document, list)


def is_list_of_events(document: Any) -> bool:
    """A list that says it is boundary events: its first few elements are
    objects with a ``type`` (any list is read as one; only such a list, when it
    cannot be, is reported as a run that could not be read)."""
    return (isinstance(document, list) and bool(document)
            and all(isinstance(event, dict) and "type" in event for event in document[:5]))


def read(events: list, nested: NestedReader) -> Recording:
    """The list's run: its elements checked as boundary events."""
    return boundary_recording(
        events, BOUNDARY_LIST, "a bare boundary-event list has no typed event stream: "
        "model-call details and the skill route are unavailable")

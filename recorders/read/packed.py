"""A packed recording (``agentfootprint.recording.packed.v1``): expanded, then read as a recording.

The format and its expansion are ``recorders/packed.py``'s (the loader's fast
parse reads a packed file's kept part there too); this module is the kind.
"""

from __future__ import annotations

from typing import Any

from recorders import packed
from recorders.errors import RecordingError
from recorders.read.model import NestedReader, Recording
from recorders.read.names import PACKED
from recorders.read.recording import read_recording
from recorders.values import describe


def is_packed(document: Any) -> bool:
    """An object whose format is the packed recording's."""
    return isinstance(document, dict) and packed.is_packed_format(document.get("format"))


def read(document: dict, nested: NestedReader) -> Recording:
    """A packed recording (recorders/packed.py): expanded, its values shared,
    once its plain size is within LENS_MAX_EXPANDED_MB; then read as a recording."""
    inner = packed.expand_packed(document, max_bytes=packed.max_expanded_bytes())
    if not isinstance(inner, dict):
        raise RecordingError(f"recording: expected the recording object, found {describe(inner)}")
    recording = read_recording(inner, where="recording.")
    recording.source_kind = PACKED
    recording.envelope_format = document.get("format")
    return recording

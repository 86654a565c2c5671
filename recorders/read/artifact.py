"""A ``fileArtifacts`` store entry (``{format: 1, meta, payload}``) of kind
``recording/run``: the recording its payload holds as JSON text."""

from __future__ import annotations

from typing import Any

from recorders.errors import RecordingError
from recorders.read.model import NestedReader, Recording
from recorders.read.names import ARTIFACT_RECORDING, RECORDING_KINDS
from recorders.values import describe, js_number_text, shown_text

ARTIFACT_FORMAT = 1
ARTIFACT_RECORDING_KIND = "recording/run"


def is_artifact(document: Any) -> bool:
    """An artifact store's envelope: a numeric format beside meta or payload."""
    if not isinstance(document, dict):
        return False
    fmt = document.get("format")
    return (isinstance(fmt, (int, float)) and not isinstance(fmt, bool)
            and ("meta" in document or "payload" in document))


def read(document: dict, nested: NestedReader) -> Recording:
    """A ``fileArtifacts`` entry of kind ``recording/run``: the recording its
    payload holds as JSON text. Any other artifact is refused by its kind."""
    fmt = document.get("format")
    if fmt != ARTIFACT_FORMAT:
        raise RecordingError(f"this is an artifact-store entry of format {js_number_text(fmt)}; "
                             f"this version reads format {ARTIFACT_FORMAT}")
    meta = document.get("meta")
    if not isinstance(meta, dict):
        raise RecordingError(f"meta: expected the artifact's meta object (ref, kind, ...), "
                             f"found {describe(meta)}")
    kind = meta.get("kind")
    if kind != ARTIFACT_RECORDING_KIND:
        shown = shown_text(kind, quoted=True) if isinstance(kind, str) else describe(kind)
        raise RecordingError(
            f"this is an artifact-store entry of kind {shown}, not a run's recording; Lens "
            f"opens artifacts of kind '{ARTIFACT_RECORDING_KIND}' (minted with "
            "artifacts: {{ recordings: true }})")
    payload = document.get("payload")
    shape = payload.get("shape") if isinstance(payload, dict) else None
    value = payload.get("value") if isinstance(payload, dict) else None
    if shape != "text" or not isinstance(value, str):
        shown = shown_text(shape, quoted=True) if isinstance(shape, str) else describe(shape)
        raise RecordingError(
            f"payload: the artifact's recording is stored with shape {shown}; Lens reads "
            "recordings stored as text ({shape: 'text', value})")
    try:
        inner = value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate half: the json module reads the text
        inner = value
    try:
        recording = nested.document_run(inner, True)  # its own text: the fast parse, as at the top
    except RecordingError as exc:
        raise RecordingError(f"payload.value (the artifact's recording): {exc}") from None
    if recording.source_kind not in RECORDING_KINDS:
        raise RecordingError(
            f"payload.value: the artifact holds a {recording.source_kind}, not a recording")
    recording.source_kind = ARTIFACT_RECORDING
    return recording


def notes(recording: Recording) -> list[str]:
    """What the file is, in a sentence for the loaded file's notes."""
    return ["an artifact-store entry (fileArtifacts, kind recording/run): the recording "
            "it holds"]

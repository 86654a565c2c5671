"""The one table of file kinds Lens reads: which kind a file is, and its reader.

Each :class:`FileKind` record names a kind (``recorders/read/names.py``),
how it is recognised (``sniff``, from a parsed JSON document; ``sniff_bytes``,
from the file's bytes before any parse), how it is read, and what else the
loader asks of it. The loader (``recorders/loading.py``) asks
:func:`bytes_kind` of a file's bytes first, then, once they are parsed,
:func:`document_kind`; the first record whose sniff says yes reads the file.
The order of :data:`KINDS` is the order they are asked in, and it matters: a
Trace or an audit bundle also has ``events`` or a ``format``, which the
recording and the envelope, asked last, would read too.

Files that are not runs are refused before any kind is asked
(``recorders/read/not_runs.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from recorders.read import (artifact, audit, boundary_list, bug_report, envelope, event_stream,
                            not_runs, packed, recording, trace)
from recorders.read.model import LoadedFile, NestedReader, Recording
from recorders.read.names import (ARTIFACT_RECORDING, AUDIT_BUNDLE, BOUNDARY_LIST, BUG_REPORT,
                                  ENVELOPE, EVENT_STREAM, PACKED, RECORDING, TRACE)


def _no_notes(_recording: Recording) -> list[str]:
    return []


def _one_run(run: Recording) -> list[Recording]:
    return [run]


@dataclass(frozen=True)
class FileKind:
    """One kind of file: its name, what a person calls it, how it is
    recognised and how it is read. It owns none of the parsing (the loader's)
    and none of the per-event checks (``recorders/validation.py``, which the
    readers call)."""

    name: str
    # What the run header's "format" says the file is (a noun phrase, no article).
    label: str
    # The kind in a sentence ("This run comes from …", the refusal's list): short
    # (the refusal names all of them in one line), no token longer than a narrow
    # sidebar's line, so no format ids; the label says more.
    words: str
    # From a parsed document: does this kind read it, and its run.
    sniff: Callable[[Any], bool] | None = None
    read: Callable[[Any, NestedReader], Recording] | None = None
    # From the file's bytes (or text), before any parse: does it, and every run it holds.
    sniff_bytes: Callable[[bytes | str], bool] | None = None
    read_bytes: Callable[[Any, NestedReader], LoadedFile] | None = None
    # What may be refused without reading: the expanded size, or RecordingError.
    precheck: Callable[[bytes, int], int] | None = None
    # Sentences for the loaded file's notes, about a run this kind read.
    notes: Callable[[Recording], list[str]] = _no_notes
    # The runs one document of this kind holds (an audit bundle's, one per run id).
    runs: Callable[[Recording], list[Recording]] = _one_run
    # Whether a document says it is of this kind, read or not (None: when its
    # sniff says so): a file that does and cannot be read is reported, not
    # passed over as some other JSON. Narrower than the sniff for the kinds
    # asked last, which take any list or any object with a format.
    claims: Callable[[Any], bool] | None = None

    def says_it_is(self, document: Any) -> bool:
        claims = self.claims or self.sniff
        return claims is not None and claims(document)


KINDS: tuple[FileKind, ...] = (
    FileKind(BUG_REPORT, "bug report zip (exportBugReport)",
             "a bug report .zip",
             sniff_bytes=bug_report.is_bug_report,
             read_bytes=bug_report.read_bytes, precheck=bug_report.precheck),
    FileKind(EVENT_STREAM, "event stream (fileObservability NDJSON; typed events only)",
             "an event stream (.ndjson)",
             sniff_bytes=event_stream.is_stream_text, read_bytes=event_stream.read_text,
             sniff=event_stream.is_one_typed_event, read=event_stream.read),
    FileKind(TRACE, "Trace (localObservability; boundary log, no typed stream)",
             "a Trace",
             sniff=trace.is_trace, read=trace.read, notes=trace.notes),
    FileKind(ARTIFACT_RECORDING, "recording from an artifact store (fileArtifacts, recording/run)",
             "an artifact-store entry",
             sniff=artifact.is_artifact, read=artifact.read, notes=artifact.notes),
    FileKind(BOUNDARY_LIST, "bare boundary-event list (no typed stream)",
             "a list of boundary events",
             sniff=boundary_list.is_boundary_list, read=boundary_list.read,
             claims=boundary_list.is_list_of_events),
    FileKind(AUDIT_BUNDLE, "audit bundle (auditExport; bounded payloads)",
             "an audit bundle",
             sniff=audit.is_audit_document, read=audit.read, runs=audit.audit_runs,
             claims=audit.says_it_is_a_bundle),
    FileKind(PACKED, "packed recording", "a packed recording",
             sniff=packed.is_packed, read=packed.read),
    FileKind(ENVELOPE, "envelope", "an envelope",
             sniff=envelope.is_envelope, read=envelope.read, claims=envelope.says_agentfootprint),
    FileKind(RECORDING, "recording {snapshot, events, structure}",
             "a recording {snapshot, events, structure}",
             sniff=recording.is_recording, read=recording.read),
)

_BY_NAME = {kind.name: kind for kind in KINDS}
_BYTE_KINDS = tuple(kind for kind in KINDS if kind.sniff_bytes is not None)
_DOCUMENT_KINDS = tuple(kind for kind in KINDS if kind.sniff is not None)


# Every kind Lens reads, for a refusal to name them all.
READ_KINDS = ", ".join(kind.words for kind in KINDS[:-1]) + " or " + KINDS[-1].words


def kind_named(name: str) -> FileKind:
    """The record of the kind called ``name`` (a run's ``source_kind``)."""
    return _BY_NAME[name]


def kind_label(name: str) -> str:
    """What the run header calls a file of the kind ``name`` (the name itself
    for one this version does not know)."""
    kind = _BY_NAME.get(name)
    return name if kind is None else kind.label


def kind_words(name: str) -> str:
    """The kind ``name`` in a sentence ("a file" for one this version does not know)."""
    kind = _BY_NAME.get(name)
    return "a file" if kind is None else kind.words


def claimed_kind(document: Any) -> FileKind | None:
    """The kind a parsed document says it is, whether or not it could be read."""
    for kind in _DOCUMENT_KINDS:
        if kind.says_it_is(document):
            return kind
    return None


def bytes_kind(raw: bytes | str) -> FileKind | None:
    """The kind that reads these bytes as they are, or None: they are to be parsed."""
    for kind in _BYTE_KINDS:
        if kind.sniff_bytes(raw):
            return kind
    return None


def document_kind(document: Any) -> FileKind:
    """The kind that reads a parsed document; RecordingError (NotARun for a
    file that is not a run) saying what it is when no kind does."""
    refusal = not_runs.not_a_run(document)
    if refusal is not None:
        raise not_runs.NotARun(refusal)
    for kind in _DOCUMENT_KINDS:
        if kind.sniff(document):
            return kind
    raise not_runs.unread(document, READ_KINDS)

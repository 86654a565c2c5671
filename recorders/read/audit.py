"""An ``auditExport()`` bundle: its hash chain verified, its records a typed stream.

The chain check is ``recorders/audit.py``'s; this module is the kind: the
bundle's run (or runs, one per ``meta.runId``), checked as typed events.
"""

from __future__ import annotations

from typing import Any

# is_audit_document is the registry's sniff for this kind.
from recorders.audit import (AUDIT_FORMAT, GENESIS_TYPE, AuditCheck, audit_gaps,  # noqa: F401
                             is_audit_document, read_audit_bundle)
from recorders.event_stream import split_runs
from recorders.read.envelope import AGENTFOOTPRINT_FORMATS
from recorders.read.model import NestedReader, Recording
from recorders.read.names import AUDIT_BUNDLE
from recorders.surrogates import mend_lone_surrogates, mended_gap
from recorders.validation import recording_gaps, validate_typed


def says_it_is_a_bundle(document: Any) -> bool:
    """A bundle, or an object whose header names a format of agentfootprint's."""
    if is_audit_document(document):
        return True
    header = document.get("header") if isinstance(document, dict) else None
    return isinstance(header, dict) and isinstance(header.get("format"), str) and \
        header["format"].startswith(AGENTFOOTPRINT_FORMATS)


def read(document: dict, nested: NestedReader) -> Recording:
    """An auditExport() bundle: its chain verified, its records a typed stream
    (recorders/audit.py). Every run it holds, in one recording; :func:`audit_runs`
    parts them."""
    bundle = read_audit_bundle(document)
    # The hashes cover lone surrogate halves as written: made showable only now.
    mended = mend_lone_surrogates(bundle.typed_events)
    return _audit_run(bundle.check, bundle.typed_events, bundle.library_version, "records",
                      mended)


def audit_runs(recording: Recording) -> list[Recording]:
    """An audit bundle's runs, one per ``meta.runId`` in order, each with the
    whole file's chain check (runs chain back to back in one log)."""
    if len(recording.typed_run_ids) < 2:
        return [recording]
    mended = [gap for gap in recording.gaps if gap.code == "lone-surrogates"]  # the file's
    version = (recording.producer or {}).get("agentfootprintVersion")
    runs = []
    for number, events in enumerate(split_runs(recording.typed_events), 1):
        run = _audit_run(recording.audit, events, version, f"run {number} records", 0)
        run.gaps += mended
        run.source_chars = recording.source_chars
        runs.append(run)
    return runs


def _audit_run(check: AuditCheck, events: list[dict], version: str | None, where: str,
               mended: int) -> Recording:
    recording = Recording(
        source_kind=AUDIT_BUNDLE,
        typed_events=events,
        boundary_events=[],
        has_typed_stream=True,
        has_boundary_log=False,
        envelope_format=AUDIT_FORMAT,
        producer={"agentfootprintVersion": version},
        audit=check,
    )
    validate_typed(recording, where)
    recording.unknown_typed_types.pop(GENESIS_TYPE, None)  # a chain record, known as such
    recording.gaps.extend(audit_gaps(check, events))
    recording.gaps.extend(recording_gaps(recording, None))
    if mended:
        recording.gaps.append(mended_gap(mended))
    return recording

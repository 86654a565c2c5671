"""A bug report zip from ``exportBugReport`` (layout 2): its runs and the reporter's fields.

The zip itself (its entries checked before any is inflated, the manifest read)
is ``recorders/bug_report.py``'s; this module is the kind: the runs inside,
read by the loader's own parse through the :class:`NestedReader`.
"""

from __future__ import annotations

from recorders.bug_report import checked_entries, is_zip, read_bug_report
from recorders.deep_parse import PARSE_RECURSION_LIMIT, parsing
from recorders.errors import RecordingError
from recorders.read.model import LoadedFile, NestedReader, Recording
from recorders.read.names import BUG_REPORT, RECORDING_KINDS
from recorders.values import describe, shown_text


def is_bug_report(data: bytes | str) -> bool:
    """A zip's bytes (agentfootprint zips nothing else about a run)."""
    return isinstance(data, bytes) and is_zip(data)


def precheck(data: bytes, limit: int) -> int:
    """The sum of the sizes a zip's entries declare, once they pass the checks
    the reader makes before inflating them (nothing is inflated here)."""
    return sum(entry.file_size for entry in checked_entries(data, limit))


def read_bytes(data: bytes, nested: NestedReader) -> LoadedFile:
    """A bug report zip: each run it holds, and the reporter's fields."""
    report = read_bug_report(data, nested.limit, nested.parse)
    runs: list[Recording] = []
    for name, entry in report.runs:
        try:
            if name.startswith("conversations/"):
                runs.extend(_conversation_runs(entry, nested))
            else:
                runs.append(nested.document_run(entry, nested.fast))
        except RecordingError as exc:
            raise RecordingError(f"{shown_text(name)} in the bug report: {exc}") from None
    for recording in runs:
        recording.source_kind = BUG_REPORT
    notes = [f"a bug report (exportBugReport, layout 2) holding {len(runs)} "
             f"run{'s' if len(runs) != 1 else ''}"]
    if report.other_files:
        notes.append("not runs, not opened: " + ", ".join(
            shown_text(name, limit=60) for name in report.other_files[:8]))
    return LoadedFile(BUG_REPORT, runs, report=report.report, notes=notes)


def _conversation_runs(data: bytes, nested: NestedReader) -> list[Recording]:
    """``conversations/<id>.json``: ``{id, runIds, envelopes | recordings}``."""
    document = nested.parse(data)
    if not isinstance(document, dict):
        raise RecordingError(f"expected a conversation object, found {describe(document)}")
    key = "envelopes" if "envelopes" in document else "recordings"
    items = document.get(key)
    if not isinstance(items, list):
        raise RecordingError(f"{key}: expected a list of runs, found {describe(items)}")
    runs: list[Recording] = []
    for index, item in enumerate(items):
        try:
            with parsing(PARSE_RECURSION_LIMIT):
                recording = nested.interpret(item)
        except RecordingError as exc:
            raise RecordingError(f"{key}[{index}]: {exc}") from None
        if recording.source_kind not in RECORDING_KINDS:
            raise RecordingError(f"{key}[{index}]: expected a recording or an envelope, "
                                 f"found a {recording.source_kind}")
        runs.append(recording)
    return runs

"""What the app's Share menu hands over: one run as a file, built in memory.

:func:`prepare` builds the file a person asked for (an HTML page, the
recording in its own format, or OTLP/JSON spans) and says, before anything is
written or downloaded, what redaction masked in it (counts by kind, example
masks, never the values) and how large it is.

With redaction, the run's file is redacted once, as ``footprint-lens export
recording --redact`` writes it (:func:`lens.share.recording_export.export_recording`),
and the page and the spans are built from that redacted run: the three
formats mask the same values with the same masks, and the consent list is
the same whichever is chosen.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from recorders.errors import RecordingError
from lens.run import OpenRun

HTML, RECORDING, OTLP = "html", "recording", "otlp"
KIND_WORDS = {HTML: "HTML page (opens from disk, no server)",
              RECORDING: "Recording (its own format; opens in Lens)",
              OTLP: "OpenTelemetry spans (OTLP/JSON, for a tracing tool)"}
_RUN_SUFFIXES = (".gz", ".json", ".ndjson", ".jsonl", ".zip")
_NAME_CHARS = 60


@dataclass(frozen=True)
class Prepared:
    """A file ready to download, and what it is."""

    kind: str
    data: bytes
    file_name: str  # safe as a download name
    mime: str
    form: str  # app words: "HTML page", "envelope, gzipped", …
    masked: dict[str, int] | None  # distinct values masked per kind; None: not redacted
    places: dict[str, int] | None
    examples: dict[str, list[str]] | None

    @property
    def size(self) -> int:
        return len(self.data)


def prepare(kind: str, run: OpenRun, *, file_bytes: bytes | None, file_name: str,
            run_index: int = 0, profile: str = "lens", redactor: Any = None,
            content: bool = False) -> Prepared:
    """The file of ``kind`` for ``run`` (run ``run_index`` of ``file_bytes``).

    ``file_bytes`` is needed for a recording and for anything redacted; a
    RecordingError says so when it is None, and for a file redaction cannot
    write back."""
    if kind not in KIND_WORDS:
        raise ValueError(f"unknown kind {kind!r}")
    stem = download_stem(file_name)
    report = None
    if kind == RECORDING or redactor is not None:
        if file_bytes is None:
            raise RecordingError("the run's file is no longer on this server; open it again "
                                 "to share it redacted or as a recording")
        from lens.share.recording_export import export_recording

        exported = export_recording(file_bytes, redactor)
        report = exported.report
        if kind == RECORDING:
            return _prepared(kind, exported.data, f"{stem}{_redacted(redactor)}"
                             f"{_recording_suffix(file_bytes, file_name)}",
                             "application/octet-stream", exported.form, report)
        from lens.share.html import nth_run

        run = OpenRun(nth_run(exported.data, run_index))
    if kind == HTML:
        from lens.share.html import export_run

        said = None if report is None else report.summary()
        # The bytes the run was read from (redacted, when it was), for its commit log.
        source = exported.data if redactor is not None else file_bytes
        page = export_run(run, file_name, profile, redacted=said,
                          file_bytes=source).html.encode("utf-8")
        return _prepared(kind, page, f"{stem}{_redacted(redactor)}.html", "text/html",
                         "HTML page", report)
    from lens.share.otlp import otlp_document

    spans = json.dumps(otlp_document(run, content=content), ensure_ascii=False,
                       separators=(",", ":")).encode("utf-8")
    return _prepared(kind, spans, f"{stem}{_redacted(redactor)}.otlp.json", "application/json",
                     "OTLP/JSON" + (" with contents" if content else ""), report)


def _prepared(kind: str, data: bytes, name: str, mime: str, form: str, report: Any) -> Prepared:
    if report is None:
        return Prepared(kind, data, name, mime, form, None, None, None)
    return Prepared(kind, data, name, mime, form, dict(report.counts), dict(report.places),
                    {k: list(v) for k, v in report.examples.items()})


def download_stem(file_name: str) -> str:
    """The run file's name without its suffixes, in characters any file system
    takes (an uploaded file's name is untrusted)."""
    name = file_name.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    lowered = name.lower()
    changed = True
    while changed:
        changed = False
        for suffix in _RUN_SUFFIXES:
            if lowered.endswith(suffix):
                name, lowered, changed = name[:-len(suffix)], lowered[:-len(suffix)], True
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip(".-")[:_NAME_CHARS]
    return stem or "run"


def _redacted(redactor: Any) -> str:
    return "" if redactor is None else "-redacted"


def _recording_suffix(data: bytes, file_name: str) -> str:
    lowered = file_name.lower()
    for suffix in (".json.gz", ".ndjson.gz", ".jsonl.gz", ".ndjson", ".jsonl", ".zip", ".json"):
        if lowered.endswith(suffix):
            return suffix
    if data.startswith(b"\x1f\x8b"):
        return ".json.gz"
    return ".zip" if data.startswith(b"PK\x03\x04") else ".json"


def size_text(size: int) -> str:
    """``1.2 MB``, ``340 KB``, ``812 bytes``."""
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    if size >= 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size} bytes"

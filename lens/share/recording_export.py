"""``footprint-lens export recording``: a run's file written back in its own format.

Without redaction the output is the input's bytes, unchanged, once the loader
has read them as a run: a faithful copy. With a
:class:`~lens.share.redaction.Redactor`, the file is masked and written in
the input's own format and style, one plan (the same mask for the same value)
over all of it (when nothing at all is found, the output is the input's bytes):

- a JSON document (recording, envelope, boundary-event list, Trace, packed
  recording, artifact-store entry, audit bundle): the same document masked,
  compact or indented as the input was (the indent and a final newline kept,
  a byte-order mark kept), gzipped when the input was;
- an event stream (NDJSON): one masked event a line; a last line still being
  written (no newline, not yet whole JSON) is left out and said so; an older
  generation ``<file>.1`` beside it is not part of the export (said too);
- a bug report (.zip): the same members in the same order, each JSON member
  masked as a document, each text member as text; a member that is neither
  is refused (it cannot be looked into, so it cannot be shared redacted).

Before anything is written the masked file is opened again as the input was:
the same kind, the same runs, the same numbers of typed and boundary events,
or the export is refused. An audit bundle's hash chain covers the payloads
as written, so a redacted copy opens with its chain reported broken; that is
said too.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import re
import sys
import tempfile
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from recorders.deep_parse import parsing
from recorders.errors import RecordingError
from recorders.read import names

if TYPE_CHECKING:
    from lens.share.redaction import Plan, Redactor, Report

_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGIC = b"PK\x03\x04"
_BOM = "\ufeff"
_RECURSION_LIMIT = 10_100  # the loader's
# A zip member may not expand beyond this (as a gzip file in the loader).
MAX_MEMBER_BYTES = 2 * 1024**3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options beyond the shared ones."""


def run(args: argparse.Namespace, redactor: Redactor | None) -> int:
    from recorders.loading import ROTATED_SUFFIX, read_path

    data = read_path(args.file)
    exported = export_recording(data, redactor)
    out, form = as_named(args.output, exported.data, exported.form)
    write_atomically(args.output, out)
    for note in exported.notes:
        print(note, file=sys.stderr)
    what = "an unchanged copy" if redactor is None else exported.report.summary()
    print(f"wrote {args.output} ({len(out):,} bytes, {form}): {what}", file=sys.stderr)
    older = args.file + ROTATED_SUFFIX
    if exported.form.startswith(names.EVENT_STREAM) and os.path.isfile(older):
        print(f"{older} beside it holds the stream's older part, which is not in this "
              "export", file=sys.stderr)
    return 0


@dataclass
class Exported:
    """A file's export: its bytes, what form they take, what was masked."""

    data: bytes
    form: str  # e.g. "envelope, gzipped"
    report: Report | None = None
    notes: list[str] = field(default_factory=list)
    # The plan it was masked with: an export built from it masks further texts
    # with ``Redactor.plan(..., base=plan)`` so one value keeps one mask.
    plan: Plan | None = None


def export_recording(data: bytes, redactor: Redactor | None) -> Exported:
    """The run file ``data`` exported: as it is without ``redactor``, masked in
    its own format with one. RecordingError when it is not a run Lens opens,
    or when the masked file would not open as the input does."""
    before = _opened(data)
    if redactor is None:
        return Exported(data, _form(before, data))
    if data.startswith(_ZIP_MAGIC):
        out, report, notes, plan = _redact_zip(data, redactor)
    elif data.startswith(_GZIP_MAGIC):
        from recorders.loading import gunzip

        plain = gunzip(data)
        inner, report, notes, plan = _redact_plain(plain, redactor)
        out = data if inner is plain else gzip.compress(inner, compresslevel=6, mtime=0)
    else:
        out, report, notes, plan = _redact_plain(data, redactor)
    after = before if out is data else _opened(out, redacted=True)
    if _shape(after) != _shape(before):
        raise RecordingError(
            "the redacted file would not open as the input does (input: "
            f"{_describe_shape(before)}; redacted: {_describe_shape(after)}); nothing written")
    if before.kind == names.AUDIT_BUNDLE and out is not data:
        notes.append("an audit bundle's hash chain covers the payloads as written: the "
                     "redacted copy opens with its chain reported broken")
    return Exported(out, _form(before, data), report, notes, plan)


# ─── Checking it opens ─────────────────────────────────────────────────


def _opened(data: bytes, redacted: bool = False) -> Any:
    from recorders.loading import load_file

    try:
        return load_file(data)
    except RecordingError as exc:
        if redacted:
            raise RecordingError(f"the redacted file would not open ({exc}); nothing "
                                 "written") from None
        raise


def _shape(loaded: Any) -> tuple:
    return (loaded.kind, tuple((r.source_kind, len(r.typed_events), len(r.boundary_events))
                               for r in loaded.runs))


def _describe_shape(loaded: Any) -> str:
    runs = ", ".join(f"{len(r.typed_events)} typed/{len(r.boundary_events)} boundary events"
                     for r in loaded.runs) or "no runs"
    return f"{loaded.kind}, {runs}"


def _form(loaded: Any, data: bytes) -> str:
    return loaded.kind + (", gzipped" if data.startswith(_GZIP_MAGIC) else "")


# ─── JSON documents and event streams ──────────────────────────────────


def _redact_plain(data: bytes, redactor: Redactor
                  ) -> tuple[bytes, Report, list[str], Plan]:
    text = _utf8(data)
    bom = text.startswith(_BOM)
    body = text[1:] if bom else text
    document = _parse(body)
    if document is not _NOT_JSON:
        style = JsonStyle.of(body)
        plan = redactor.plan([document])
        redacted, report = plan.apply(document)
        if not plan.masks:  # all of it was looked at and nothing found: the input
            return data, report, [], plan
        out = style.dumps(redacted)
        return _utf8_bytes((_BOM if bom else "") + out), report, [], plan
    events, notes = _stream_events(body)
    plan = redactor.plan([events])
    redacted, report = plan.apply(events)
    if not plan.masks and not notes:
        return data, report, notes, plan
    with parsing(_RECURSION_LIMIT):
        lines = "".join(_compact(event) + "\n" for event in redacted)
    return _utf8_bytes((_BOM if bom else "") + lines), report, notes, plan


_NOT_JSON = object()


def _parse(text: str) -> Any:
    """The JSON document of ``text``, or _NOT_JSON when it is not one document."""
    try:
        with parsing(_RECURSION_LIMIT):
            return json.loads(text)
    except (ValueError, RecursionError):
        return _NOT_JSON


def _stream_events(text: str) -> tuple[list[Any], list[str]]:
    """The events of an NDJSON stream; a last line that is not whole yet is left out."""
    lines = text.split("\n")
    events: list[Any] = []
    notes: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            with parsing(_RECURSION_LIMIT):
                events.append(json.loads(line))
        except (ValueError, RecursionError):
            if number == len(lines):  # no newline after it: still being written
                notes.append(f"line {number} was still being written (not whole JSON yet) "
                             "and is left out")
                continue
            raise RecordingError(f"line {number} of the event stream is not valid JSON") from None
    return events, notes


@dataclass(frozen=True)
class JsonStyle:
    """How a JSON file was written: compact, or indented by ``indent``; a final newline."""

    indent: str | None
    newline: bool

    @classmethod
    def of(cls, text: str) -> JsonStyle:
        body = text.strip()
        indent = None
        if "\n" in body:
            second = body.split("\n", 2)[1]
            indent = second[: len(second) - len(second.lstrip(" \t"))] or None
        return cls(indent, text.endswith("\n"))

    def dumps(self, document: Any) -> str:
        with parsing(_RECURSION_LIMIT):
            if self.indent is None:
                out = _compact(document)
            else:
                out = json.dumps(document, ensure_ascii=False, indent=self.indent)
        return out + ("\n" if self.newline else "")


def _compact(value: Any) -> str:
    """As JavaScript's ``JSON.stringify`` writes it: no spaces, non-ASCII as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_LONE_HALF = re.compile("[\ud800-\udfff]")


def _utf8_bytes(text: str) -> bytes:
    """``text`` as UTF-8; half of a surrogate pair (``JSON.stringify`` writes one
    from a string cut inside an emoji) has no UTF-8 form and stays an escape, as
    it was in the input. Only JSON strings can hold one, where the escape is valid."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_HALF.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


def _utf8(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordingError(f"the file is not valid UTF-8 (byte {exc.start})") from None


# ─── Bug reports ───────────────────────────────────────────────────────


def _redact_zip(data: bytes, redactor: Redactor) -> tuple[bytes, Report, list[str], Plan]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise RecordingError(f"the zip file cannot be read ({exc})") from None
    if sum(m.file_size for m in members) > MAX_MEMBER_BYTES:
        raise RecordingError("the zip's members expand beyond 2 GiB; refused")
    parts: list[tuple[zipfile.ZipInfo, str, Any, JsonStyle | None]] = []
    for member in members:
        if member.is_dir():
            parts.append((member, "dir", None, None))
            continue
        try:
            raw = archive.read(member)
        except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as exc:
            raise RecordingError(f"{member.filename}: cannot be read from the zip "
                                 f"({exc})") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise RecordingError(f"{member.filename} in the zip is not text, so it cannot be "
                                 "looked into for redaction; nothing written") from None
        document = _parse(text) if member.filename.lower().endswith(".json") else _NOT_JSON
        if document is _NOT_JSON:
            parts.append((member, "text", text, None))
        else:
            parts.append((member, "json", document, JsonStyle.of(text)))
    # The zip's own texts: its comment and each member's. Extra fields are binary
    # (times, owners, or anything a tool put there): not looked into, so not kept.
    comments, notes = _zip_comments(archive, members)
    extras = sum(1 for member in members if member.extra)
    # One plan over every member: the same value has the same mask in all of them.
    names = [member.filename for member in members]  # a conversation's file is named by its id
    plan = redactor.plan([value for _, what, value, _ in parts if what != "dir"]
                         + [comments, names])
    if not plan.masks and not extras and not notes:
        return data, plan.report(Counter()), [], plan
    if extras:
        notes.append(f"the extra fields of {extras} zip member{'' if extras == 1 else 's'} "
                     "were left out (binary data redaction cannot look into)")
    masked_comments, report = plan.apply(comments, root=False)
    places: Counter = Counter(report.places)
    masked_names, report = plan.apply(names, root=False)
    places.update(report.places)
    masked_names = _distinct(masked_names)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as written:
        written.comment = masked_comments[0].encode("utf-8")
        for (member, what, value, style), name, comment in zip(parts, masked_names,
                                                                masked_comments[1:]):
            info = _fresh_info(member, name, comment)
            if what == "dir":
                written.writestr(info, b"")
                continue
            redacted, report = plan.apply(value)
            places.update(report.places)
            body = style.dumps(redacted) if style is not None else redacted
            written.writestr(info, _utf8_bytes(body))
    return out.getvalue(), plan.report(places), notes, plan


def _zip_comments(archive: zipfile.ZipFile, members: list[zipfile.ZipInfo]
                  ) -> tuple[list[str], list[str]]:
    """The zip's comment then each member's, as text; one that is not UTF-8
    cannot be looked into and is left out (said in the notes)."""
    texts: list[str] = []
    unreadable = 0
    for raw in [archive.comment, *(member.comment for member in members)]:
        try:
            texts.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            texts.append("")
            unreadable += 1
    notes = [f"{unreadable} zip comment{' was' if unreadable == 1 else 's were'} not UTF-8 "
             "text, so could not be looked into, and left out"] if unreadable else []
    return texts, notes


def _distinct(names: list[str]) -> list[str]:
    """Names masked alike made distinct again (a zip refuses two members of one name)."""
    seen: set[str] = set()
    out = []
    for name in names:
        while name in seen:
            stem, dot, suffix = name.rpartition(".")
            name = f"{stem}\u2032.{suffix}" if dot and "/" not in suffix else name + "\u2032"
        seen.add(name)
        out.append(name)
    return out


def _fresh_info(member: zipfile.ZipInfo, name: str, comment: str) -> zipfile.ZipInfo:
    """A member's entry as written again: its (masked) name, time, method and
    mode; its comment masked; no extra fields."""
    info = zipfile.ZipInfo(name, member.date_time)
    info.compress_type = member.compress_type
    info.external_attr = member.external_attr
    info.create_system = member.create_system
    info.comment = comment.encode("utf-8")
    return info


# ─── Files ─────────────────────────────────────────────────────────────


def as_named(path: str, data: bytes, form: str) -> tuple[bytes, str]:
    """The bytes a file named ``path`` should hold, and their form: a name
    ending ``.gz`` gets gzip (a plain file under a ``.gz`` name opens nowhere
    else); a zip is refused such a name, since gzip around a zip is a third
    format no tool expects."""
    if not path.lower().endswith(".gz") or data.startswith(_GZIP_MAGIC):
        return data, form
    if data.startswith(_ZIP_MAGIC):
        raise RecordingError(f"{path!r} names a gzip file, but this export is a zip (a bug "
                             "report, as the input was): name it .zip")
    # mtime=0: the same input gives the same bytes, so exports can be compared.
    return gzip.compress(data, compresslevel=6, mtime=0), form + ", gzipped as its name asks"


def write_atomically(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder,
    so a reader never sees half a file (RecordingError when it cannot be written)."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".export-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as exc:
        raise RecordingError(f"cannot write {path!r}: {exc.strerror or exc}") from None

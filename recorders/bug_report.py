"""Read the bug report zip ``exportBugReport`` writes, within a bound.

The bundle (layout 2, ``manifest.manifestVersion: 2``) holds ``manifest.json``
(what the report holds and the reporter's title, steps, expected and actual),
the run as ``envelope.json`` (an ``agentfootprint.recording.v1`` envelope) or
``recording.json`` (the bare recording, when the envelope's run facts were not
given), or one ``conversations/<id>.json`` per conversation when there is more
than one run (``{id, runIds, envelopes | recordings}``), plus a transcript and
the host, which are not runs.

A zip is checked as gzip is (``recorders/loading.py``), before anything is
inflated: every entry's name (no ``..``, no absolute path or drive letter, no
backslash, no duplicate: refused by name, as agentfootprint's own writer
refuses them), its declared size and the sum of them against the bound, and
its compression ratio and the whole zip's. Inflating never produces more than an entry declares
(``zipfile`` stops there and the checksum then fails). agentfootprint writes
store-only zips, so a real report has a ratio of 1.

This module returns the entries' bytes and the report's fields; turning the
JSON into runs is the loader's.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
from dataclasses import dataclass, field
from typing import Any

from recorders.errors import RecordingError
from recorders.values import shown_text

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # an entry first, or an empty archive
MANIFEST = "manifest.json"
ENVELOPE = "envelope.json"
RECORDING = "recording.json"
CONVERSATIONS = "conversations/"
MANIFEST_VERSION = 2
REPORT_FIELDS = ("title", "stepsToReproduce", "expected", "actual")

# Deflate reaches about 1,000:1 on repeated bytes; JSON rarely passes 20:1. An
# entry past this ratio is refused before it is inflated, once it is large
# enough to matter (a small entry is bounded by its declared size anyway).
MAX_RATIO = 100
RATIO_FLOOR_BYTES = 1024**2
MAX_ENTRIES = 10_000
_READ_PIECE = 1024**2
_DRIVE = re.compile(r"^[A-Za-z]:")


def is_zip(data: bytes) -> bool:
    return data[:4] in ZIP_MAGIC


@dataclass
class BugReport:
    """What a bug report zip holds for Lens: the run entries' bytes, by name,
    in the zip's order; the manifest; the reporter's fields."""

    runs: list[tuple[str, bytes]]
    manifest: dict
    report: dict[str, Any]
    other_files: list[str] = field(default_factory=list)


def read_bug_report(data: bytes, limit: int, parse) -> BugReport:
    """The run entries of a bug report zip (``parse`` turns an entry's bytes
    into JSON, raising RecordingError). RecordingError, naming the entry, for
    anything refused."""
    entries = checked_entries(data, limit)
    names = [info.filename for info in entries]
    if MANIFEST not in names:
        raise RecordingError(
            "the zip has no manifest.json: it is not an agentfootprint bug report "
            f"(it holds {_listed(names)})")
    by_name = {info.filename: info for info in entries}
    with _opened(data) as archive:
        manifest = parse(_read_entry(archive, by_name[MANIFEST]))
        if not isinstance(manifest, dict):
            raise RecordingError("manifest.json: expected the bug report's manifest object")
        version = manifest.get("manifestVersion")
        if version != MANIFEST_VERSION:
            shown = shown_text(str(version)) if version is not None else "none"
            raise RecordingError(
                f"the bug report's manifest version is {shown}; this version reads "
                f"layout {MANIFEST_VERSION} (exportBugReport in agentfootprint 9.x)")
        run_names = [name for name in names if _is_run_entry(name)]
        if not run_names:
            raise RecordingError(
                "the bug report holds no run: no envelope.json, recording.json or "
                "conversations/ entry (its conversations were left out when it was exported)")
        runs = [(name, _read_entry(archive, by_name[name])) for name in run_names]
    others = [name for name in names if name != MANIFEST and name not in run_names
              and not name.endswith("/")]
    return BugReport(runs, manifest, report_fields(manifest), others)


def _is_run_entry(name: str) -> bool:
    if name in (ENVELOPE, RECORDING):
        return True
    return (name.startswith(CONVERSATIONS) and name.endswith(".json")
            and "/" not in name[len(CONVERSATIONS):])


def report_fields(manifest: dict) -> dict[str, Any]:
    """The reporter's prose and what the manifest says of the bundle."""
    report = manifest.get("report")
    report = report if isinstance(report, dict) else {}
    fields: dict[str, Any] = {name: report.get(name) if isinstance(report.get(name), str)
                              else None for name in REPORT_FIELDS}
    created = manifest.get("createdAt")
    fields["createdAt"] = created if isinstance(created, str) else None
    for name in ("notes", "warnings"):
        value = manifest.get(name)
        fields[name] = [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
    environment = manifest.get("environment")
    fields["environment"] = environment if isinstance(environment, dict) else None
    return fields


def checked_entries(data: bytes, limit: int) -> list[zipfile.ZipInfo]:
    """The zip's entries once every one has passed the checks (names, sizes,
    ratio, method); nothing is inflated here. The count of entries is read from
    the end record first, so a central directory of millions is not parsed."""
    declared = _declared_entries(data)
    if declared is not None and declared > MAX_ENTRIES:
        raise _too_many(declared)
    with _opened(data) as archive:
        entries = archive.infolist()
    if len(entries) > MAX_ENTRIES:
        raise _too_many(len(entries))
    seen: set[str] = set()
    total = compressed = 0
    for info in entries:
        name = info.filename
        shown = shown_text(name, quoted=True, limit=80)
        problem = _name_problem(name)
        if problem:
            raise RecordingError(f"the zip entry {shown} {problem}; refused")
        if name in seen:
            raise RecordingError(f"the zip holds the entry {shown} twice; refused")
        seen.add(name)
        if info.flag_bits & 0x1:
            raise RecordingError(f"the zip entry {shown} is encrypted; refused")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise RecordingError(f"the zip entry {shown} uses compression method "
                                 f"{info.compress_type}; Lens reads stored or deflated entries")
        if info.file_size > limit:
            raise RecordingError(f"the zip entry {shown} expands to "
                                 f"{info.file_size / 1024**2:,.1f} MiB, beyond the limit of "
                                 f"{limit / 1024**2:,.0f} MiB; refused before inflating it")
        if (info.file_size > RATIO_FLOOR_BYTES
                and info.file_size > MAX_RATIO * max(info.compress_size, 1)):
            raise RecordingError(
                f"the zip entry {shown} expands {info.file_size / max(info.compress_size, 1):,.0f}"
                f" times ({info.compress_size:,} bytes to {info.file_size:,}): a zip bomb's "
                f"ratio (a real report is stored, 1:1); refused before inflating it")
        total += info.file_size
        compressed += info.compress_size
        if total > limit:
            raise RecordingError(f"the zip's entries expand to more than "
                                 f"{limit / 1024**2:,.0f} MiB in all, beyond the limit; "
                                 "refused before inflating them")
    # Many entries each under the floor inflate as much as one large one: the
    # ratio of the whole is checked too.
    if total > RATIO_FLOOR_BYTES and total > MAX_RATIO * max(compressed, 1):
        raise RecordingError(
            f"the zip's {len(entries):,} entries expand {total / max(compressed, 1):,.0f} times "
            f"in all ({compressed:,} bytes to {total:,}): a zip bomb's ratio (a real report "
            "is stored, 1:1); refused before inflating them")
    return entries


def _too_many(count: int) -> RecordingError:
    return RecordingError(f"the zip holds {count:,} entries, more than a bug report has "
                          f"({MAX_ENTRIES:,}); refused")


_END = b"PK\x05\x06"
_END_BYTES = 22
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_END = b"PK\x06\x06"


def _declared_entries(data: bytes) -> int | None:
    """The entry count the end-of-central-directory record declares (the zip64
    record's when the classic one defers to it); None when there is no record,
    which ``zipfile`` then reports as damage."""
    end = data.rfind(_END, max(0, len(data) - _END_BYTES - 0xFFFF))
    if end < 0 or end + _END_BYTES > len(data):
        return None
    count = struct.unpack_from("<H", data, end + 10)[0]
    if count != 0xFFFF:
        return count
    locator = data.rfind(_ZIP64_LOCATOR, max(0, end - 20), end)
    if locator < 0:
        return count
    offset = struct.unpack_from("<Q", data, locator + 8)[0]
    if data[offset:offset + 4] != _ZIP64_END or offset + 40 > len(data):
        return count
    return struct.unpack_from("<Q", data, offset + 32)[0]


def _name_problem(name: str) -> str | None:
    if not name:
        return "has no name"
    if "\\" in name:
        return "has a backslash in its name (a Windows path)"
    if name.startswith("/") or _DRIVE.match(name):
        return "has an absolute path"
    if any(part == ".." for part in name.split("/")):
        return "climbs out of the archive ('..' in its path)"
    if "\x00" in name:
        return "has a NUL byte in its name"
    return None


class _opened:
    """``zipfile.ZipFile`` over bytes, its errors as RecordingError."""

    def __init__(self, data: bytes) -> None:
        try:
            self.archive = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
            raise RecordingError(f"the zip archive is damaged or truncated ({exc})") from None

    def __enter__(self) -> zipfile.ZipFile:
        return self.archive

    def __exit__(self, *exc_info: object) -> None:
        self.archive.close()


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The entry's bytes, never more than it declares (checked again while
    reading: the declared size is what the bound was checked against)."""
    shown = shown_text(info.filename, quoted=True, limit=80)
    out = bytearray()
    try:
        with archive.open(info) as handle:
            while True:
                piece = handle.read(_READ_PIECE)
                if not piece:
                    break
                out += piece
                if len(out) > info.file_size:
                    raise RecordingError(f"the zip entry {shown} expands beyond the size it "
                                         "declares; refused")
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
        raise RecordingError(f"the zip entry {shown} is damaged ({exc})") from None
    except Exception as exc:  # zlib.error and the like: the data is not what it says
        raise RecordingError(f"the zip entry {shown} is damaged ({type(exc).__name__})") from None
    return bytes(out)


def _listed(names: list[str], shown: int = 6) -> str:
    if not names:
        return "no entries"
    listed = ", ".join(shown_text(n, limit=60) for n in names[:shown])
    return listed if len(names) <= shown else f"{listed} and {len(names) - shown} more"

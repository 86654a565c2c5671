"""A bug report zip is read within a bound, like gzip: names, sizes and ratio
are checked before anything is inflated, and path tricks are refused by name."""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from archive.rows import UNREADABLE, index_file
from recorders.bug_report import checked_entries
from recorders.errors import RecordingError
from zip_files import nothing_inflated, zip_bytes  # noqa: F401 (a fixture)
from recorders.loading import load_file

DATA = Path(__file__).resolve().parents[1] / "data" / "formats"
REPORT = DATA / "bug-report-zip" / "agent-tool" / "bug-report.zip"
MIB = 1024**2


MANIFEST = zipfile.ZipFile(io.BytesIO(REPORT.read_bytes())).read("manifest.json")


def _manifest() -> bytes:
    return MANIFEST






def test_an_entry_with_a_bombs_ratio_is_refused_before_inflating(nothing_inflated):
    bomb = zip_bytes([("manifest.json", _manifest()), ("envelope.json", b" " * (20 * MIB))],
                zipfile.ZIP_DEFLATED)
    assert len(bomb) < 100_000  # 20 MiB in a few kilobytes: well under any size bound
    with pytest.raises(RecordingError, match=r"the zip entry 'envelope.json' expands [\d,]+ "
                                             r"times .*zip bomb's ratio.*refused before "
                                             "inflating it"):
        load_file(bomb)


def test_an_entry_over_the_bound_is_refused_before_inflating(nothing_inflated):
    big = zip_bytes([("manifest.json", _manifest()), ("envelope.json", b"x" * (2 * MIB))])
    with pytest.raises(RecordingError, match=r"the zip entry 'envelope.json' expands to 2.0 "
                                             r"MiB, beyond the limit of 1 MiB; refused before "
                                             "inflating it"):
        load_file(big, limit=MIB)


def test_entries_over_the_bound_together_are_refused(nothing_inflated):
    two = zip_bytes([("manifest.json", b"{}"), ("conversations/a.json", b"x" * (MIB // 2 + 10)),
                ("conversations/b.json", b"x" * (MIB // 2 + 10))])
    with pytest.raises(RecordingError, match="expand to more than 1 MiB in all"):
        load_file(two, limit=MIB)


def _declare_size(data: bytes, name: bytes, size: int) -> bytes:
    """``data`` with the central directory's uncompressed size of ``name`` set to ``size``."""
    out = bytearray(data)
    at = out.find(b"PK\x01\x02")
    while at >= 0:
        name_length = struct.unpack_from("<H", out, at + 28)[0]
        if bytes(out[at + 46:at + 46 + name_length]) == name:
            struct.pack_into("<I", out, at + 24, size)
            return bytes(out)
        at = out.find(b"PK\x01\x02", at + 4)
    raise AssertionError("entry not found")


def test_an_entry_that_expands_past_what_it_declares_is_never_read_past_it():
    honest = zip_bytes([("manifest.json", _manifest()), ("envelope.json", b" " * (4 * MIB))],
                  zipfile.ZIP_DEFLATED)
    lying = _declare_size(honest, b"envelope.json", 100)
    with pytest.raises(RecordingError, match="the zip entry 'envelope.json' is damaged"):
        load_file(lying)


@pytest.mark.parametrize("name, problem", [
    ("../evil.json", "climbs out of the archive"),
    ("reports/../../evil.json", "climbs out of the archive"),
    ("/etc/evil.json", "has an absolute path"),
    ("C:/evil.json", "has an absolute path"),
    ("conversations\\evil.json", "has a backslash in its name"),
])
def test_path_tricks_in_entry_names_are_refused_by_name(name, problem, nothing_inflated):
    tricky = zip_bytes([("manifest.json", _manifest()), (name, b"{}")])
    with pytest.raises(RecordingError) as refused:
        load_file(tricky)
    message = str(refused.value)
    assert problem in message and "refused" in message
    assert repr(name)[1:-1] in message or name in message


def test_a_duplicate_entry_is_refused_by_name(nothing_inflated):
    twice = zip_bytes([("manifest.json", _manifest()), ("envelope.json", b"{}"),
                  ("envelope.json", b"[]")])
    with pytest.raises(RecordingError, match="holds the entry 'envelope.json' twice; refused"):
        load_file(twice)


def test_another_compression_method_is_refused_by_name(nothing_inflated):
    other = zip_bytes([("manifest.json", _manifest())], zipfile.ZIP_BZIP2)
    with pytest.raises(RecordingError, match="compression method 12"):
        load_file(other)


def test_a_truncated_zip_is_refused_as_damaged():
    data = REPORT.read_bytes()
    with pytest.raises(RecordingError, match="the zip archive is damaged or truncated"):
        load_file(data[: len(data) // 2])


def test_the_real_report_passes_the_checks():
    entries = checked_entries(REPORT.read_bytes(), 10 * MIB)
    assert [e.filename for e in entries] == ["manifest.json", "envelope.json",
                                             "conversation.json", "environment.json"]


def test_the_archive_lists_a_zip_bomb_as_unreadable_with_the_reason(monkeypatch):
    monkeypatch.setenv("LENS_MAX_EXPANDED_MB", "1")
    big = zip_bytes([("manifest.json", _manifest()), ("envelope.json", b"x" * (2 * MIB))],
               zipfile.ZIP_DEFLATED)
    outcome = index_file("reports/big.zip", big)
    assert outcome.status == UNREADABLE
    assert "'envelope.json'" in outcome.problem and "refused before inflating" in outcome.problem


def test_the_cli_refuses_a_tricky_zip_in_one_line(tmp_path):
    path = tmp_path / "report.zip"
    path.write_bytes(zip_bytes([("manifest.json", _manifest()), ("../evil.json", b"{}")]))
    done = subprocess.run([sys.executable, "-m", "recorders", "info", str(path)],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2],
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve()
                                                               .parents[2])})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "'../evil.json' climbs out" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_zip_of_too_many_entries_is_refused_before_its_directory_is_parsed(monkeypatch):
    many = zip_bytes([("manifest.json", _manifest())]
                + [(f"conversations/c{i}.json", b"{}") for i in range(10_001)])

    def no_parse(*args, **kwargs):
        raise AssertionError("the central directory was parsed")
    monkeypatch.setattr(zipfile.ZipFile, "__init__", no_parse)
    with pytest.raises(RecordingError, match="holds 10,002 entries, more than a bug report has"):
        load_file(many)

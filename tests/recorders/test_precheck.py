"""What is refused before a file queues for its open: bounded in memory, same
messages as the loader, and nothing the loader opens (every kind, a bug report
zip and an empty event stream among them) is refused."""

from __future__ import annotations

import gzip
import io
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from recorders.errors import RecordingError
from zip_files import nothing_inflated, zip_bytes  # noqa: F401 (a fixture)
from recorders.loading import gunzip, load_file
from recorders.precheck import precheck

MB = 1024 * 1024
RUN = b'{"events": [], "snapshot": {}}'
FORMATS = Path(__file__).resolve().parents[1] / "data" / "formats"
REPORT = (FORMATS / "bug-report-zip" / "agent-tool" / "bug-report.zip").read_bytes()
SAMPLES = sorted(path for path in FORMATS.rglob("*") if path.is_file())


def test_a_gzipped_run_is_measured_expanded_across_every_member():
    data = gzip.compress(RUN) + gzip.compress(b"\n  ")
    assert precheck(data, limit=10 * MB) == len(RUN) + 3
    assert precheck(RUN, limit=1) == len(RUN)  # plain bytes are bounded by whoever sent them


def test_a_bomb_is_refused_holding_a_chunk_not_its_expanded_size():
    bomb = gzip.compress(b"0" * (64 * MB), compresslevel=9)
    tracemalloc.start()
    try:
        with pytest.raises(RecordingError, match="expands beyond 16 MiB"):
            precheck(bomb, limit=16 * MB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * MB  # the loader's own decompression would hold the 16 MiB it reached


def test_a_file_exactly_at_the_limit_passes_and_one_byte_more_is_refused():
    text = b"[" + b" " * 998 + b"]"
    assert precheck(gzip.compress(text), limit=1000) == 1000
    with pytest.raises(RecordingError, match="expands beyond"):
        precheck(gzip.compress(text + b" "), limit=1000)


@pytest.mark.parametrize("data", [
    gzip.compress(RUN)[:-4],  # truncated
    gzip.compress(RUN) + b"trailing",
    b"\x1f\x8b" + b"\x00" * 20,  # magic, then not gzip
    gzip.compress(b"x" * 100_000)[:30],
])
def test_broken_gzip_is_refused_with_the_loaders_message(data):
    with pytest.raises(RecordingError) as early:
        precheck(data, limit=10 * MB)
    with pytest.raises(RecordingError) as loader:
        gunzip(data, 10 * MB)
    assert str(early.value) == str(loader.value)


@pytest.mark.parametrize("text", [b"", b" \n\t ", b"\xef\xbb\xbf", b"\xef\xbb\xbf\r\n",
                                  b" " * 1000])
def test_an_empty_file_is_let_through_to_the_loader_which_reads_an_empty_stream(text):
    for data in (text, gzip.compress(text)):
        loaded = load_file(data)
        assert (loaded.kind, loaded.runs) == ("event-stream", [])
        assert "nothing written yet" in loaded.notes[0]
        assert precheck(data, limit=10 * MB) == len(text)


def test_the_empty_stream_agentfootprint_leaves_before_its_first_flush_passes():
    claimed = FORMATS / "ndjson" / "agent-tool" / "events.mid-run.immediate.ndjson"
    assert claimed.read_bytes() == b""  # the sample is the writer's empty file
    assert precheck(claimed.read_bytes(), limit=10 * MB) == 0


@pytest.mark.parametrize("text", [b"hello", b"<html>", b'"a string"', b"42",
                                  "\u00e9t\u00e9".encode(), b"\x00\x01", b"  \n\nPK not a zip"])
def test_text_that_cannot_start_a_recording_is_refused(text):
    for data in (text, gzip.compress(text)):
        with pytest.raises(RecordingError):
            load_file(data)
        with pytest.raises(RecordingError, match="not a recording: its text does not start "
                                                 "with a JSON object or list"):
            precheck(data, limit=10 * MB)


def test_gzip_inside_gzip_is_refused_with_the_loaders_message():
    data = gzip.compress(gzip.compress(RUN))
    with pytest.raises(RecordingError) as early:
        precheck(data, limit=10 * MB)
    with pytest.raises(RecordingError) as loader:
        load_file(data)
    assert str(early.value) == str(loader.value)
    assert "gzip inside gzip" in str(early.value)


# ─── a bug report zip ─────────────────────────────────────────────────




MANIFEST = zipfile.ZipFile(io.BytesIO(REPORT)).read("manifest.json")




def test_a_bug_report_zip_answers_what_its_entries_inflate_to():
    with zipfile.ZipFile(io.BytesIO(REPORT)) as archive:
        inflated = sum(len(archive.read(info)) for info in archive.infolist())
    assert load_file(REPORT).kind == "bug-report"  # the sample is one the loader opens
    assert inflated != len(REPORT)  # so the answer is not the file's own size
    assert precheck(REPORT, limit=10 * MB) == inflated
    # Not a thing agentfootprint writes, but the loader reads a gzipped zip as the zip.
    assert load_file(gzip.compress(REPORT)).kind == "bug-report"
    assert precheck(gzip.compress(REPORT), limit=10 * MB) == inflated


def _bomb() -> bytes:
    bomb = zip_bytes([("manifest.json", MANIFEST), ("envelope.json", b" " * (20 * MB))],
                zipfile.ZIP_DEFLATED)
    assert len(bomb) < 100_000  # 20 MiB in a few kilobytes: under any size bound
    return bomb


@pytest.mark.parametrize("zipped, limit, reason", [
    (_bomb, 64 * MB, "zip bomb's ratio"),
    (lambda: gzip.compress(_bomb()), 64 * MB, "zip bomb's ratio"),
    (lambda: zip_bytes([("manifest.json", MANIFEST), ("../evil.json", RUN)]), 10 * MB,
     "'../evil.json' climbs out of the archive"),
    (lambda: zip_bytes([("manifest.json", MANIFEST), ("envelope.json", b" " * (2 * MB))]), MB,
     "beyond the limit of 1 MiB; refused before inflating it"),
    (lambda: REPORT[:len(REPORT) // 2], 10 * MB, "damaged or truncated"),
], ids=["bomb", "gzipped-bomb", "climbs-out", "over-the-bound", "truncated"])
def test_a_zip_the_loader_refuses_is_refused_with_its_message_before_inflating(
        zipped, limit, reason, nothing_inflated):
    data = zipped()
    with pytest.raises(RecordingError) as early:
        precheck(data, limit=limit)
    with pytest.raises(RecordingError) as loader:
        load_file(data, limit=limit)
    assert str(early.value) == str(loader.value)
    assert reason in str(early.value)


# ─── every kind the loader reads ──────────────────────────────────────


def test_whatever_the_loader_opens_is_not_refused_and_is_measured_expanded():
    opened_kinds = set()
    for path in SAMPLES:
        plain = path.read_bytes()
        for data in (plain, gzip.compress(plain)):
            try:
                loaded = load_file(data)
            except RecordingError:
                continue  # not a file Lens reads (a checkpoint, a fixture's .js)
            opened_kinds.add(loaded.kind)
            size = precheck(data, limit=64 * MB)
            if loaded.kind != "bug-report":
                assert size == len(plain), path
    # The samples hold every kind agentfootprint writes that is a run.
    assert opened_kinds >= {"recording", "event-stream", "trace", "audit-bundle", "packed",
                            "artifact-recording", "bug-report"}


def test_a_byte_order_mark_and_leading_whitespace_are_allowed():
    text = b"\xef\xbb\xbf \r\n\t" + RUN
    assert precheck(text, limit=10 * MB) == len(text)
    assert precheck(gzip.compress(b" " * 100_000 + RUN), limit=10 * MB) == 100_000 + len(RUN)

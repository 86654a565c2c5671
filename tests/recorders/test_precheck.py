"""What is refused before a file queues for its open: bounded in memory, same messages."""

from __future__ import annotations

import gzip
import tracemalloc

import pytest

from recorders.errors import RecordingError
from recorders.loading import gunzip
from recorders.precheck import precheck

MB = 1024 * 1024
RUN = b'{"events": [], "snapshot": {}}'


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


@pytest.mark.parametrize("data", [b"", b" \n\t ", gzip.compress(b""), gzip.compress(b"   ")])
def test_an_empty_file_is_refused(data):
    with pytest.raises(RecordingError, match="the file is empty"):
        precheck(data, limit=10 * MB)


@pytest.mark.parametrize("text", [b"hello", b"<html>", b'"a string"', b"42",
                                  "\u00e9t\u00e9".encode(), b"\x00\x01"])
def test_text_that_cannot_start_a_recording_is_refused(text):
    for data in (text, gzip.compress(text)):
        with pytest.raises(RecordingError, match="not a recording"):
            precheck(data, limit=10 * MB)


def test_a_byte_order_mark_and_leading_whitespace_are_allowed():
    text = b"\xef\xbb\xbf \r\n\t" + RUN
    assert precheck(text, limit=10 * MB) == len(text)
    assert precheck(gzip.compress(b" " * 100_000 + RUN), limit=10 * MB) == 100_000 + len(RUN)

"""The issue's reproducers of hostile uploads, written quickly to disk.

- :func:`write_gzip_bomb`: gzip of zeros that expands to ``expanded_mb``
  (4 GiB by default) from about 1/1000 of that; a repeated gzip member (legal
  gzip, read member after member by every reader), so it is built in a blink
  rather than by compressing gigabytes.
- :func:`write_long_string`: a ``.json.gz`` whose text is valid-looking JSON
  with one string of ``string_mb`` (400 by default): the file that cost 5 GB
  on the raw events page when it was opened.

Used by the browser tests and ``benchmarks/bench_sessions.py``.
"""

from __future__ import annotations

import gzip
from pathlib import Path

MB = 1024 * 1024
_BLOCK_MB = 64


def write_gzip_bomb(path: Path, expanded_mb: int = 4096) -> Path:
    member = gzip.compress(b"0" * (_BLOCK_MB * MB), compresslevel=9)
    with path.open("wb") as out:
        for _ in range(max(1, expanded_mb // _BLOCK_MB)):
            out.write(member)
    return path


def write_long_string(path: Path, string_mb: int = 400) -> Path:
    block = gzip.compress(b"a" * (16 * MB), compresslevel=9)
    with path.open("wb") as out:
        out.write(gzip.compress(b'{"snapshot": {}, "events": [{"type": "x", "payload": {"text": "'))
        for _ in range(max(1, string_mb // 16)):
            out.write(block)
        out.write(gzip.compress(b'"}}], "structure": {}}'))
    return path

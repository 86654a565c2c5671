"""The benchmark inputs: the two large corpus recordings and scaled copies.

The corpus files are stored gzipped; the benchmarks open their JSON bytes
(what a user uploading ``recording.json`` sends), so "file size" means the
JSON's size. Scaled recordings are built with ``benchmarks/scale_recording.py``
(each says ``scaledFrom`` inside) and kept in a temporary directory between
runs, keyed by the digest of the source and of the scaling script (a fixed
script never reuses a copy the old one made).
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

from benchmarks import scale_recording as scaling
from benchmarks.scale_recording import scale_recording
from tests.corpus_files import read_bytes, recording_path

REPO = Path(__file__).resolve().parent.parent
LARGE = ("large-agent-300-tool-calls", "large-loop-of-parallel")
SCALE_SOURCE = "large-agent-300-tool-calls"
CACHE = Path(tempfile.gettempdir()) / "footprint-lens-benchmarks"


def corpus_bytes(name: str) -> bytes:
    """A corpus recording's JSON bytes, decompressed."""
    return read_bytes(recording_path(name))


def corpus_path(name: str) -> Path:
    """The corpus recording as a plain JSON file (written once, for subprocesses)."""
    data = corpus_bytes(name)
    return _cached(f"{name}-{_digest(data)}.json", lambda: data)


def scaled_path(factor: int) -> Path:
    """``large-agent-300-tool-calls`` scaled ``factor`` times, as compact JSON."""
    source = corpus_bytes(SCALE_SOURCE)

    def build() -> bytes:
        if sys.getrecursionlimit() < 20_000:
            sys.setrecursionlimit(20_000)
        document = json.loads(source)
        scaled = scale_recording(document, factor, SCALE_SOURCE)
        return json.dumps(scaled, separators=(",", ":")).encode()

    key = _digest(source + Path(scaling.__file__).read_bytes())
    return _cached(f"{SCALE_SOURCE}-x{factor}-{key}.json", build)


def _cached(name: str, build) -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / name
    if not path.exists():
        partial = path.with_suffix(".partial")
        partial.write_bytes(build())
        partial.replace(path)
    return path


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]

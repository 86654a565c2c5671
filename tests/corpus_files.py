"""Where the conformance corpus lives in the project, and how to read it.

The corpus is a copy of the 20 real recordings with the JS recorders'
reference output (expected.json); files over 1 MB are stored gzipped.
``corpus/pairs/`` holds paired runs (the same agent run twice with one
deliberate difference) with their expected comparison.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
PAIRS_DIR = CORPUS_DIR / "pairs"


def case_names() -> list[str]:
    return sorted(p.name for p in CORPUS_DIR.iterdir() if p.is_dir() and p != PAIRS_DIR)


def pair_names() -> list[str]:
    return sorted(p.name for p in PAIRS_DIR.iterdir() if p.is_dir())


def pair_run_path(pair: str, side: str) -> Path:
    """The one recording or envelope of side ``"a"`` or ``"b"`` of a pair."""
    found = sorted((PAIRS_DIR / pair / side).glob("*.json*"))
    assert len(found) == 1, f"pair {pair}/{side} should hold exactly one file, found {found}"
    return found[0]


def load_pair_expected(pair: str) -> dict:
    return load_json(PAIRS_DIR / pair / "expected-compare.json")


def _one(case: str, stem: str) -> Path | None:
    for name in (f"{stem}.json", f"{stem}.json.gz"):
        path = CORPUS_DIR / case / name
        if path.exists():
            return path
    return None


def recording_path(case: str) -> Path:
    path = _one(case, "recording") or _one(case, "envelope")
    assert path is not None, f"corpus case {case} has no recording"
    return path


def read_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def load_json(path: Path) -> Any:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    return json.loads(read_bytes(path))


def load_expected(case: str) -> dict:
    path = _one(case, "expected")
    assert path is not None, f"corpus case {case} has no expected.json"
    return load_json(path)

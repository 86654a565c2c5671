"""Where the lineage references live and how to read them.

``recordings.json`` lists every visible recording with a snapshot commit log
by its copy in this repository; ``references/`` holds what footprintjs 9.24.0
computes for each (``make_references.mjs``), ``cases/`` the hand-built
snapshots and ``references/cases/`` their references.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
REFERENCES = HERE / "references"
CASES = HERE / "cases"


def manifest() -> list[dict[str, Any]]:
    return json.loads((HERE / "recordings.json").read_text("utf-8"))["recordings"]


def recording_paths() -> list[str]:
    return [item["path"] for item in manifest()]


def _read(path: Path) -> Any:
    if path.exists():
        return json.loads(path.read_text("utf-8"))
    return json.loads(gzip.decompress((path.parent / (path.name + ".gz")).read_bytes()))


def reference_of(recording: str) -> dict[str, Any]:
    """The pinned ``{key: {...}}`` of a manifest path."""
    return _read(REFERENCES / recording.replace("/", "__"))


def case_names() -> list[str]:
    return sorted(path.stem for path in CASES.glob("*.json"))


def case(name: str) -> dict[str, Any]:
    return json.loads((CASES / f"{name}.json").read_text("utf-8"))


def case_reference(name: str) -> dict[str, Any]:
    return _read(REFERENCES / "cases" / f"{name}.json")

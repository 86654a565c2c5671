"""Where the family recordings live in the project, and how to read them.

``tests/data/families/`` is a gzipped copy of the recordings in
``../shared/recordings/families/``: 25 real runs (agentfootprint 9.62.0) of
agents that use the framework's production features (guards, retries,
fallbacks, memory, permissions, integrity checks, evaluations…). Each case
holds ``recording.json.gz`` and, for five cases, ``envelope.json.gz`` (the
same run persisted as an envelope). The cases' ``facts.json`` and
``framework-account.txt`` stay in ../shared; the tests here need the files only.
"""

from __future__ import annotations

from pathlib import Path

FAMILIES_DIR = Path(__file__).resolve().parent / "data" / "families"


def family_names() -> list[str]:
    return sorted(p.name for p in FAMILIES_DIR.iterdir() if p.is_dir())


def family_files() -> list[Path]:
    """Every recording and envelope of every case, sorted."""
    return sorted(path for case in family_names()
                  for path in (FAMILIES_DIR / case).glob("*.json.gz"))


def family_recording(case: str) -> Path:
    return FAMILIES_DIR / case / "recording.json.gz"

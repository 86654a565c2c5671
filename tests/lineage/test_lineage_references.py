"""The lineage port equals footprintjs 9.24.0, key by key, for every visible
recording with a snapshot commit log (references pinned by make_references.mjs)."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest

from lineage_refs import ROOT, manifest, recording_paths, reference_of
from recorders.lineage import Lineage, snapshot_of_path

PARTS = ("backward", "forward", "timeline", "births")


@pytest.mark.parametrize("recording", recording_paths())
def test_every_key_equals_the_footprintjs_reference(recording):
    expected = reference_of(recording)
    lineage = Lineage(snapshot_of_path(ROOT / recording))
    assert lineage.keys() == list(expected), "the keys the commit log writes, in order"
    for key, parts in expected.items():
        mine = lineage.of_key(key)
        assert set(mine) == set(parts), f"{key!r}: which parts (births only for arrays)"
        for part in PARTS:
            assert mine.get(part) == parts.get(part), f"{recording}: {key!r} {part}"


def test_the_references_cover_recordings_of_every_shape():
    paths = recording_paths()
    assert len(paths) == 62
    assert any(p.endswith(".json.gz") for p in paths) and any("envelope" in p for p in paths)
    keys = sum(len(reference_of(p)) for p in paths)
    nested = [key for p in paths for key in reference_of(p) if "\u001f" in key]
    arrays = [key for p in paths for key, parts in reference_of(p).items() if "births" in parts]
    assert keys == 1655 and nested and arrays


def _content(path: Path) -> str:
    data = path.read_bytes()
    return hashlib.sha1(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).hexdigest()


def test_the_manifest_stands_for_every_visible_recording_with_a_commit_log():
    shared = ROOT.parent / "shared" / "recordings"
    if not shared.is_dir():
        pytest.skip("../shared/recordings is not beside this checkout")
    copies = {_content(ROOT / item["path"]) for item in manifest()}
    visible = [p for folder in (shared, ROOT / "sample_runs")
               for p in sorted(folder.rglob("*.json*")) if p.name.endswith((".json", ".json.gz"))]
    with_log = []
    for path in visible:
        data = path.read_bytes()
        text = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        if b'"commitLog"' in text:
            with_log.append(path)
    assert len(with_log) >= 71
    missing = [str(p) for p in with_log if _content(p) not in copies]
    assert not missing, "visible recordings without a pinned reference"

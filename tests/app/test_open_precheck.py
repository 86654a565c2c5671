"""The app's check before an open (``_expanded_size``, precheck) agrees with the
loader: whatever the loader opens is let through, and an empty upload is said
to be an event stream with nothing written yet, not refused as empty."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from app_support import no_exception
from lens_ui.runs import _expanded_size
from recorders.errors import RecordingError
from recorders.loading import load_file

FORMATS = Path(__file__).resolve().parents[1] / "data" / "formats"
LIMIT = 64 * 1024**2


def test_every_sample_the_loader_opens_passes_the_apps_check():
    opened = 0
    for path in sorted(p for p in FORMATS.rglob("*") if p.is_file()):
        for data in (path.read_bytes(), gzip.compress(path.read_bytes())):
            try:
                load_file(data, limit=LIMIT)
            except RecordingError:
                continue
            opened += 1
            _expanded_size(data, LIMIT)  # raises RecordingError if it disagrees
    assert opened >= 60  # the samples of every kind, plain and gzipped


@pytest.mark.parametrize("data", [b"", b"  \n", gzip.compress(b"")],
                         ids=["empty", "whitespace", "gzipped-empty"])
def test_an_empty_upload_says_the_stream_has_nothing_written_yet_not_an_error(app, data):
    at = app.run()
    before = [t.value for t in at.text]
    at.file_uploader(key="lens.uploader").set_value(
        ("events.ndjson", data, "application/x-ndjson")).run()
    no_exception(at)
    assert [e.value for e in at.error] == []  # nothing is wrong with such a file
    said = [i.value for i in at.info if i.value.startswith("events\\.ndjson has no run")]
    assert len(said) == 1
    assert "nothing written yet" in said[0] and "Follow page" in said[0]
    assert [t.value for t in at.text] == before  # the run on screen stays open


def test_a_broken_upload_is_still_an_error(app):
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value(
        ("events.ndjson", b"{not json at all\n", "application/x-ndjson")).run()
    no_exception(at)
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("Could not open events\\.ndjson: ")

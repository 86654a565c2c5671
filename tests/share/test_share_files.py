"""The Share menu's files (lens/share/share_files.py): each format built in
memory with what it masks and its size, before anything is written."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from corpus_files import read_bytes, recording_path
from lens.run import open_run
from lens.share.redaction import Redactor
from lens.share.share_files import HTML, OTLP, RECORDING, download_stem, prepare
from recorders.errors import RecordingError
from recorders.loading import load_recording

EMAIL = "dana.payments@example.org"
CARD = "5555 5555 5555 4444"


@pytest.fixture(scope="module")
def planted() -> bytes:
    """The refund run with an e-mail and a card planted where its customer id
    and order number are (user message, tool arguments and results)."""
    text = read_bytes(recording_path("agent-refund-multi-tools-error")).decode("utf-8")
    return text.replace("cus_4410", EMAIL).replace("A-77120", CARD).encode("utf-8")


@pytest.mark.parametrize("kind", [HTML, RECORDING, OTLP])
def test_redacted_file_says_what_it_masked_and_carries_none_of_it(planted, kind):
    run = open_run(planted)
    prepared = prepare(kind, run, file_bytes=planted, file_name="refund.json",
                       redactor=Redactor(), content=True)
    assert prepared.masked == {"email": 1, "card": 1}
    assert prepared.places["email"] >= 2 and prepared.places["card"] >= 2
    assert prepared.examples == {"email": ["[email 1]"], "card": ["[card 1]"]}
    assert prepared.size == len(prepared.data) > 0
    assert EMAIL.encode() not in prepared.data and b"5555" not in prepared.data
    assert prepared.file_name.startswith("refund-redacted")


def test_unredacted_page_is_built_from_the_open_run_without_the_file(planted):
    prepared = prepare(HTML, open_run(planted), file_bytes=None, file_name="refund.json")
    assert prepared.masked is None and prepared.file_name == "refund.html"
    assert EMAIL.encode() in prepared.data


def test_redacted_recording_keeps_its_format_and_steps(planted):
    packed = gzip.compress(planted)
    run = open_run(packed)
    prepared = prepare(RECORDING, run, file_bytes=packed, file_name="refund.json.gz",
                       redactor=Redactor())
    assert prepared.file_name == "refund-redacted.json.gz"
    assert prepared.data[:2] == b"\x1f\x8b"
    again = open_run(prepared.data)
    assert again.step_count() == run.step_count()
    assert EMAIL not in json.dumps(load_recording(prepared.data).typed_events)


def test_redaction_needs_the_file(planted):
    with pytest.raises(RecordingError, match="no longer on this server"):
        prepare(HTML, open_run(planted), file_bytes=None, file_name="refund.json",
                redactor=Redactor())


@pytest.mark.parametrize("name, stem", [("recording.json.gz", "recording"),
                                        ("../../etc/pass wd.json", "pass-wd"),
                                        ("<script>.json", "script"), (".json", "run"),
                                        ("C:\\runs\\a b.ndjson", "a-b")])
def test_download_names_are_safe(name, stem):
    assert download_stem(name) == stem


def test_otlp_carries_contents_only_when_asked(planted):
    run = open_run(planted)
    without = prepare(OTLP, run, file_bytes=None, file_name="refund.json")
    with_contents = prepare(OTLP, run, file_bytes=None, file_name="refund.json", content=True)
    assert EMAIL.encode() not in without.data
    assert EMAIL.encode() in with_contents.data
    assert json.loads(with_contents.data)["resourceSpans"]


def test_sample_bytes_round_trip(tmp_path: Path, planted):
    # What a download writes is what was prepared: the page opens as a page.
    prepared = prepare(HTML, open_run(planted), file_bytes=planted, file_name="refund.json",
                       redactor=Redactor())
    out = tmp_path / prepared.file_name
    out.write_bytes(prepared.data)
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

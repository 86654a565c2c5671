"""Damaged files of the new kinds are refused with a RecordingError, never a crash.

Each case starts from a real sample (a stream, a bug report zip, a Trace, an
artifact entry) and damages it: bytes flipped, cut, or lines shuffled. The
loader must either read it or refuse it with its one error type."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recorders.errors import RecordingError
from recorders.loading import load_file

DATA = Path(__file__).resolve().parents[1] / "data" / "formats"
STREAM = (DATA / "ndjson" / "agent-tool" / "events.ndjson").read_bytes()
TRACE = (DATA / "trace" / "agent-tool" / "trace.mid-run.json").read_bytes()
ARTIFACT = next((DATA / "artifact-store" / "agent-tool").rglob("art_*.json")).read_bytes()


def _small_report() -> bytes:
    """A bug report zip of the mid-run recording: small enough to damage often."""
    source = zipfile.ZipFile(io.BytesIO(
        (DATA / "bug-report-zip" / "agent-tool" / "bug-report-no-run-facts.zip").read_bytes()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("manifest.json", source.read("manifest.json"))
        archive.writestr("recording.json",
                         (DATA / "recording" / "agent-tool" / "recording.mid-run.json")
                         .read_bytes())
    return buffer.getvalue()


REPORT = _small_report()
SAMPLES = st.sampled_from([STREAM, TRACE, ARTIFACT, REPORT])
FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _opens_or_refuses(data: bytes) -> None:
    try:
        loaded = load_file(data, limit=8 * 1024**2)
    except RecordingError as error:
        assert str(error).strip()
        return
    for run in loaded.runs:
        assert isinstance(run.typed_events, list) and isinstance(run.gaps, list)


@FUZZ
@given(SAMPLES, st.lists(st.tuples(st.integers(0, 10**7), st.integers(0, 255)),
                         min_size=1, max_size=8))
def test_flipped_bytes(sample, flips):
    data = bytearray(sample)
    for at, value in flips:
        data[at % len(data)] = value
    _opens_or_refuses(bytes(data))


@FUZZ
@given(SAMPLES, st.integers(0, 10**7))
def test_cut_short(sample, at):
    _opens_or_refuses(sample[: at % len(sample)])


@FUZZ
@given(st.lists(st.integers(0, 200), min_size=0, max_size=40),
       st.sampled_from([b"", b"\n", b"\r\n", b"  \n", b"{}\n", b"[]\n", b"null\n",
                        b'{"type":1}\n', b'{"type":"x","meta":[]}\n', b"\xff\n"]))
def test_stream_lines_shuffled_and_damaged(order, extra):
    lines = STREAM.splitlines(keepends=True)
    picked = b"".join(lines[i % len(lines)] for i in order) + extra
    _opens_or_refuses(picked)


@FUZZ
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=12),
       st.sampled_from(["version", "events", "structure", "snapshot", "redaction",
                        "format", "meta", "payload"]))
def test_a_member_of_a_trace_or_artifact_replaced(value, member):
    for sample in (TRACE, ARTIFACT):
        document = json.loads(sample)
        document[member] = value
        _opens_or_refuses(json.dumps(document).encode())

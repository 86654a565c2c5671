"""Helpers for the AppTest suites: the app's path, corpus files, and readouts."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from lens_ui.served_context import SERVED_TABS_KEY
from lens_ui.step_panel import SERVED_OPEN

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "lens_app.py"
CORPUS = ROOT / "tests" / "corpus"
TIMEOUT = 60


def corpus_bytes(case: str) -> bytes:
    """The recording (or envelope) file of a corpus case, as stored (maybe gzipped)."""
    for name in ("recording.json", "recording.json.gz", "envelope.json", "envelope.json.gz"):
        path = CORPUS / case / name
        if path.exists():
            return path.read_bytes()
    raise FileNotFoundError(case)


def corpus_plain_bytes(case: str) -> bytes:
    data = corpus_bytes(case)
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def expected(case: str) -> dict:
    folder = CORPUS / case
    if (folder / "expected.json").exists():
        return json.loads((folder / "expected.json").read_text("utf-8"))
    return json.loads(gzip.decompress((folder / "expected.json.gz").read_bytes()))


def caption(at: AppTest) -> str:
    """The slider readout, ``step i of n · label[ · tools]``."""
    readouts = [t.value for t in at.text if t.value.startswith("step ")]
    assert len(readouts) == 1, readouts
    return readouts[0]


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]


def open_served_context(at: AppTest, tab: str | None = None) -> AppTest:
    """Open the step detail's served-context expander, and one of its tabs, as a
    user clicks them (both are drawn only while open)."""
    at.session_state[SERVED_OPEN] = True
    if tab is not None:
        at.session_state[SERVED_TABS_KEY] = tab
    at.run()
    no_exception(at)
    return at

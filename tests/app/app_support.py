"""Helpers for the AppTest suites: the app's path, corpus files, and readouts."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from streamlit.testing.v1 import AppTest

from corpus_files import load_expected, read_bytes, recording_path

from lens_ui.served_context import SERVED_TABS_KEY
from lens_ui.step_panel import SERVED_OPEN

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "lens_app.py"
TIMEOUT = 60


def corpus_bytes(case: str) -> bytes:
    """The recording (or envelope) file of a corpus case, as stored (maybe gzipped)."""
    return recording_path(case).read_bytes()


def corpus_plain_bytes(case: str) -> bytes:
    return read_bytes(recording_path(case))


expected = load_expected


def caption(at: AppTest) -> str:
    """The slider readout, ``step i of n · label[ · tools]``."""
    readouts = [t.value for t in at.text if t.value.startswith("step ")]
    assert len(readouts) == 1, readouts
    return readouts[0]


def diagram_rows(at: AppTest) -> list[dict]:
    """The rows the page's one diagram chart was sent (Arrow, as the browser gets them)."""
    [chart] = at.get("vega_lite_chart")
    return pa.ipc.open_stream(chart.proto.data.data).read_all().to_pylist()


def node_click(drill: str) -> dict:
    """What the browser sends back when a diagram node is clicked: the
    selection named in the spec, holding the node's ``drill`` field."""
    from lens.diagram_chart import DRILL_PARAM
    return {"selection": {DRILL_PARAM: [{"drill": drill}]}}


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

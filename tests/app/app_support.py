"""Helpers for the AppTest suites: the app's path, corpus files, and readouts."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from streamlit.testing.v1 import AppTest

from corpus_files import load_expected, read_bytes, recording_path

from lens_ui.served_context import SERVED_TABS_KEY
from lens_ui.step_panel import DETAIL_PANE, SERVED, THIS_STEP

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


def open_run_details(at: AppTest) -> AppTest:
    """Open the run bar's "Run details" popover, as a user clicks it (drawn only while open)."""
    from lens_ui.header import RUN_DETAILS
    at.session_state[RUN_DETAILS] = True
    at.run()
    no_exception(at)
    return at


def open_served_context(at: AppTest, tab: str | None = None) -> AppTest:
    """Choose the detail pane's served context, and one of its tabs, as a user
    clicks them (only the chosen pane and tab are drawn)."""
    return open_detail_pane(at, SERVED, **({} if tab is None else {SERVED_TABS_KEY: tab}))


def served_context_shown(at: AppTest) -> bool:
    """Whether the served-context panel shows a model call: its slot switch is drawn."""
    return any(s.proto.id.endswith(SERVED_TABS_KEY) for s in at.get("button_group"))


def open_detail_pane(at: AppTest, pane: str, **state: object) -> AppTest:
    """Choose ``pane`` in the detail pane's switch (and set any other ``state``), then rerun."""
    at.session_state[DETAIL_PANE] = pane
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    no_exception(at)
    return at


MAX_STEPS = 5


def no_panel_failed(at: AppTest) -> None:
    failures = [e.value for e in at.error if "could not be shown" in e.value]
    assert not failures, failures


def open_upload(app: AppTest, data: bytes, name: str = "upload.json") -> AppTest:
    """Upload ``data`` on the run page, with the served context chosen."""
    at = app.run()
    at.file_uploader(key="lens.uploader").set_value((name, data, "application/json"))
    at.session_state[DETAIL_PANE] = SERVED
    return at.run()


def walk_the_pages(at: AppTest) -> None:
    """Every step of the run page (up to MAX_STEPS), then the raw events page."""
    no_exception(at)
    no_panel_failed(at)
    total = int(caption(at).split(" of ")[1].split(" ")[0])
    for _ in range(min(total, MAX_STEPS) - 1):
        at.button(key="lens.next").click().run()
        no_exception(at)
        no_panel_failed(at)
        # The detail pane shows one part at a time: the step's detail as well.
        at.session_state[DETAIL_PANE] = THIS_STEP if at.session_state[DETAIL_PANE] == SERVED \
            else SERVED
        at.run()
        no_exception(at)
        no_panel_failed(at)
    at.switch_page("lens_ui/app/page_scripts/raw_events.py").run()
    no_exception(at)
    no_panel_failed(at)
    assert len(at.dataframe) >= 1


def family_upload(app: AppTest, case: str) -> AppTest:
    """The app with family recording ``case`` (tests/data/families) uploaded and open."""
    import gzip

    from family_files import family_recording

    at = app.run()
    data = gzip.decompress(family_recording(case).read_bytes())
    at.file_uploader(key="lens.uploader").set_value((f"{case}.json", data, "application/json"))
    at.run()
    no_exception(at)
    return at

"""Files with several runs, bug reports and event streams in the app: a run is
picked by its own words and named by the link; a report's words are shown
beside its run as text; a stream says plainly that steps need the boundary log."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from pathlib import Path

from streamlit.testing.v1 import AppTest

from app_support import APP, ROOT, TIMEOUT, no_exception
from lens_ui import session
from lens_ui.compare_state import SELECT_A
from lens_ui.run_picker import RUN_IN_FILE

DATA = Path(__file__).resolve().parents[1] / "data" / "follow"
STREAMS = ("agent-tool.events.ndjson", "agent-failing-tool.events.ndjson")


def two_run_stream() -> bytes:
    return b"".join((DATA / name).read_bytes() for name in STREAMS)


def stream_facts(name: str) -> dict:
    """What a stream file says of its run, read here line by line."""
    events = [json.loads(line) for line in (DATA / name).read_bytes().splitlines() if line]
    prompt = next(e["payload"]["userPrompt"] for e in events
                  if e["type"] == "agentfootprint.agent.turn_start")
    return {"runId": events[0]["meta"]["runId"], "prompt": prompt,
            "modelCalls": sum(e["type"] == "agentfootprint.stream.llm_start" for e in events)}


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="lens.uploader").set_value((name, data, "application/octet-stream"))
    at.run()
    no_exception(at)
    return at


def texts(at: AppTest) -> list[str]:
    return [t.value for t in at.text]


def test_a_stream_with_two_runs_offers_each_by_its_own_words_and_the_link_names_it(app):
    first, second = stream_facts(STREAMS[0]), stream_facts(STREAMS[1])
    at = upload(app.run(), "events.ndjson", two_run_stream())
    picker = at.selectbox(key=RUN_IN_FILE)
    labels = list(picker.options)
    assert len(labels) == 2
    for label, facts in zip(labels, (first, second)):
        assert facts["runId"] in label and facts["prompt"] in label
    assert at.query_params["runid"] == first["runId"]

    picker.set_value(1).run()
    no_exception(at)
    assert at.session_state[session.RUN].run_index == 1
    assert at.query_params["runid"] == second["runId"]
    assert any("run 2 of 2" in t and second["runId"] in t for t in texts(at))
    assert any(c.value.startswith(f"{second['modelCalls']} model calls") for c in at.caption)

    # The link opens the same run of the same file in another browser session.
    other = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    other.query_params.update(dict(at.query_params))
    other.run()
    no_exception(other)
    assert other.session_state[session.RUN] == at.session_state[session.RUN]
    assert any("run 2 of 2" in t and second["runId"] in t for t in texts(other))


def test_a_link_naming_no_run_of_the_file_shows_its_first_and_says_so(app):
    at = upload(app.run(), "events.ndjson", two_run_stream())
    other = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    other.query_params.update({"upload": at.query_params["upload"], "runid": "run-nope"})
    other.run()
    no_exception(other)
    assert other.session_state[session.RUN].run_index == 0
    assert any("not one of this file's runs" in i.value for i in other.info)


def test_a_compare_side_names_a_run_of_a_file_with_several(app):
    second = stream_facts(STREAMS[1])
    at = upload(app.run(), "events.ndjson", two_run_stream())
    digest = at.query_params["upload"]
    page = AppTest.from_file(str(ROOT / "lens_ui" / "app" / "page_scripts" / "compare.py"), default_timeout=TIMEOUT)
    ref = f"upload:{digest}#runid={second['runId']}"
    page.query_params.update({"a": ref, "b": "sample:llmcall-single"})
    page.run()
    no_exception(page)
    assert page.session_state[SELECT_A] == ref
    assert page.query_params["a"] == ref


def test_an_event_stream_opens_on_its_calls_and_says_steps_need_the_boundary_log(app):
    at = upload(app.run(), "events.ndjson", (DATA / STREAMS[0]).read_bytes())
    said = " ".join(i.value for i in at.info)
    assert "event stream" in said and "boundary log" in said and "Steps" in said
    assert at.session_state[session.TAB] == session.TIMELINE_TAB
    assert any(" model call" in c.value and " tool call" in c.value and "(s)" not in c.value
               for c in at.caption)  # the timeline is drawn
    assert "run" not in at.query_params  # the upload, not the sample, is open


def report_zip(**fields: str) -> bytes:
    """The sample bug report with the report's words replaced by ``fields``."""
    source = zipfile.ZipFile(io.BytesIO(gzip.decompress((DATA / "bug-report.zip.gz").read_bytes())))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "manifest.json":
                manifest = json.loads(data)
                manifest["report"].update(fields)
                data = json.dumps(manifest).encode()
            target.writestr(info.filename, data)
    return out.getvalue()


def test_a_bug_report_shows_its_title_expected_and_actual_beside_the_run_as_text(app):
    title = "<b>Refund</b> agent *loops* [click](javascript:alert(1))"
    expected = "The weather for Paris"
    actual = "<script>alert('x')</script> get_weather failed"
    at = upload(app.run(), "bug-report.zip",
                report_zip(title=title, expected=expected, actual=actual))
    shown = texts(at)
    assert title in shown and expected in shown and actual in shown
    assert "1. run the generator" in shown  # steps to reproduce, as written
    markdown = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "<script>" not in markdown and "*loops*" not in markdown
    assert any(c.value == "Bug report" for c in at.caption)

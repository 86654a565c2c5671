"""Files with several runs and bug reports in Chromium: a two-run event stream
is uploaded, its second run picked by its own words (the link names it); a bug
report zip is uploaded and its title, expected and actual stand beside the
run as text."""

from __future__ import annotations

import gzip
import io
import json
import re
import zipfile

import pytest
from playwright.sync_api import expect

from lens_browser import REPO
from lens_page import IDLE_TIMEOUT_MS, LensPage, key_class

pytestmark = pytest.mark.browser
DATA = REPO / "tests" / "data" / "follow"
STREAMS = ("agent-tool.events.ndjson", "agent-failing-tool.events.ndjson")
SCREEN = {"width": 1280, "height": 720}


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


def first_event(name: str) -> dict:
    return json.loads((DATA / name).read_bytes().splitlines()[0])


def prompt_of(name: str) -> str:
    for line in (DATA / name).read_bytes().splitlines():
        event = json.loads(line)
        if event["type"] == "agentfootprint.agent.turn_start":
            return event["payload"]["userPrompt"]
    raise AssertionError(f"{name} has no turn_start")


def send(lens: LensPage, path) -> None:
    uploader = lens.page.locator(f".{key_class('lens.uploader')} input[type=file]")
    uploader.set_input_files(str(path))
    expect(lens.page.locator('[data-testid="stSidebar"]').get_by_role(
        "button", name=f"Remove {path.name}")).to_be_visible(timeout=IDLE_TIMEOUT_MS)
    lens.wait_idle()


def main_text(lens: LensPage) -> str:
    return lens.page.locator('[data-testid="stMain"]').inner_text()


def test_a_run_of_a_two_run_stream_is_picked_by_its_own_words(lens, tmp_path):
    stream = tmp_path / "events.ndjson"
    stream.write_bytes(b"".join((DATA / name).read_bytes() for name in STREAMS))
    second_id = first_event(STREAMS[1])["meta"]["runId"]
    lens.open()
    send(lens, stream)
    picker = lens.page.locator(f".{key_class('lens.run_in_file')}").get_by_role("combobox")
    expect(picker).to_have_value(re.compile(r"^run 1 · "), timeout=IDLE_TIMEOUT_MS)
    picker.click()
    option = lens.page.get_by_role("option").filter(has_text=prompt_of(STREAMS[1]))
    expect(option).to_contain_text(second_id)
    option.click()
    lens.wait_idle()
    expect(picker).to_have_value(re.compile(r"^run 2 · "))
    expect(lens.page).to_have_url(re.compile(r"[?&]runid=" + re.escape(second_id)))
    bar = lens.page.locator(f".{key_class('lens-run-bar')}")
    expect(bar).to_contain_text("run 2 of 2")
    expect(bar).to_contain_text(second_id)
    assert "boundary log" in main_text(lens)  # steps need it: said plainly
    lens.screenshot("second-run-of-stream")


def report_zip(**fields: str) -> bytes:
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


def test_a_bug_report_shows_title_expected_and_actual_beside_its_run(lens, tmp_path,
                                                                    screenshot_dir):
    words = {"title": "Weather desk: <b>get_weather</b> 503 and the answer *still* claims sun",
             "stepsToReproduce": "1. Ask for the week's weather in Paris\n2. Let the tool fail",
             "expected": "The agent says the forecast is unavailable",
             "actual": "<img src=x onerror=alert(1)> It answers: sunny all week"}
    report = tmp_path / "bug-report.zip"
    report.write_bytes(report_zip(**words))
    lens.page.set_viewport_size(SCREEN)
    lens.open()
    send(lens, report)
    panel = lens.page.locator(f".{key_class('lens-bug-report')}")
    expect(panel).to_be_visible(timeout=IDLE_TIMEOUT_MS)
    for text in (words["title"], words["expected"], words["actual"]):
        expect(panel).to_contain_text(text)  # as written: the markup is characters
    assert panel.locator("b, img").count() == 0
    lens.step_label_locator().wait_for(timeout=IDLE_TIMEOUT_MS)
    lens.wait_idle()
    lens.page.screenshot(path=str(screenshot_dir / "bug-report-run.png"))

"""Sessions in a real browser: two uploads called recording.json stay two runs,
a reload reopens the upload, another browser never sees it, and a subflow id
holding "/" drills into its own scope by click and by link."""

from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from lens_browser import CORPUS, REPO, VIEWPORT
from lens_page import DIAGRAM, LensPage, key_class

pytestmark = pytest.mark.browser

FIRST = CORPUS / "llmcall-single" / "recording.json"
SECOND = CORPUS / "conditional-triage-llmcall" / "recording.json"


def plain(path: Path) -> bytes:
    data = path.read_bytes() if path.exists() else gzip.decompress(
        path.with_suffix(".json.gz").read_bytes())
    return data


def as_recording_json(folder: Path, data: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "recording.json"
    path.write_bytes(data)
    return path


def short(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:8]


def picker_value(lens: LensPage) -> str:
    return lens.page.locator(f".{key_class('lens.run_select')}").get_by_role(
        "combobox").input_value()


def query(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(page.url).query).items()}


@pytest.fixture
def lens(page, screenshot_dir, request) -> LensPage:
    return LensPage(page, screenshot_dir, request.node.name)


def test_two_uploads_called_recording_json_stay_two_runs(lens, tmp_path):
    first, second = plain(FIRST), plain(SECOND)
    lens.open()
    lens.upload(as_recording_json(tmp_path / "a", first))
    assert short(first) in picker_value(lens)
    lens.upload(as_recording_json(tmp_path / "b", second))
    assert short(second) in picker_value(lens)
    shown = lens.step_label().text
    # The projection switch keeps the run (and the sidebar agrees).
    lens.page.locator(f".{key_class('lens.profile_switch')}").get_by_text(
        re.compile(r"^reference")).click()
    lens.wait_idle()
    assert short(second) in picker_value(lens)
    expect(lens.page.locator('[data-testid="stMain"]')).to_contain_text(short(second))
    lens.page.locator(f".{key_class('lens.profile_switch')}").get_by_text(
        re.compile(r"^lens")).click()
    lens.wait_idle()
    assert lens.step_label().text == shown
    # A refused upload with the same name says why and changes nothing.
    bad = as_recording_json(tmp_path / "c", b'{"hello": "world"}')
    lens.page.locator(f".{key_class('lens.uploader')} input[type=file]").set_input_files(str(bad))
    expect(lens.page.locator('[data-testid="stSidebar"] [data-testid="stAlertContentError"]')
           ).to_contain_text("The run on screen is unchanged")
    lens.wait_idle()
    assert short(second) in picker_value(lens) and lens.step_label().text == shown
    lens.screenshot("refused-upload-keeps-the-run")
    # Both uploads are listed, told apart, and the first still opens as itself.
    lens.page.locator(f".{key_class('lens.run_select')}").get_by_role("combobox").click()
    options = lens.page.get_by_role("option").all_inner_texts()
    uploads = [o for o in options if o.startswith("⬆ recording.json")]
    assert len(uploads) == 2 and len(set(uploads)) == 2
    lens.page.get_by_role("option").filter(has_text=short(first)).click()
    lens.wait_idle()
    assert short(first) in picker_value(lens)
    expect(lens.page.locator('[data-testid="stMain"]')).to_contain_text(short(first))


def test_a_reload_reopens_the_upload_at_its_step(lens, tmp_path):
    second = plain(SECOND)
    lens.open()
    lens.upload(as_recording_json(tmp_path, second))
    label, _ = lens.step_by("next")
    assert query(lens.page)["upload"] == hashlib.sha256(second).hexdigest()
    lens.page.reload()
    lens.wait_idle(grace=0)
    lens.step_label_locator().wait_for()
    lens.wait_idle()
    assert lens.step_label().text == label.text
    assert short(second) in picker_value(lens)
    lens.screenshot("reloaded-upload")


def test_another_browser_never_sees_the_upload_unless_given_its_link(lens, tmp_path, browser,
                                                                     lens_server):
    second = plain(SECOND)
    lens.open()
    lens.upload(as_recording_json(tmp_path, second))
    link = lens.page.url
    other = browser.new_context(viewport=VIEWPORT, base_url=lens_server.url)
    try:
        stranger = LensPage(other.new_page(), lens.screenshot_dir, "stranger")
        stranger.open()
        stranger.page.locator(f".{key_class('lens.run_select')}").get_by_role("combobox").click()
        options = stranger.page.get_by_role("option").all_inner_texts()
        assert options and not [o for o in options if o.startswith("⬆")]
        assert short(second) not in stranger.page.locator('[data-testid="stMain"]').inner_text()
        # The documented rule: whoever has the link (the file's digest) may open it.
        stranger.page.goto(link)
        stranger.wait_idle(grace=0)
        stranger.step_label_locator().wait_for()
        expect(stranger.page.locator('[data-testid="stMain"]')).to_contain_text(short(second))
    finally:
        other.close()


SLASHED_NAME = "step-reviewers/style"


def test_a_subflow_id_with_a_slash_drills_into_its_own_scope(lens, tmp_path):
    data = (REPO / "sample_runs" / "nested-sequence-with-parallel.json").read_bytes().replace(
        b"step-summarise", SLASHED_NAME.encode())
    lens.open()
    lens.upload(as_recording_json(tmp_path, data))
    # By click: the diagram's node for the subflow called "step-reviewers/style",
    # found by its accessible name (the label beside it is cut to fit its column).
    diagram = lens.page.locator(DIAGRAM).first
    diagram.locator(f'svg [role="graphics-symbol"][aria-label="{SLASHED_NAME}"]').click()
    expect(lens.crumb_buttons()).to_have_count(2)
    lens.wait_idle()
    assert lens.crumbs() == ["⌂ root", SLASHED_NAME]
    assert query(lens.page)["drill"] == "__root__/step-reviewers%2Fstyle"
    lens.screenshot("slashed-subflow-by-click")
    # By link: the escaped form is that scope, the plain form the nested reviewer.
    base = lens.page.url.split("?")[0]
    upload = query(lens.page)["upload"]
    lens.page.goto(f"{base}?upload={upload}&drill=__root__/step-reviewers%252Fstyle")
    lens.wait_idle(grace=0)
    lens.step_label_locator().wait_for()
    lens.wait_idle()
    assert lens.crumbs() == ["⌂ root", SLASHED_NAME]
    lens.page.goto(f"{base}?upload={upload}&drill=__root__/step-reviewers/style")
    lens.wait_idle(grace=0)
    lens.step_label_locator().wait_for()
    lens.wait_idle()
    assert lens.crumbs() == ["⌂ root", "step-reviewers", "style"]

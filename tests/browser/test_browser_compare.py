"""The Compare page in Chromium: two uploads, the first difference, the served diff,
hostile strings in both runs left inert, and a screenshot for docs/compare.md."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

import lens_dom
from lens_browser import CORPUS, REPO
from lens_page import LensPage, key_class

pytestmark = pytest.mark.browser

PAIR = CORPUS / "pairs" / "refund-tool-fails-vs-succeeds"
HOSTILE = CORPUS / "hostile-strings-agent" / "recording.json.gz"


def _choose(lens: LensPage, key: str, text: str) -> None:
    box = lens.page.locator(f".{key_class(key)}").get_by_role("combobox")
    box.click()
    lens.page.get_by_role("option").filter(has_text=text).first.click()
    lens.wait_idle()


def _compare(lens: LensPage, a: Path, b: Path) -> None:
    lens.open()
    lens.upload(a)
    lens.upload(b)
    lens.open_page_link("compare")
    # The page starts on the two uploads, each named by its own words and its digest's start.
    for key, path in (("lens.compare.select_a", a), ("lens.compare.select_b", b)):
        box = lens.page.locator(f".{key_class(key)}").get_by_role("combobox")
        expect(box).to_have_value(re.compile(re.escape(_digest(path)[:8])))
        _choose(lens, key, _digest(path)[:8])


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_compare_two_uploads_shows_where_they_part(page, screenshot_dir, request, tmp_path):
    lens = LensPage(page, screenshot_dir, request.node.name)
    a, b = tmp_path / "refund-a.json", tmp_path / "refund-b.json"
    shutil.copy(PAIR / "a" / "recording.json", a)
    shutil.copy(PAIR / "b" / "recording.json", b)
    _compare(lens, a, b)
    main = page.locator('[data-testid="stMain"]')
    # Where they part, in words first; the event's field one click down.
    expect(main.get_by_text("The runs part at step 6 of 8, in both runs: a tool's result "
                            "differs.", exact=True)).to_be_in_viewport()
    expect(main.get_by_text("field: payload.result")).to_be_hidden()
    main.get_by_text("The differing events").click()
    expect(main.get_by_text("field: payload.result")).to_be_visible()
    expect(main.get_by_text("◆ first difference").first).to_be_visible()
    expect(main.locator('[data-testid="stCode"]').filter(has_text="502 Bad Gateway").first
           ).to_be_visible()
    assert "a=upload" in page.url and "b=upload" in page.url
    lens.screenshot("compare")  # docs/compare-page.png is a copy of it, refreshed by hand
    # How each run ended, in the run page's sentence, then the whole answer it returned.
    answers = json.loads((PAIR / "expected-compare.json").read_text("utf-8"))["finalAnswer"]
    ended = main.get_by_text(re.compile(r"^The run answered after \d+ model calls: “"))
    expect(ended).to_have_count(2)
    ended.first.scroll_into_view_if_needed()
    # A's answer is short enough for the sentence to quote whole; B's is cut
    # there, so it follows in full.
    expect(ended.filter(has_text=answers["a"])).to_be_visible()
    expect(main.locator('[data-testid="stCode"]').filter(has_text=answers["a"][:40])
           ).to_have_count(0)
    expect(main.locator('[data-testid="stCode"]').filter(has_text=answers["b"][-40:])
           ).to_be_visible()
    lens.screenshot("compare-endings")


def test_hostile_strings_in_both_runs_stay_inert(page, screenshot_dir, request, tmp_path):
    lens = LensPage(page, screenshot_dir, request.node.name)
    data = gzip.decompress(HOSTILE.read_bytes())
    document = json.loads(data)
    recording = document.get("recording", document)
    last_end = max(i for i, e in enumerate(recording["events"])
                   if e["type"].endswith("stream.llm_end"))
    recording["events"][last_end]["payload"]["content"] = (
        "<img src=x onerror=alert(2)><script>alert('b')</script>"
        "![p](https://attacker.example/b.gif)")
    a, b = tmp_path / "hostile-a.json", tmp_path / "hostile-b.json"
    a.write_bytes(data)
    b.write_text(json.dumps(document), "utf-8")
    lens.open()
    baseline = lens_dom.probe(page)
    _compare(lens, a, b)
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text(re.compile(r"^The runs part at step"))).to_be_visible()
    main.get_by_text("The differing events").click()
    expect(main.get_by_text("field: payload.content")).to_be_visible()
    found = lens_dom.probe(page)
    assert not lens_dom.problems(found, baseline)
    lens.screenshot("compare-hostile")

"""The pieces the Archive page's "Export labelled runs" download is made of:
one JSON line per run (a line is a line for every reader), and one redaction
plan over all the lines (a value has the same mask on every line)."""

from __future__ import annotations

import json
import re

from archive.dataset import jsonl_line, redact_lines
from lens.share.redaction import Redactor


def test_a_line_is_one_line_whatever_the_text_holds():
    line = {"finalAnswer": "one\u2028two\u2029three\nfour", "note": "<script>alert(1)</script>"}
    text = jsonl_line(line)
    assert text.endswith("\n") and text.count("\n") == 1
    assert "\u2028" not in text and "\u2029" not in text
    assert json.loads(text) == line  # hostile strings stay the text they were


def test_one_plan_masks_a_value_the_same_on_every_line():
    lines = [{"file": "a.json", "userMessage": "mail ops@example.com please"},
             {"file": "b.json", "labels": [{"note": "ops@example.com again"}]}]
    masked, report = redact_lines(lines, Redactor())
    assert "ops@example.com" not in json.dumps(masked)
    mask = re.search(r"\[email \d+\]", masked[0]["userMessage"]).group(0)
    assert masked[1]["labels"][0]["note"] == f"{mask} again"
    assert report.counts.get("email") == 1
    assert lines[0]["userMessage"] == "mail ops@example.com please"  # the input is not changed

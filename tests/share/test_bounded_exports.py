"""Exports stay bounded on a packed file that stands for far more than it holds (#40 item 5).

The hostile file is built here: tests/data/share/packed.json with its first
tool's result replaced by a value that doubles a few hundred characters of
text ``LEVELS`` times (``values[k] = [ref k-1, ref k-1]``), so the packed file
grows by a few hundred bytes and the result's JSON by 2**LEVELS copies, inside
the loader's expansion bound. The tool call failed, so its result is the
span's status message too, contents or not.

Checked: every text of the OTLP document (attribute values, event attributes,
names, status messages) is at most :data:`lens.share.otlp.CUT_CHARS` plus the
marker, the marker gives the text's whole length (the length of the JSON the
recording stands for, measured here by writing it), the kept part is the
start of that JSON, the spans file stays small and the export does not write
the value whole (its peak allocation is measured); a secret that the cut
would split is masked, not half kept; the cut text's start and length agree
with ``json_text`` on values of every JSON kind; the HTML page of the same
file keeps its bound and says how much it left out.
"""

from __future__ import annotations

import json
import re
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from lens_cli.main import main as lens_main
from lens.run import open_run
from lens.share import otlp
from lens.share.html import WHOLE_TEXT_CHARS, export_file_bytes
from lens.text import LARGE_VALUE_CHARS, display_text
from lens.share.otlp import CUT_CHARS, otlp_document
from recorders.json_measure import json_length, json_start
from recorders.packed import MAX_EXPANDED_ENV
from recorders.values import json_text

PACKED = Path(__file__).resolve().parents[1] / "data" / "share" / "packed.json"
# 2**14 copies of 300 characters: about 5 MB of JSON from a packed file of about 100 KB.
LEVELS = 14
BASE_CHARS = 300
# The loader's bound, made small: the hostile file must be inside it.
BOUND_MB = 32
MARKER = re.compile(r"… ⟨cut: the recorded text is ([0-9,]+) characters; "
                    r"the first ([0-9,]+) are here⟩$")
MB = 1024 * 1024


def _hostile(levels: int = LEVELS, text: str | None = None) -> tuple[bytes, Any]:
    """The packed file (compact, as packRecording writes it) and the first tool's
    result it stands for, expanded (shared, as the loader expands it)."""
    document = json.loads(PACKED.read_bytes())
    values = document["values"]
    events = document["recording"]["events"]
    first_end = next(e for e in events if e["type"].endswith("stream.tool_end"))
    base = len(values)
    if text is None:
        text = (json.dumps({"city": "San Francisco", "tempC": 14, "note": "line\n\"quoted\"\t"})
                * 8)[:BASE_CHARS]
    values.append(text)
    value: Any = text
    for level in range(1, levels + 1):
        values.append([{"$af:ref": base + level - 1}, {"$af:ref": base + level - 1}])
        value = [value, value]
    first_end["payload"]["result"] = {"$af:ref": base + levels}
    first_end["payload"]["error"] = True
    return json.dumps(document, separators=(",", ":")).encode(), value


@pytest.fixture
def small_bound(monkeypatch):
    monkeypatch.setenv(MAX_EXPANDED_ENV, str(BOUND_MB))


def _texts(value: Any, key: Any = None):
    """Every (key, string) of an OTLP document that is text of the run."""
    if isinstance(value, str):
        if key not in otlp._NOT_TEXT:  # noqa: SLF001 - the document's own list of non-texts
            yield key, value
        return
    if isinstance(value, (dict, list)):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for inner_key, item in items:
            yield from _texts(item, inner_key)


def _string_values(document: dict) -> list[str]:
    found = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "stringValue" in value:
                found.append(value["stringValue"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(document)
    return found


def _tool_span(document: dict, name: str = "get_weather") -> dict:
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    return next(s for s in spans if s["name"] == f"execute_tool {name}")


def _attribute(span: dict, key: str) -> str:
    return next(a["value"]["stringValue"] for a in span["attributes"] if a["key"] == key)


def test_the_hostile_file_is_small_and_inside_the_bound(small_bound):
    data, value = _hostile()
    assert len(data) < 120_000
    whole = len(json.dumps(value, ensure_ascii=False))
    assert 50 * len(data) < whole < BOUND_MB * MB  # far more than it holds, and still opened
    run = open_run(data)
    assert run.evidence.tool_calls[0].result is not None


@pytest.mark.parametrize("content", [False, True], ids=["plain", "content"])
def test_every_otlp_text_is_cut_with_a_marker_that_gives_its_whole_length(small_bound, content):
    data, value = _hostile()
    whole = json_text(value)
    document = otlp_document(open_run(data), content=content)
    for key, text in _texts(document):
        assert len(text) <= CUT_CHARS + len(otlp.CUT_MARKER) + 20, (key, len(text))
    for text in _string_values(document):
        marked = MARKER.search(text)
        assert len(text) <= CUT_CHARS or marked
    span = _tool_span(document)
    cut = [span["status"]["message"]]
    if content:
        cut.append(_attribute(span, "gen_ai.tool.call.result"))
    for text in cut:
        marked = MARKER.search(text)
        assert marked, text[-200:]
        assert int(marked[1].replace(",", "")) == len(whole)
        assert int(marked[2].replace(",", "")) == CUT_CHARS
        assert text[:marked.start()] == whole[:CUT_CHARS]
    spans_file = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
    assert len(spans_file) < 1 * MB


def test_the_export_does_not_write_the_value_whole(small_bound):
    data, value = _hostile(LEVELS + 2)  # about 20 MB of JSON
    run = open_run(data)
    tracemalloc.start()
    try:
        document = otlp_document(run, content=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The old export wrote the result whole (twice: status and attribute).
    assert peak < 4 * MB, peak
    assert MARKER.search(_attribute(_tool_span(document), "gen_ai.tool.call.result"))


def test_the_cli_writes_a_small_spans_file(small_bound, tmp_path):
    data, _ = _hostile()
    source, out = tmp_path / "hostile.json", tmp_path / "spans.json"
    source.write_bytes(data)
    assert lens_main(["export", "otlp", "--content", str(source), "-o", str(out)]) == 0
    assert out.stat().st_size < 1 * MB
    document = json.loads(out.read_text(encoding="utf-8"))
    assert MARKER.search(_tool_span(document)["status"]["message"])


def test_a_secret_the_cut_would_split_is_masked_not_half_kept(small_bound):
    from lens.share.redaction import Redactor

    secret = "zq7localpart@example.org"
    text = "a" * (CUT_CHARS - 5) + " " + secret + " " + "b" * 500
    data, _ = _hostile(levels=0, text=text)
    document = otlp_document(open_run(data), content=True, redactor=Redactor())
    result = _attribute(_tool_span(document), "gen_ai.tool.call.result")
    assert MARKER.search(result)
    assert "zq7" not in json.dumps(document, ensure_ascii=False)
    assert "example.org" not in json.dumps(document, ensure_ascii=False)
    # The mask reaching over the cut is cut, never the address it stands for.
    assert result.startswith("a" * (CUT_CHARS - 5) + " [ema")


def test_a_cut_text_that_is_not_a_secret_keeps_its_start(small_bound):
    from lens.share.redaction import Redactor

    text = "c" * (CUT_CHARS + 10_000)
    data, _ = _hostile(levels=0, text=text)
    document = otlp_document(open_run(data), content=True, redactor=Redactor())
    result = _attribute(_tool_span(document), "gen_ai.tool.call.result")
    assert result == "c" * CUT_CHARS + otlp.CUT_MARKER.format(length=len(text), kept=CUT_CHARS)


VALUES = [
    {}, [], "", None, True, False, 0, -7, 2**70, 1.5, -0.0, 1e300, float("nan"),
    float("inf"), float("-inf"), ("a", 1),
    {"a": [1, 2.25, {"b": None}], "": "", "q\"uote": "back\\slash\n\t\b\f\r\x01\x1f\x7f"},
    {1: "x", 2.5: "y", True: [], None: {}},
    ["é", "😀", "\u2028", "\ud800", [[[]]], {"k": ()}],
    [{"long": "x" * 700}, "y" * 300, ["z" * 300] * 3],
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_the_bounded_writer_agrees_with_json_text(value):
    whole = json.dumps(value, ensure_ascii=False, default=str)
    if not isinstance(value, str):
        assert whole == json_text(value)
    assert json_length(value) == len(whole)
    for limit in sorted({0, 1, 2, 3, 5, 8, 13, len(whole) // 2, len(whole) - 1,
                         len(whole), len(whole) + 1}):
        if limit >= 0:
            assert json_start(value, limit) == whole[:limit], limit


def test_shared_objects_are_measured_once():
    leaf = "x" * 1000
    value: Any = leaf
    for _ in range(200):  # 2**200 copies: written whole it would never end
        value = [value, value]
    length = json_length(value)
    assert length == 2**200 * 1002 + (2**200 - 1) * 4  # each list: [a, b]
    assert json_start(value, 50) == "[" * 50


def test_the_html_page_of_the_hostile_file_is_bounded(small_bound):
    data, value = _hostile()
    page = export_file_bytes(data, "hostile.json")
    assert page.size < 2 * MB
    # A value this large is shown from its start on one line: the page says how
    # much of that line it left out.
    whole = len(json.dumps(value, ensure_ascii=False))
    assert whole > LARGE_VALUE_CHARS
    hidden = f",{whole - WHOLE_TEXT_CHARS}]"
    assert hidden in page.html


def test_the_html_export_does_not_write_the_value_whole(small_bound):
    data, value = _hostile(LEVELS + 2)  # about 20 MB of JSON, 4x the text of LEVELS
    tracemalloc.start()
    try:
        page = export_file_bytes(data, "hostile.json")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Writing the result whole (as the step panel, the causes and the served
    # context each did) peaks at several times its 20 MB.
    assert peak < 16 * MB, peak
    assert page.size < 2 * MB
    assert f",{json_length(value) - WHOLE_TEXT_CHARS}]" in page.html  # the left-out count


def test_a_large_value_on_screen_is_its_start_and_its_whole_length():
    _, value = _hostile(LEVELS)
    whole = json.dumps(value, ensure_ascii=False)
    shown = display_text(value, 500)
    assert shown.text == whole[:500] and shown.length == len(whole)
    assert shown.hidden_chars == len(whole) - 500 and shown.truncated
    assert shown.start(10_000) == whole[:10_000]
    assert shown.full == whole  # written whole only when asked


def test_a_small_value_on_screen_is_indented_as_before():
    value = {"city": "Oslo", "days": [1, 2]}
    shown = display_text(value, 5)
    assert shown.full == json.dumps(value, ensure_ascii=False, indent=2)
    assert shown.text == shown.full[:5] and shown.length == len(shown.full)
"""``footprint-lens export html``: one self-contained page per run.

What is checked here without a browser: the page's structure (one data block,
one script, one style, a Content-Security-Policy that allows only those two by
their hashes and loads nothing), that recorded text cannot leave the data
block (hostile strings round-trip as data), the size bound, and that every
step of every scope is in the page with its "step K of N" label. The browser
side (opens from file://, no request, keys step it) is
tests/browser/test_browser_html_export.py.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from corpus_files import case_names, read_bytes, recording_path
from family_files import family_names, family_recording
from lens_cli.main import main
from lens.run import open_run
from lens.scopes import ROOT
from lens.share.html import export_run, script_json

MB = 1024 * 1024
HOSTILE = "hostile-strings-agent"


class _Page(HTMLParser):
    """The elements that matter: every tag with its attributes, and each script's text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[tuple[dict, str]] = []
        self.styles: list[str] = []
        self._open: str | None = None
        self._attrs: dict = {}
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._open, self._attrs, self._text = tag, dict(attrs), []

    def handle_data(self, data):
        if self._open:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == self._open:
            text = "".join(self._text)
            if tag == "script":
                self.scripts.append((self._attrs, text))
            else:
                self.styles.append(text)
            self._open = None


def _parse(page: str) -> _Page:
    parsed = _Page()
    parsed.feed(page)
    parsed.close()
    return parsed


def _policy(parsed: _Page) -> dict[str, list[str]]:
    metas = [a for tag, a in parsed.tags if tag == "meta"
             and a.get("http-equiv", "").lower() == "content-security-policy"]
    assert len(metas) == 1, metas
    directives = {}
    for part in metas[0]["content"].split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _data(parsed: _Page) -> dict:
    blocks = [text for attrs, text in parsed.scripts if attrs.get("type") == "application/json"]
    assert len(blocks) == 1
    return json.loads(blocks[0])


@pytest.fixture(scope="module")
def exports() -> dict[str, tuple[bytes, str]]:
    """Each corpus case: its recording's bytes and its page."""
    pages = {}
    for case in case_names():
        data = read_bytes(recording_path(case))
        pages[case] = (data, export_run(open_run(data), recording_path(case).name).html)
    return pages


def test_page_has_one_script_one_style_and_a_policy_that_allows_only_them(exports):
    for case, (_, page) in exports.items():
        parsed = _parse(page)
        code = [text for attrs, text in parsed.scripts if attrs.get("type") != "application/json"]
        assert len(code) == 1 and len(parsed.styles) == 1, case
        policy = _policy(parsed)
        assert policy["default-src"] == ["'none'"], case
        assert policy["script-src"] == [_hash(code[0])], case
        assert policy["style-src"] == [_hash(parsed.styles[0])], case
        assert policy["img-src"] == ["data:"], case
        for directive in ("connect-src", "font-src", "frame-src", "object-src"):
            assert directive not in policy, f"{case}: {directive} loosens default-src 'none'"
        # Nothing on the page names anything to load but the data: favicon.
        loads = [(tag, attrs) for tag, attrs in parsed.tags
                 if "src" in attrs or ("href" in attrs and attrs["href"] != "data:,")]
        assert loads == [], (case, loads)


def test_hostile_strings_cannot_leave_the_data_block():
    hostile = {"a": "</script><script>alert(1)</script>", "b": "<!-- <script>",
               "c": "line\u2028separator\u2029paragraph", "d": "</SCRIPT >", "e": "<\\/script>"}
    hostile["f"] = "lone \ud800 surrogate"  # a recording's "\\ud800": no UTF-8 for it
    text = script_json(hostile)
    assert "<" not in text and "\u2028" not in text and "\u2029" not in text
    text.encode("utf-8")  # writable as the page's UTF-8
    assert json.loads(text) == hostile


def test_hostile_recording_page_round_trips_its_text_as_data(exports):
    data, page = exports[HOSTILE]
    parsed = _parse(page)
    # Two scripts only: the recording's <script> tags stayed inside the JSON text.
    assert len(parsed.scripts) == 2
    assert [tag for tag, _ in parsed.tags].count("script") == 2
    exported = _data(parsed)
    recorded = json.dumps(json.loads(data)["events"], ensure_ascii=False)
    for planted in ("<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
                    "<svg/onload=alert(1)>"):
        assert planted in recorded  # the corpus README's hostile strings
        assert any(planted in s for s in exported["strings"]), planted
    # The page's script never parses data as markup.
    code = next(text for attrs, text in parsed.scripts if attrs.get("type") != "application/json")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                 "new Function", "srcdoc"):
        assert sink not in code, sink


def test_page_is_at_most_the_recording_plus_4_mb(exports):
    for case, (data, page) in exports.items():
        assert len(page.encode()) <= len(data) + 4 * MB, case


def test_every_step_of_every_scope_is_on_the_page_with_its_label(exports):
    for case, (data, page) in exports.items():
        exported = _data(_parse(page))
        strings = exported["strings"]
        scopes = open_run(data).scopes()
        assert len(exported["scopes"]) == len(scopes.paths()), case
        assert strings[exported["scopes"][0]["path"]] == ROOT[0], case
        for shown, path in zip(exported["scopes"], scopes.paths()):
            steps = scopes.get(path).steps
            assert len(shown["steps"]) == len(steps), (case, path)
            for number, step in enumerate(shown["steps"], start=1):
                caption = strings[step["caption"]]
                assert caption.startswith(f"step {number} of {len(steps)} · "), (case, caption)
                assert step["diagram"]["rows"], (case, caption)


def test_the_failed_tools_error_text_is_in_the_step_that_reads_its_result(exports):
    data, page = exports["agent-refund-multi-tools-error"]
    recording = json.loads(data)
    # The corpus README: issue_refund throws; its tool.end carries the error text.
    ends = [e for e in recording["events"] if e.get("type", "").endswith("stream.tool_end")
            and e.get("payload", {}).get("error") is True]
    assert len(ends) == 1
    error_text = ends[0]["payload"]["result"]
    assert isinstance(error_text, str) and error_text
    exported = _data(_parse(page))
    strings = exported["strings"]
    failed = [tool for scope in exported["scopes"] for step in scope["steps"]
              for tool in step["detail"]["results"] + step["detail"]["asked"] if tool["failed"]]
    assert failed, "no step shows the failed tool"
    assert all(strings[tool["name"]] == "issue_refund" for tool in failed)
    assert any(error_text in strings[tool["result"][0]] for tool in failed)
    # And the likely causes lead with it.
    first = exported["causes"][0]
    assert first["error"] and "issue_refund" in strings[first["headline"]]
    assert first["nav"]["to"] is not None


def test_family_runs_export_too():
    for name in family_names():
        data = read_bytes(family_recording(name))
        exported = export_run(open_run(data), "recording.json.gz")
        assert exported.size <= len(data) + 4 * MB, name
        assert '<script type="application/json" id="lens-data">' in exported.html


# ─── the command ───────────────────────────────────────────────────────


def test_command_writes_the_page(tmp_path, capsys):
    out = tmp_path / "run.html"
    source = recording_path("agent-refund-multi-tools-error")
    assert main(["export", "html", str(source), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    # Said on stderr, as the other exports say it; stdout stays empty.
    assert captured.out == "" and captured.err == (
        f"wrote {out} ({out.stat().st_size:,} bytes): one page that opens from disk with "
        "no network\n")
    assert page.startswith("<!DOCTYPE html>")
    assert "issue_refund" in json.dumps(_data(_parse(page)), ensure_ascii=False)


@pytest.mark.parametrize("content", [b"{not json", b"", gzip.compress(b"[1, 2]"),
                                     b'{"events": "nope"}'])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys, content):
    source = tmp_path / "bad.json"
    source.write_bytes(content)
    out = tmp_path / "out.html"
    assert main(["export", "html", str(source), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob("*.partial"))


def test_missing_file_and_unwritable_output_exit_2(tmp_path, capsys):
    out = tmp_path / "out.html"
    assert main(["export", "html", str(tmp_path / "absent.json"), "-o", str(out)]) == 2
    assert "absent.json" in capsys.readouterr().err
    source = recording_path("llmcall-single")
    assert main(["export", "html", str(source), "-o", str(tmp_path / "no" / "dir.html")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


# ─── redaction ─────────────────────────────────────────────────────────

# Planted over texts the refund run carries in its user message, tool arguments
# and results, system prompt and snapshot (each occurs in several of them).
PLANTED = {
    "cus_4410": "alice.refunds@example.com",
    "A-77120": "4111 1111 1111 1111",
    "You process refund requests.": "You process refund requests. Use key "
                                    "sk-proj-Zq8v3LmT0pWx7KdR2nYb5HcJ9gFs4AeU.",
    "headphones": "headphones, call +44 20 7946 0958",
}


def _planted_file(tmp_path: Path) -> Path:
    text = read_bytes(recording_path("agent-refund-multi-tools-error")).decode("utf-8")
    for old, new in PLANTED.items():
        assert text.count(old) >= 2, old  # where the run carries it, more than once
        text = text.replace(old, new)
    path = tmp_path / "planted.json"
    path.write_text(text, encoding="utf-8")
    return path


def _forms(secret: str) -> set[str]:
    """The secret as any layer of the page could write it."""
    import html as html_module

    escaped = json.dumps(secret)[1:-1]
    return {secret, escaped, html_module.escape(secret), secret.replace("@", "\\u0040"),
            json.dumps(escaped)[1:-1]}


def test_redacted_page_carries_no_byte_of_a_planted_secret(tmp_path, capsys):
    source = _planted_file(tmp_path)
    out = tmp_path / "redacted.html"
    assert main(["export", "html", str(source), "--redact", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "email" in err and "card" in err and "key" in err and "phone" in err, err
    page = out.read_text(encoding="utf-8")
    secrets = ["alice.refunds@example.com", "4111 1111 1111 1111",
               "sk-proj-Zq8v3LmT0pWx7KdR2nYb5HcJ9gFs4AeU", "+44 20 7946 0958"]
    for secret in secrets:
        for form in _forms(secret):
            assert form not in page, form
    for fragment in ("alice.refunds", "example.com", "4111", "Zq8v3LmT0pWx7KdR2nYb5HcJ9gFs4AeU",
                     "7946 0958"):
        assert fragment not in page, fragment
    # The page still reads: the masks are there, and the steps are all there.
    exported = _data(_parse(page))
    strings = "\n".join(exported["strings"])
    assert "[email 1]" in strings and "[card 1]" in strings
    assert "1 email" in exported["redacted"]  # the page says it was redacted, and what went
    plain = export_run(open_run(source.read_bytes()), source.name).html
    assert len(_data(_parse(plain))["scopes"][0]["steps"]) == len(exported["scopes"][0]["steps"])
    assert "alice.refunds@example.com" in plain  # the planting took: unredacted, it is there
    assert _data(_parse(plain))["redacted"] is None


def test_a_user_pattern_alone_masks_only_what_it_matches(tmp_path, capsys):
    source = _planted_file(tmp_path)
    out = tmp_path / "pattern.html"
    assert main(["export", "html", str(source), "--redact-pattern", r"cus_\w+|alice\.\w+",
                 "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "alice.refunds" not in page
    assert "4111 1111 1111 1111" in page  # no --redact: the built-in kinds are left alone


# ─── the first screen ──────────────────────────────────────────────────


def test_the_page_leads_with_how_the_run_ended_and_its_top_causes(tmp_path):
    """As the app's first screen: the run's and the file's chips apart (no green one
    beside an error), the outcome sentence, the top causes in words with their step,
    the failed tool's own text among them; the same facts the CLI's info gives."""
    source = recording_path("agent-refund-multi-tools-error")
    out = tmp_path / "page.html"
    assert main(["export", "html", str(source), "-o", str(out)]) == 0
    data = _data(_parse(out.read_text(encoding="utf-8")))
    strings = data["strings"]
    first = data["first"]
    run = open_run(read_bytes(source))
    assert strings[first["sentence"]] == run.facts.outcome.sentence
    (run_label, run_colour), (file_label, file_colour) = first["chips"]
    assert run_label == f"Run: {run.facts.outcome.ended}" and file_label.startswith("File: ")
    top = data["causes"][: first["top"]]
    assert top and top[0]["error"] and "green" not in (run_colour, file_colour)
    failed = next(e["payload"]["result"] for e in json.loads(read_bytes(source))["events"]
                  if e["type"] == "agentfootprint.stream.tool_end"
                  and str(e["payload"].get("result", "")).startswith("PaymentGateway"))
    assert any(failed[:60] in strings[c["headline"]] for c in top)
    assert all(c["nav"] and c["nav"]["to"] for c in top)  # each leads to its step


def test_the_pages_file_chip_counts_the_gaps_info_lists_not_the_views_notes(tmp_path, capsys):
    """A flow trace: 2 gaps of the file (as `info` lists them) and a note of the
    projection; the page's file chip says the 2, as the app's does."""
    trace = Path(__file__).resolve().parents[1] / "data/formats/trace/agent-tool/trace.json"
    assert main(["info", str(trace)]) == 0
    gaps = json.loads(capsys.readouterr().out)["gaps"]
    out = tmp_path / "page.html"
    assert main(["export", "html", str(trace), "-o", str(out)]) == 0
    (_, _), (file_label, _) = _data(_parse(out.read_text(encoding="utf-8")))["first"]["chips"]
    assert len(gaps) == 2 and file_label == "File: 2 gaps", (gaps, file_label)

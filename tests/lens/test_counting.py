"""Counts in messages say the right number: ``1 tool call``, ``3 tool calls``,
never ``tool call(s)``; the scan below keeps a ``(s)`` out of every message."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from recorders.counting import counted, noun_for
from lens.wording import plural

PROJECT = Path(__file__).resolve().parents[2]
MESSAGE_CODE = ("recorders", "lens", "lens_ui", "lens_cli", "archive", "benchmarks")
# "tool call(s)", "run(s);", and "(s)" right after a formatted value (f"{noun}(s)");
# " (s)" after a space is a unit (seconds), not a plural.
GLUED_PLURAL = re.compile(r"(?:\w|^)\(s\)")


def test_one_is_singular_and_every_other_count_plural():
    assert counted(1, "tool call") == "1 tool call"
    assert counted(0, "tool call") == "0 tool calls"
    assert counted(3, "governor trip") == "3 governor trips"
    assert counted(12841, "event") == "12,841 events"


def test_irregular_nouns_take_their_own_plural():
    assert counted(2, "entry") == "2 entries"
    assert counted(1, "entry") == "1 entry"
    assert counted(4, "piece of context") == "4 pieces of context"
    assert noun_for(2, "policy") == "policies" and noun_for(5, "retry") == "retries"


def test_the_headline_wording_uses_the_same_plurals():
    assert plural(1, "retry") == "1 retry" and plural(3, "retry") == "3 retries"
    assert plural(1500, "tool call") == "1,500 tool calls"


def glued_plurals(source: Path) -> list[str]:
    """Every string literal of ``source`` (docstrings aside) with a "(s)" plural."""
    found = []
    tree = ast.parse(source.read_text(encoding="utf-8"))
    docstrings = {id(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings and GLUED_PLURAL.search(node.value)):
            found.append(f"{source.name}:{node.lineno}: {node.value!r}")
    return found


def test_the_plural_scan_finds_a_glued_plural_and_one_after_a_value(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('A = f"{n} gap(s)"\nB = f"{n} {noun}(s) found"\n'
                       'C = "duration (s)"\n"""A docstring may say call(s)."""\n')
    assert [hit.split(":")[1] for hit in glued_plurals(planted)] == ["1", "2"]


def test_no_message_in_the_product_glues_s_in_brackets_to_a_word():
    found = [hit for folder in MESSAGE_CODE for source in sorted((PROJECT / folder).rglob("*.py"))
             for hit in glued_plurals(source)]
    found += glued_plurals(PROJECT / "lens_app.py")
    assert not found, "\n".join(found)



# A string literal of the exported page's script: "…" or '…', escapes kept.
JS_STRING = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'")


def test_no_message_of_the_exported_page_glues_s_in_brackets_to_a_word():
    """The HTML export's own script writes counts too ("3 pieces", not "3 piece(s)")."""
    found = []
    for folder in MESSAGE_CODE:
        for source in sorted((PROJECT / folder).rglob("*.js")):
            for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
                if line.lstrip().startswith("//"):
                    continue
                found += [f"{source.name}:{number}: {literal}"
                          for literal in JS_STRING.findall(line) if GLUED_PLURAL.search(literal)]
    assert not found, "\n".join(found)


# ─── counts the product writes with a real run ──────────────────────────

SINGLE_CALL = PROJECT / "sample_runs" / "llmcall-single.json"


def _single_call_run():
    from lens.run import open_run

    return open_run(SINGLE_CALL.read_bytes())


def test_the_run_bar_counts_one_model_call_and_no_tool_calls_in_the_right_number():
    from lens.summary import figures_line, summarise

    run = _single_call_run()
    projection = run.projection("lens")
    summary = summarise(run.evidence, projection.route.get_path(), run.recording.run_info)
    assert (summary.model_calls, summary.tool_calls) == (1, 0)
    assert figures_line(summary).startswith("1 model call · 0 tool calls · ")


def test_the_html_export_says_the_same_figures_as_the_run_bar():
    from lens.share.html import export_data
    from lens.summary import figures_line, summarise

    run = _single_call_run()
    data = export_data(run, SINGLE_CALL.name)
    projection = run.projection("lens")
    line = figures_line(summarise(run.evidence, projection.route.get_path(),
                                  run.recording.run_info))
    found = []

    def walk(value):
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and "model call" in value and " · " in value:
            found.append(value)

    walk(data)
    assert line in found and not any("1 model calls" in text for text in found)


@pytest.mark.parametrize("count, words", [(1, "1 event was dropped"),
                                          (2, "2 events were dropped")])
def test_a_dropped_event_count_agrees_with_its_verb(count, words):
    from corpus_files import read_bytes, recording_path
    from recorders.loading import load_recording

    envelope = json.loads(read_bytes(recording_path("agent-one-tool-envelope")))
    envelope["run"]["droppedEvents"] = count
    recording = load_recording(json.dumps(envelope).encode())
    assert any(g.message.startswith(words) for g in recording.gaps if g.code == "dropped")

"""Counts in messages say the right number: ``1 tool call``, ``3 tool calls``,
never ``tool call(s)``; the scan below keeps a ``(s)`` out of every message."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from recorders.counting import counted, noun_for
from lens.wording import plural

PROJECT = Path(__file__).resolve().parents[2]
MESSAGE_CODE = ("recorders", "lens", "lens_ui", "archive")
GLUED_PLURAL = re.compile(r"\w\(s\)")  # "tool call(s)", "run(s);"


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


def test_no_message_in_the_product_glues_s_in_brackets_to_a_word():
    found = []
    for folder in MESSAGE_CODE:
        for source in sorted((PROJECT / folder).rglob("*.py")):
            tree = ast.parse(source.read_text(encoding="utf-8"))
            docstrings = {id(node.value) for node in ast.walk(tree)
                          if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
            for node in ast.walk(tree):
                if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                        and id(node) not in docstrings and GLUED_PLURAL.search(node.value)):
                    found.append(f"{source.relative_to(PROJECT)}:{node.lineno}: {node.value!r}")
    assert not found, "\n".join(found)

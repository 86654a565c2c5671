"""A model call named inside a cause's sentence reads as words ("asked for by
model call 3"), not as the label form "Model call 3 · call 3 at the root"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lens.evidence.causes import likely_causes
from lens.run import open_run

FAMILIES = Path(__file__).resolve().parents[1] / "data" / "families"
RUNS = sorted(p for p in FAMILIES.glob("*/recording.json*"))
LABEL_MID_SENTENCE = re.compile(r"[a-z,;] Model call \d| · call \d+ (at the root|of its scope)")


@pytest.mark.parametrize("path", RUNS, ids=lambda p: p.parent.name)
def test_no_cause_puts_a_call_label_mid_sentence(path):
    from corpus_files import read_bytes

    run = open_run(read_bytes(path))
    for cause in likely_causes(run.evidence, None):
        for text in (cause.headline, cause.why):
            assert not LABEL_MID_SENTENCE.search(text), text


def test_a_tool_error_names_the_call_that_asked_for_it_in_words():
    from corpus_files import read_bytes

    whys = [cause.why for path in RUNS
            for cause in likely_causes(open_run(read_bytes(path)).evidence, None)]
    assert any(re.search(r"asked for by model call \d+;", why) for why in whys)

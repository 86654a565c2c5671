"""A run in its own words for Compare's lists: its user message, agent and
start first, where it comes from and the digest's start last; recording text on one line (a line break shown as ⏎)."""

from __future__ import annotations

from lens.file_runs import RunInFile
from lens.run_label import run_words

DIGEST = "3f2a9c1b" + "0" * 56


def test_the_run_speaks_first_and_the_digest_tells_twins_apart():
    run = RunInFile(0, None, "r-17", "weather-desk", "What is the weather\nin Oslo?",
                    1_700_000_000_000.0)
    assert run_words("uploaded file", run, DIGEST) == (
        "“What is the weather⏎in Oslo?” · weather-desk · 22:13:20 UTC · uploaded file · 3f2a9c1b")


def test_a_run_recording_none_of_its_words_is_named_by_its_id():
    run = RunInFile(0, None, "r-17", None, None, None)
    assert run_words("archive", run, DIGEST) == "run r-17 · archive · 3f2a9c1b"


def test_a_long_message_is_clipped():
    run = RunInFile(0, None, None, None, "x" * 10_000, None)
    assert len(run_words("uploaded file", run, DIGEST)) < 80

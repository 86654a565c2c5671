"""A cause's signature: kind, subject and text with the volatile parts gone.

Two runs that failed the same way group together; two that failed
differently do not. The subject is what the cause is about, as recorded.
"""

from __future__ import annotations

import pytest

from family_files import family_names, family_recording
from lens.evidence.causes import likely_causes
from lens.evidence.signature import PLACEHOLDER, normalised, signature
from lens.run import open_run


@pytest.mark.parametrize("one, other", [
    ("POST /v2/refunds timed out after 30000 ms (req id rf_8842)",
     "POST /v2/refunds timed out after 31500 ms (req id rf_9120)"),
    ("weather-api 503 at 2025-09-12T10:00:00Z", "weather-api 503 at 2026-01-02T23:59:59.120+01:00"),
    ("run run-1795961510957-4 tool toolu_01Y4zAFnobikdNjSZEi15dfs",
     "run run-1795961999999-12 tool toolu_09XYZabcDEF1234567"),
    ("digest 3f2a9c1b7e00aa and 0x1F", "digest 77aa00bb11cc22 and 0xff"),
    ("uuid 123e4567-e89b-12d3-a456-426614174000", "uuid 00000000-0000-4000-8000-000000000000"),
    ("amount -12.50 at 10:04:05", "amount 9,999.99 at 23:00"),
])
def test_the_volatile_parts_do_not_split_a_group(one, other):
    assert normalised(one) == normalised(other)
    assert PLACEHOLDER in normalised(one)


@pytest.mark.parametrize("one, other", [
    ("weather-api 503", "weather-api 402 Payment Required"),
    ("model gpt-4.1-mini refused", "model gpt-4.1 refused"),
    ("permission denied for send_email", "permission denied for list_accounts"),
    ("claude-sonnet-4-5 failed", "claude-haiku-4-5 failed"),
])
def test_different_words_stay_different(one, other):
    assert normalised(one) != normalised(other)


def test_white_space_is_one_space_and_the_text_is_bounded():
    assert normalised("a\n\t  b ") == "a b"
    assert len(normalised("x " * 1000)) <= 200


def test_every_family_cause_has_a_signature_and_verdicts_name_their_subject():
    subjects = 0
    for case in family_names():
        run = open_run(family_recording(case).read_bytes())
        for cause in likely_causes(run.evidence, None):
            kind, subject, text = signature(cause)
            assert kind == cause.kind and text
            assert subject is None or isinstance(subject, str) and subject
            subjects += subject is not None
    assert subjects >= 20


def test_a_failed_tools_subject_is_the_tool_and_its_text_the_error():
    run = open_run(family_recording("payments-permission-halt").read_bytes())
    causes = likely_causes(run.evidence, None)
    denied = [c for c in causes if c.subject == "list_vendor_bank_accounts"]
    assert denied, [(c.kind, c.subject) for c in causes]

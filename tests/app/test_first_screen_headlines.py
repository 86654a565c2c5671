"""The first screen's top causes keep their quoted evidence: each headline is
shown whole, or cut at a word with its whole text one click away.

The headlines are what ``footprint-lens causes`` says of the same file (the
first three, as the first screen shows them); a cut headline is the label of
a popover that holds it whole. Before this, a headline was cut at 50
characters mid-word ("“openai: 500 The s…") and its quotation was lost."""

from __future__ import annotations

import argparse
import re

import pytest

from app_support import family_upload
from family_files import family_recording
from lens_cli import causes_command
from recorders.profiles import DEFAULT_PROFILE

TOP = 3
# Runs whose three top causes have long headlines, the circuit breaker's first.
CASES = ["travel-desk-circuit-breaker", "payments-permission-halt",
         "sales-analytics-artifact-evicted"]


def popover_labels(node) -> list[str]:
    labels = []
    for child in getattr(node, "children", {}).values():
        proto = getattr(child, "proto", None)
        if type(proto).__name__ == "Block" and proto.WhichOneof("type") == "popover":
            labels.append(proto.popover.label)
        labels += popover_labels(child)
    return labels


def unescaped(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


@pytest.mark.parametrize("case", CASES)
def test_each_top_cause_is_whole_or_cut_at_a_word_with_the_whole_one_click_away(app, case):
    causes = causes_command.run(argparse.Namespace(file=str(family_recording(case)),
                                                   profile=DEFAULT_PROFILE))
    headlines = [cause["headline"] for cause in causes[:TOP]]
    at = family_upload(app, case)
    texts = {text.value for text in at.text}
    labels = [unescaped(label) for label in popover_labels(at._tree)]
    for headline in headlines:
        assert headline in texts, f"{headline!r} is nowhere whole on the first screen"
        cuts = [label for label in labels if label.endswith(("…", "…”"))
                and headline.startswith(label.removesuffix("”").removesuffix("…"))]
        for cut in cuts:
            kept = cut.removesuffix("”").removesuffix("…")
            assert len(kept) < len(headline) and not headline[len(kept)].isalnum(), \
                f"{cut!r} cuts {headline!r} inside a word"
    # The one whose quotation is longest is cut, and its whole text is in the popover.
    assert any(label.endswith(("…", "…”")) for label in labels), labels

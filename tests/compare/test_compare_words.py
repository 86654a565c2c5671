"""The comparison's lead, in words (lens.compare.words): where the runs part and
what was served differently, checked on every pair against its ground truth
(expected-compare.json), never with an event type name or a field path in it."""

from __future__ import annotations

import pytest

from compare_support import cli_json, pair_run
from corpus_files import load_pair_expected, pair_names, pair_run_path
from lens.compare import compare_runs
from lens.compare.words import comparison_sentences


def _sentences(pair: str) -> tuple[str, ...]:
    return comparison_sentences(compare_runs(pair_run(pair, "a"), pair_run(pair, "b")))


@pytest.mark.parametrize("pair", pair_names())
def test_the_lead_names_no_event_type_or_field_path(pair):
    for sentence in _sentences(pair):
        assert "agentfootprint." not in sentence and "payload." not in sentence, sentence
        assert "None" not in sentence and "#" not in sentence.split("“")[0], sentence


@pytest.mark.parametrize("pair", pair_names())
def test_identical_pairs_say_so_and_others_say_where_they_part(pair):
    truth = load_pair_expected(pair)
    sentences = _sentences(pair)
    if truth["identical"]:
        assert sentences[0].startswith("The two runs are the same")
        return
    assert sentences[0].startswith("The runs part at step ")
    served = truth.get("servedDifference")
    if served:
        # Model calls are counted from 1 in words; the wire counts them from 0.
        number = served["callIndexA"] + 1
        assert any(s.startswith(f"Model call {number}'s") for s in sentences), sentences


def test_a_tool_that_failed_in_one_run_is_told_in_its_own_words():
    sentences = _sentences("refund-tool-fails-vs-succeeds")
    assert sentences[0] == "The runs part at step 6 of 8, in both runs: a tool's result differs."
    # Each side's step in plain words: B's tool failed, with the tool's own error text.
    assert sentences[1].startswith("In A: ") and "re_3Pq7Lx2mWq" in sentences[1]
    assert sentences[2].startswith("In B: ") and "failed" in sentences[2]
    assert "payments-api 502 Bad Gateway" in sentences[2]


def test_a_route_that_diverges_names_both_arguments():
    sentences = _sentences("skillgraph-route-diverges")
    assert "the tool call's argument “id” differs" in sentences[0]
    assert "db-diagnostics" in sentences[1] and "network-diagnostics" in sentences[2]


def test_a_changed_system_prompt_is_said_to_differ():
    assert _sentences("system-prompt-changed")[-1].startswith(
        "Model call 1's system prompt differs between the runs")


def test_the_cli_leads_with_the_same_words(capsys):
    pair = "refund-tool-fails-vs-succeeds"
    paths = [str(pair_run_path(pair, side)) for side in "ab"]
    assert cli_json(capsys, *paths)["summary"] == list(_sentences(pair))
    capsys.readouterr()
    from lens_cli.main import main

    assert main(["compare", *paths, "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == _sentences(pair)[0]
    assert "call 3 / 3" not in text and "(A / B): 4 / 4" in text

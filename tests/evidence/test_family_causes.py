"""Over the family corpus: every framework verdict is a likely cause in its own
words, and what each case's facts.json says went wrong is what the model layer
shows (the run's outcome, the causes, the integrity line, the memory trace)."""

from __future__ import annotations

import json
import re

import pytest

from family_facts import family_facts
from family_files import family_names, family_recording
from lens.evidence.causes import WORD_CHARS, likely_causes
from lens.evidence.outcome import (ANSWERED, ANSWERED_WITH_FALLBACK, CRASHED, CUT_SHORT,
                                   HALTED, run_outcome)
from lens.run import OpenRun
from lens.scopes import ROOT
from lens.text import one_line
from recorders import catalogue
from recorders.loading import load_path

CASES = family_names()
_SHORT_NAMES = {t.short: t.name for t in catalogue.EVENT_TYPES}


def opened(case: str) -> OpenRun:
    return OpenRun(load_path(str(family_recording(case))))


def causes_of(run: OpenRun):
    route = run.projection("lens").route
    return likely_causes(run.evidence, run.step_map("lens", ROOT), hops=route.get_hops(),
                         trips=route.get_trips(), gaps=run.recording.gaps)


def cause_text(cause) -> str:
    return " ".join([cause.headline, cause.why, cause.detail.full if cause.detail else ""])


def own_words(event: dict) -> tuple[str, str]:
    """The event's most telling text: its first explaining field (as the
    catalogue orders them) whose value is a string, else its first one; whole,
    and as a cause's line clips it (a cause may quote it whole in its detail)."""
    entry = catalogue.event_type(event["type"])
    payload = event["payload"]
    present = [name for name in entry.explaining if payload.get(name) is not None]
    texts = [name for name in present if isinstance(payload[name], str)]
    value = payload[(texts or present)[0]]
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text, one_line(text, WORD_CHARS)


def verdicts(run: OpenRun) -> list[tuple[int, dict]]:
    return [(position, event) for position, event in enumerate(run.recording.typed_events)
            if catalogue.event_kind(event.get("type"), event.get("payload")) == catalogue.VERDICT]


@pytest.mark.parametrize("case", CASES)
def test_every_verdict_is_cited_by_a_cause_in_its_own_words(case):
    run = opened(case)
    causes = causes_of(run)
    for position, event in verdicts(run):
        citing = [cause for cause in causes if position in cause.events]
        assert citing, f"{event['type']} at events[{position}] is in no cause"
        words = own_words(event)
        assert any(said in cause_text(cause) for cause in citing for said in words), \
            f"no cause citing events[{position}] says {words!r}"


def test_the_corpus_has_verdicts_to_cite():
    # Guards the test above against passing on nothing: most cases went wrong
    # in a way the framework itself judged.
    assert sum(1 for case in CASES if verdicts(opened(case))) > len(CASES) // 2


@pytest.mark.parametrize("case", CASES)
def test_a_verdict_cause_is_an_error_and_comes_before_every_warning(case):
    causes = causes_of(opened(case))
    severities = [cause.severity for cause in causes]
    assert severities == sorted(severities, key=lambda s: s != "error")
    for cause in causes:
        assert "\n" not in cause.headline and "\n" not in cause.why


def _outcome_the_facts_say(facts: dict) -> str:
    """How the run ended, read from the framework's own account of it."""
    expected = facts["expected"]
    thrown = (expected.get("thrown") or {}).get("name")
    if thrown == "PolicyHaltError":
        return HALTED
    if thrown:
        return CRASHED
    loop_ends = [e["payload"].get("reason") for e in expected.get("iterationEvents", [])
                 if e["type"].endswith("iteration_exit")]
    if "budget" in loop_ends:
        return CUT_SHORT
    if expected.get("answerReplacedBy") == "canned" or any(
            f.get("kind") == "provider" for f in expected.get("fallbackTriggered", [])):
        return ANSWERED_WITH_FALLBACK
    return ANSWERED


@pytest.mark.parametrize("case", CASES)
def test_the_run_outcome_is_how_the_framework_says_the_run_ended(case):
    run = opened(case)
    outcome = run_outcome(run.evidence, run.recording)
    assert outcome.kind == _outcome_the_facts_say(family_facts(case))
    assert outcome.headline and "\n" not in outcome.headline


@pytest.mark.parametrize("case", CASES)
def test_what_went_wrong_names_events_that_are_causes(case):
    """A verdict or warning type that whatWentWrong names and the recording
    holds is cited by a cause (types the facts say are not recorded are not
    in the file, and so are not asked for)."""
    run = opened(case)
    named = {_SHORT_NAMES[name] for item in family_facts(case)["whatWentWrong"]
             for name in re.findall(r"[a-z]+\.[a-z_]+", item) if name in _SHORT_NAMES}
    cited = {position for cause in causes_of(run) for position in cause.events}
    for position, event in enumerate(run.recording.typed_events):
        kind = catalogue.event_kind(event.get("type"), event.get("payload"))
        if event.get("type") in named and kind in (catalogue.VERDICT, catalogue.WARNING):
            assert position in cited, f"{event['type']} at events[{position}] is in no cause"


def test_the_failed_run_outcomes_quote_the_events_own_words():
    halted = opened("payments-permission-halt")
    facts = family_facts("payments-permission-halt")["expected"]["thrown"]
    outcome = run_outcome(halted.evidence, halted.recording)
    assert facts["reason"] in outcome.detail and facts["tellLLM"] in outcome.detail
    crashed = opened("translation-desk-hub-outage-shadowed")
    outcome = run_outcome(crashed.evidence, crashed.recording)
    # error.fatal restates the cause; the detail carries the real one.
    assert "ECONNREFUSED 10.4.2.17:8443" in outcome.detail
    canned = opened("returns-bot-canned-after-provider-outage")
    used = family_facts("returns-bot-canned-after-provider-outage")["expected"][
        "outputCannedUsed"][0]
    assert used["fallbackErrorMessage"] in run_outcome(canned.evidence, canned.recording).detail


def test_the_canned_answer_pair_without_meta_is_placed_on_the_final_answers_step():
    run = opened("returns-bot-canned-after-provider-outage")
    without_meta = [e["i"] for e in family_facts("returns-bot-canned-after-provider-outage")[
        "expected"]["eventsWithoutMeta"]]
    final = run.evidence.final_call()
    steps = run.step_map("lens", ROOT)
    for cause in causes_of(run):
        if set(cause.events) & set(without_meta):
            assert cause.nav.call_id == final.id
            assert cause.nav.step == steps.end_step(final.id)


def test_the_integrity_ledger_line_says_which_check_found_what():
    run = opened("san-port-unsupported-claim-dev-posture")
    [rows] = [d["rows"] for d in family_facts("san-port-unsupported-claim-dev-posture")[
        "expected"]["disposition"]]
    [ledger] = run.evidence.integrity
    ran = sum(1 for row in rows if row["checked"] > 0)
    assert ledger.summary.startswith(f"{ran} of {len(rows)} checks ran")
    for row in rows:
        if row["findings"]:
            assert f"{row['check']} found {row['findings']}" in ledger.summary


def test_retrieved_memory_is_traced_to_the_model_call_it_was_served_to():
    run = opened("hr-handbook-rag-outdated-policy")
    expected = family_facts("hr-handbook-rag-outdated-policy")["expected"]
    assert expected["modelCalls"] == len(run.evidence.calls) == 1
    served = {(m.memory_id, m.rank, m.served_to) for m in run.evidence.memory}
    assert served == {(m["memoryId"], m["rank"], 0) for m in expected["memoryAttached"]}


@pytest.mark.parametrize("case", CASES)
def test_every_verdict_cause_links_to_a_step_or_says_why_not(case):
    run = opened(case)
    positions = {position for position, _ in verdicts(run)}
    for cause in causes_of(run):
        if positions & set(cause.events):
            assert cause.nav is not None
            assert cause.nav.step is not None or cause.nav.why_no_step


def test_a_verdict_the_application_emitted_after_the_run_lands_on_a_step():
    # eval.threshold_crossed is emitted by the app after run(), under consumer-scope.
    run = opened("newsletter-loop-eval-below-threshold")
    [crossed] = family_facts("newsletter-loop-eval-below-threshold")["expected"][
        "thresholdCrossed"]
    [cause] = [c for c in causes_of(run) if c.kind == "eval.threshold_crossed"]
    assert cause.nav.step is not None and not cause.nav.exact
    said = crossed["payload"]
    assert f"value: {said['value']}" in cause.why and f"threshold: {said['threshold']}" in cause.why

"""Every likely cause's headline is a sentence a support engineer would write.

Over every corpus and family recording: no event type name, no ``key=value``
list, no JSON, no float noise, no ``None``, no ``(s)`` plural and no "1 tool
calls"; the event's own words stay in it, quoted. Then one pin per framework
verdict kind the families hold, its expected words read from the recorded
event here (never from the headline's code)."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from corpus_files import case_names, read_bytes, recording_path
from family_files import family_names, family_recording
from lens.evidence.causes import likely_causes
from lens.run import open_run
from recorders.catalogue import EVENT_TYPES, PREFIX

PROFILE = "lens"
ROOT = ("__root__",)
SHORT_NAMES = sorted({t.name[len(PREFIX):] for t in EVENT_TYPES}, key=len, reverse=True)
TYPE_NAME = re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, SHORT_NAMES)) + r")(?![\w.])")
KEY_VALUE = re.compile(r"\b[A-Za-z_]\w*=\S")
FLOAT_NOISE = re.compile(r"\d\.\d{5,}")
ONE_PLURAL = re.compile(r"(?<![\d.,])1 (?:model |tool )?(?:calls|pieces|iterations|fields|"
                        r"characters|times|steps|entries|tools|runs|events)\b")


def causes_of(data: bytes):
    run = open_run(data)
    route = run.projection(PROFILE).route
    return run, likely_causes(run.evidence, run.step_map(PROFILE, ROOT), hops=route.get_hops(),
                              trips=route.get_trips(), gaps=run.recording.gaps)


def unquoted(headline: str) -> str:
    """The headline's own words: what it quotes from the recording taken out."""
    return re.sub(r"“[^”]*”", "“”", headline)


def every_recording():
    for case in case_names():
        yield f"corpus/{case}", recording_path(case)
    for case in family_names():
        yield f"families/{case}", family_recording(case)


@pytest.mark.parametrize("name,path", list(every_recording()), ids=lambda v: str(v))
def test_every_headline_is_in_plain_words(name, path):
    _, causes = causes_of(read_bytes(path))
    for cause in causes:
        own = unquoted(cause.headline)
        where = f"{name}: {cause.kind}: {cause.headline!r}"
        assert cause.headline.strip() == cause.headline != "", where
        assert not TYPE_NAME.search(own), where
        assert not KEY_VALUE.search(own), where
        assert "{" not in own and "[" not in own, where
        assert not FLOAT_NOISE.search(cause.headline), where
        assert "None" not in own and "(s)" not in own, where
        assert not ONE_PLURAL.search(own), where
        assert "\n" not in cause.headline, where


def family_events(case: str) -> list[dict]:
    return json.loads(gzip.decompress(family_recording(case).read_bytes()))["events"]


def headline_of(case: str, kind: str) -> list[str]:
    _, causes = causes_of(family_recording(case).read_bytes())
    return [c.headline for c in causes if c.kind == kind]


def payloads(case: str, short: str) -> list[dict]:
    return [e["payload"] for e in family_events(case) if e["type"] == PREFIX + short]


def test_a_denied_permission_names_the_tool_the_rule_and_the_reason():
    (denied,) = [p for p in payloads("payments-permission-halt", "permission.check")
                 if p["result"] == "deny"]
    assert (f"A permission check denied {denied['target']} (rule {denied['policyRuleId']}): "
            f"“{denied['rationale']}”") in headline_of("payments-permission-halt",
                                                      "permission.check")


def test_a_fallback_says_who_failed_how_often_in_its_words_and_who_answered():
    triggered = payloads("returns-bot-canned-after-provider-outage", "fallback.triggered")
    first = triggered[0]
    (headline,) = headline_of("returns-bot-canned-after-provider-outage", "fallback.triggered")
    assert headline.startswith(f"{first['primary']} failed {len(triggered)} times")
    assert f"“{first['reason']}”" in headline
    assert headline.endswith(f"and {first['fallback']} answered instead")


def test_the_circuit_breaker_carries_its_own_words():
    """#38 leftover: the fallback after an open breaker quotes the breaker's message."""
    reasons = [p["reason"] for p in payloads("travel-desk-circuit-breaker", "fallback.triggered")]
    breaker = next(r for r in reasons if "circuit breaker" in r)
    (headline,) = headline_of("travel-desk-circuit-breaker", "fallback.triggered")
    assert breaker[:60] in headline


def test_a_credential_failure_quotes_the_vault_and_names_the_tool():
    (failed,) = payloads("invoice-agent-credentials", "credential.failed")
    (headline,) = headline_of("invoice-agent-credentials", "credential.failed")
    assert headline.startswith("erp_lookup_po could not get its credentials")
    assert f"for {failed['service']}" in headline and f"“{failed['reason']}”" in headline


def test_a_threshold_says_the_score_against_the_bar_rounded():
    (crossed,) = payloads("newsletter-loop-eval-below-threshold", "eval.threshold_crossed")
    (headline,) = headline_of("newsletter-loop-eval-below-threshold", "eval.threshold_crossed")
    assert f"went {crossed['direction']} its threshold" in headline
    assert f"({crossed['value']:g} against {crossed['threshold']:g})" in headline
    assert headline.endswith(f": “{crossed['actionTaken']}”")


def test_a_skipped_step_and_a_checkin_quote_their_reasons():
    (skipped,) = payloads("chargeback-procedure-skip-and-approval", "skill.step_skipped")
    step = skipped["step"]
    assert headline_of("chargeback-procedure-skip-and-approval", "skill.step_skipped") == [
        f"The model skipped the {step['tool']} step ({step['index']} of {step['total']}) of the "
        f"skill {skipped['skillId']} by calling skip_step: “{skipped['reason']}”"]
    (decision,) = payloads("wire-transfer-checkin-declined", "checkin.decision")
    (headline,) = headline_of("wire-transfer-checkin-declined", "checkin.decision")
    assert headline.startswith(f"{decision['by']} declined the check-in")


def test_counts_have_their_plural_and_one_has_none():
    (evicted,) = headline_of("incident-log-triage-token-budget", "evicted context")
    pieces = sum(1 for e in family_events("incident-log-triage-token-budget")
                 if e["type"] == PREFIX + "context.evicted")
    assert evicted.startswith(f"{pieces} pieces of context were evicted before model call")
    (invalid,) = headline_of("field-ops-args-invalid-progress", "validation.args_invalid")
    (payload,) = payloads("field-ops-args-invalid-progress", "validation.args_invalid")
    assert f"({len(payload['issues'])} fields: " in invalid

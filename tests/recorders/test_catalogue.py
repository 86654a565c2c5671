"""The catalogue of typed event types: complete, well formed, and true to what runs record.

The table itself is checked here; the family corpus (real 9.62 runs of agents
using guards, retries, memory, permissions…, ``tests/data/families``) is the
check that each declared field list is the one the framework writes.
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from corpus_files import read_bytes
from family_files import family_files
from recorders import catalogue
from recorders.catalogue import (ANY, EVENT_TYPES, FLAG, KINDS, LIST, NUMBER, PRESENT, RECORD,
                                 TEXT, VERDICT, WARNING, CONTEXT, event_kind, event_type)
from recorders.event_types import KNOWN_TYPED_TYPES

# The name domains of agentfootprint 9.62's registry (EVENT_NAMES), written out
# from its source, not from the catalogue.
FRAMEWORK_DOMAINS = {
    "composition", "agent", "stream", "context", "memory", "tools", "skill", "map",
    "integrity", "validation", "permission", "credential", "risk", "fallback", "cost", "eval",
    "error", "reliability", "resilience", "pause", "checkin", "middleware", "embedding",
    "artifacts",
}


def test_the_catalogue_declares_the_107_types_of_9_62_once_each():
    names = [t.name for t in EVENT_TYPES]
    assert len(names) == 107 == len(set(names))
    assert {t.domain for t in EVENT_TYPES} == FRAMEWORK_DOMAINS
    for name in names:
        prefix, domain, action = name.split(".")
        assert prefix == "agentfootprint" and domain and action


def test_the_loader_knows_exactly_the_catalogues_types():
    assert KNOWN_TYPED_TYPES == catalogue.ALL_NAMES


def test_every_type_has_one_named_constant_and_every_constant_names_a_type():
    named = [value for name, value in vars(catalogue).items()
             if name.isupper() and name != "PREFIX" and isinstance(value, str)
             and value.startswith(catalogue.PREFIX)]
    assert len(named) == len(set(named)) and set(named) == catalogue.ALL_NAMES


@pytest.mark.parametrize("entry", EVENT_TYPES, ids=lambda t: t.short)
def test_every_type_has_a_family_a_meaning_a_kind_and_fields_that_explain_it(entry):
    assert entry.family in catalogue.FAMILIES
    assert entry.kind in KINDS
    assert len(entry.meaning) > 20 and entry.meaning.endswith(".")
    assert entry.fields, "every 9.62 payload declares fields"
    declared = [f.name for f in entry.fields]
    assert len(declared) == len(set(declared))
    assert entry.explaining and set(entry.explaining) <= set(declared)
    for field in entry.fields:
        assert field.shape in (TEXT, NUMBER, FLAG, LIST, RECORD, ANY)
        assert all(isinstance(c, str) for c in field.choices)


@pytest.mark.parametrize("entry", [t for t in EVENT_TYPES if t.rules], ids=lambda t: t.short)
def test_a_kind_rule_reads_a_declared_field_and_values_it_can_hold(entry):
    for rule in entry.rules:
        field = entry.field(rule.field)
        assert field is not None and rule.kind in KINDS and rule.kind != entry.kind
        if rule.values == (PRESENT,):
            assert not field.required, "a field that is always there says nothing by being there"
        elif field.shape == FLAG:
            assert set(rule.values) <= {True, False}
        else:
            assert set(rule.values) <= set(field.choices)


def test_families_group_what_the_framework_groups():
    family = {t.short: t.family for t in EVENT_TYPES}
    assert family["stream.thinking_end"] == family["agent.thinking_parse_failed"] == "thinking"
    assert family["agent.output_contract_unmet"] == family["validation.args_invalid"] == "guard"
    assert (family["reliability.fail_fast"] == family["resilience.output_canned_used"]
            == family["fallback.triggered"] == family["error.retried"] == "recovery")
    assert family["agent.budget_exhausted"] == family["cost.limit_hit"] == "budget"
    assert family["stream.llm_start"] == family["stream.tool_end"] == "stream"
    assert [t.short for t in catalogue.types_in_family("pause")] == ["pause.request",
                                                                     "pause.resume"]
    assert catalogue.types_in_family("no such family") == ()


def test_lookups_by_name():
    assert event_type(catalogue.LLM_START).short == "stream.llm_start"
    assert event_type("agentfootprint.future.kind") is None
    assert event_type(None) is None
    assert catalogue.short_name(catalogue.ERROR_FATAL) == "error.fatal"
    assert catalogue.short_name("llm.start") == "llm.start"


def test_verdict_names_are_the_types_that_say_something_went_wrong():
    assert {catalogue.ERROR_FATAL, catalogue.PERMISSION_HALT, catalogue.AGENT_OUTPUT_CONTRACT_UNMET,
            catalogue.RESILIENCE_OUTPUT_CANNED_USED, catalogue.VALIDATION_ARGS_INVALID,
            catalogue.INTEGRITY_CONTEXT_ERROR} <= catalogue.VERDICT_NAMES
    assert catalogue.LLM_START not in catalogue.MAY_BE_VERDICT_NAMES
    assert catalogue.PERMISSION_CHECK not in catalogue.VERDICT_NAMES
    assert catalogue.PERMISSION_CHECK in catalogue.MAY_BE_VERDICT_NAMES
    assert catalogue.VERDICT_NAMES < catalogue.MAY_BE_VERDICT_NAMES


@pytest.mark.parametrize(("name", "payload", "kind"), [
    (catalogue.PERMISSION_CHECK, {"result": "allow"}, CONTEXT),
    (catalogue.PERMISSION_CHECK, {"result": "deny"}, VERDICT),
    (catalogue.PERMISSION_CHECK, {"result": "halt"}, VERDICT),
    (catalogue.TOOL_END, {"toolCallId": "c1", "result": "ok"}, CONTEXT),
    (catalogue.TOOL_END, {"toolCallId": "c1", "result": "boom", "error": True}, VERDICT),
    (catalogue.TOOL_END, {"error": 1}, CONTEXT),  # a count of 1 is not the flag true
    (catalogue.TOOL_END, {"status": "denied"}, VERDICT),
    (catalogue.AGENT_EVIDENCE_CHECKED, {"action": "grounded"}, CONTEXT),
    (catalogue.AGENT_EVIDENCE_CHECKED, {"action": "revision-asked"}, WARNING),
    (catalogue.AGENT_EVIDENCE_CHECKED, {"action": "flagged"}, VERDICT),
    (catalogue.INTEGRITY_CONTEXT_ERROR, {"kind": "unsupported-claim"}, VERDICT),
    (catalogue.INTEGRITY_CONTEXT_ERROR, {"kind": "unsupported-claim", "synthetic": True}, CONTEXT),
    (catalogue.AGENT_TURN_END, {"finalContent": "done"}, CONTEXT),
    (catalogue.AGENT_TURN_END, {"stoppedEarly": {"reason": "max-iterations"}}, VERDICT),
    (catalogue.ERROR_FATAL, "not an object", VERDICT),
    ("agentfootprint.future.kind", {}, None),
])
def test_an_events_kind_follows_its_payload(name, payload, kind):
    assert event_kind(name, payload) == kind


# ─── Against real recordings ───────────────────────────────────────────

def _recorded_payloads() -> dict[str, list]:
    """Payloads by type, over every family recording (envelopes hold the same runs)."""
    found: dict[str, list] = defaultdict(list)
    for path in family_files():
        if path.name.startswith("recording"):
            for event in json.loads(read_bytes(path))["events"]:
                found[event["type"]].append(event.get("payload"))
    return found


RECORDED = _recorded_payloads()
RECORDED_TYPES = sorted(RECORDED)
_SHAPE_TEST = {TEXT: lambda v: isinstance(v, str), FLAG: lambda v: isinstance(v, bool),
               NUMBER: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
               LIST: lambda v: isinstance(v, list), RECORD: lambda v: isinstance(v, dict),
               ANY: lambda v: True}


def test_the_family_corpus_holds_98_types_all_in_the_catalogue():
    assert len(RECORDED_TYPES) == 98
    assert set(RECORDED_TYPES) <= catalogue.ALL_NAMES


@pytest.mark.parametrize("name", RECORDED_TYPES, ids=catalogue.short_name)
def test_recorded_payloads_hold_the_declared_fields_and_no_others(name):
    entry = event_type(name)
    declared = {f.name: f for f in entry.fields}
    for payload in RECORDED[name]:
        assert isinstance(payload, dict)
        assert set(payload) <= set(declared), set(payload) - set(declared)
        for field in entry.fields:
            if field.required:
                assert field.name in payload, field.name
            if field.name in payload:
                value = payload[field.name]
                assert _SHAPE_TEST[field.shape](value), (field.name, value)
                assert not field.choices or value in field.choices, (field.name, value)


@pytest.mark.parametrize("name", RECORDED_TYPES, ids=catalogue.short_name)
def test_what_explains_a_recorded_type_is_in_its_recorded_payloads(name):
    # An optional field may be absent from every recorded event of its type; a
    # required one is in each, and a type never shows without one of them.
    entry = event_type(name)
    seen = {key for payload in RECORDED[name] for key in payload}
    for field in entry.explaining:
        if entry.field(field).required:
            assert field in seen, field
    assert seen & set(entry.explaining)


@pytest.mark.parametrize(("case_type", "wanted"), [
    # From the cases' stories (../shared/recordings/families/README.md).
    ("agentfootprint.resilience.output_canned_used", VERDICT),
    ("agentfootprint.permission.halt", VERDICT),
    ("agentfootprint.reliability.fail_fast", VERDICT),
    ("agentfootprint.validation.args_invalid", VERDICT),
    ("agentfootprint.skill.step_skipped", VERDICT),
    ("agentfootprint.tools.shadowed", WARNING),
    ("agentfootprint.fallback.triggered", WARNING),
])
def test_the_stories_failures_are_verdicts_and_warnings_in_the_recordings(case_type, wanted):
    assert {event_kind(case_type, p) for p in RECORDED[case_type]} == {wanted}


def test_a_denied_permission_check_in_a_recording_is_a_verdict_and_an_allowed_one_is_not():
    kinds = {p["result"]: event_kind(catalogue.PERMISSION_CHECK, p)
             for p in RECORDED[catalogue.PERMISSION_CHECK]}
    assert kinds.get("deny") == VERDICT
    assert kinds.get("allow", CONTEXT) == CONTEXT

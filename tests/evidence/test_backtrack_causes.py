"""Likely causes and the composition-aware backtrack, on the corpus.

Expected values are read from each recording's own typed events (a failed
``tool_end``, an ``error.fatal``, ``skill.rejected``, ``composition.route_decided``)
or from the step list, never from the code under test.
"""

from __future__ import annotations

import json
from functools import lru_cache

import pytest

from corpus_files import case_names, read_bytes, recording_path
from lens.evidence.backtrack import backtrack
from lens.evidence.causes import ERROR, likely_causes
from lens.evidence.feeds import DECIDED, FORWARDED, MERGED
from lens.evidence.report import backtrack_report
from lens.run import OpenRun, open_run
from markdown_regions import split_code

P = "agentfootprint."
ROOT = ("__root__",)


@lru_cache(maxsize=None)
def opened(case: str) -> OpenRun:
    return open_run(read_bytes(recording_path(case)))


def causes_of(run: OpenRun):
    route = run.projection("lens").route
    return likely_causes(run.evidence, run.step_map("lens", ROOT), hops=route.get_hops(),
                         trips=route.get_trips(), gaps=run.recording.gaps)


def typed(run: OpenRun, suffix: str) -> list[dict]:
    return [e for e in run.recording.typed_events if e.get("type") == P + suffix]


@pytest.mark.parametrize("case", case_names())
def test_every_failed_tool_is_a_cause_with_its_error_text_before_any_warning(case):
    run = opened(case)
    causes = causes_of(run)
    failed = [e["payload"] for e in typed(run, "stream.tool_end")
              if isinstance(e.get("payload"), dict) and e["payload"].get("error") is True]
    tool_causes = [c for c in causes if c.kind == "failed tool"]
    assert len(tool_causes) == len(failed)
    for payload, cause in zip(failed, tool_causes):
        assert cause.detail is not None and cause.detail.full == payload["result"]
        assert cause.nav is not None and cause.nav.step is not None
    severities = [c.severity for c in causes]
    assert severities == sorted(severities, key=lambda s: s != ERROR), \
        "errors come before warnings"


def test_the_failed_tool_cause_leads_to_the_step_of_the_call_that_asked_for_it():
    run = opened("agent-refund-multi-tools-error")
    failed = next(e for e in typed(run, "stream.tool_end") if e["payload"].get("error") is True)
    start = next(e for e in typed(run, "stream.tool_start")
                 if e["payload"].get("toolCallId") == failed["payload"]["toolCallId"])
    first = causes_of(run)[0]
    assert first.kind == "failed tool"
    assert start["payload"]["toolName"] in first.headline
    steps = run.step_map("lens", ROOT).steps
    # The asking model call ended in an llm→tool step: the one the link opens.
    assert steps[first.nav.step].meta["actorArrow"] == "llm→tool"
    assert first.nav.exact


@pytest.mark.parametrize("case", case_names())
def test_every_fatal_error_during_a_model_call_is_a_provider_error(case):
    run = opened(case)
    fatal = [e["payload"].get("error") for e in typed(run, "error.fatal")]
    provider = [c for c in causes_of(run) if c.kind == "provider error"]
    for cause in provider:
        assert cause.is_error and cause.detail.full in fatal
    open_calls = [c for c in run.evidence.shown_calls() if not c.ended]
    if fatal and open_calls:  # a fatal error while a model call was open
        assert provider and provider[0].nav.call_id == open_calls[0].id


@pytest.mark.parametrize("case", case_names())
def test_every_rejected_route_is_a_cause(case):
    run = opened(case)
    rejected = typed(run, "skill.rejected")
    causes = [c for c in causes_of(run) if c.kind == "rejected route"]
    assert len(causes) == len(rejected)
    for event, cause in zip(rejected, causes):
        assert event["payload"]["requestedId"] in cause.headline


def test_a_governor_trip_is_a_cause_linked_to_the_step_of_the_rejection_that_tripped_it():
    run = opened("skillgraph-rejected-cap-then-model-pick")
    causes = causes_of(run)
    trips = [c for c in causes if c.kind == "governor trip"]
    rejections = [c for c in causes if c.kind == "rejected route"]
    assert len(trips) == 1 and "rejected-cap" in trips[0].headline
    # The cap trips on the last of the consecutive rejections.
    assert trips[0].nav.step == rejections[-1].nav.step


def test_a_tool_result_no_later_call_was_served_is_a_cause():
    raw = json.loads(read_bytes(recording_path("agent-refund-multi-tools-error")))
    ends = [e for e in raw["events"] if e["type"] == P + "stream.tool_end"]
    dropped_id = ends[0]["payload"]["toolCallId"]
    raw["events"] = [e for e in raw["events"] if not (
        e["type"] == P + "context.injected" and e["payload"].get("source") == "tool-result"
        and e["payload"].get("sourceId") == dropped_id)]
    run = open_run(json.dumps(raw).encode())
    never = [c for c in causes_of(run) if c.kind == "result never served"]
    assert len(never) == 1
    assert never[0].detail.full == ends[0]["payload"]["result"]
    # The untouched recording has no such cause.
    assert not [c for c in causes_of(opened("agent-refund-multi-tools-error"))
                if c.kind == "result never served"]


@pytest.mark.parametrize("case", case_names())
def test_causes_hold_no_markup_outside_text_and_links_stay_in_the_step_list(case):
    run = opened(case)
    steps = run.step_map("lens", ROOT).steps
    for cause in causes_of(run):
        assert "\n" not in cause.headline and "\n" not in cause.why
        if cause.nav is not None and cause.nav.step is not None:
            assert 0 <= cause.nav.step < len(steps)


# ─── Compositions ──────────────────────────────────────────────────────


def chain_of(case: str):
    run = opened(case)
    return run, backtrack(run.evidence, None, run.step_map("lens", ROOT))


def test_a_sequence_answer_walks_back_through_the_merge_to_every_earlier_call():
    run, chain = chain_of("nested-sequence-with-parallel")
    reached = {link.call_id for link in chain.links if link.call_id is not None}
    assert reached == set(range(len(run.evidence.calls)))
    merged = [link for link in chain.links if link.relation == MERGED]
    forks = typed(run, "composition.fork_start")
    assert forks  # the recording has a Parallel step
    # One merged answer per branch the recording ran in parallel.
    branch_scopes = {c.scope[:2] for c in run.evidence.calls if len(c.scope) > 2}
    assert len(merged) == len(branch_scopes)
    assert any(link.relation == FORWARDED for link in chain.links)


def test_parallel_branches_do_not_feed_one_another():
    _, chain = chain_of("parallel-3-reviewers")
    assert not [link for link in chain.links if link.relation in (FORWARDED, MERGED)]


@pytest.mark.parametrize("case", ["conditional-routes-to-agent", "conditional-triage-llmcall"])
def test_a_conditional_branch_walks_back_to_its_decision_and_rationale(case):
    run, chain = chain_of(case)
    decided = typed(run, "composition.route_decided")
    decisions = [link for link in chain.links if link.relation == DECIDED]
    assert len(decisions) == 1
    payload = decided[0]["payload"]
    assert payload["chosen"] in decisions[0].title
    assert payload["rationale"] in decisions[0].text.full
    steps = run.step_map("lens", ROOT).steps
    assert steps[decisions[0].nav.step].kind == "decide"


def test_system_prompt_and_user_message_link_to_where_they_first_entered():
    run, chain = chain_of("agent-refund-multi-tools-error")
    first_start = typed(run, "stream.llm_start")[0]["meta"]["runtimeStageId"]
    steps = run.step_map("lens", ROOT).steps
    first_step = next(i for i, s in enumerate(steps) if s.runtime_stage_id == first_start)
    for kind in ("system", "message"):
        link = next(l for l in chain.links if l.kind == kind)  # noqa: E741
        assert link.nav.step == first_step, kind


def test_the_report_quotes_decisions_and_merges_as_code():
    for case in ("conditional-routes-to-agent", "nested-sequence-with-parallel"):
        run, chain = chain_of(case)
        report = backtrack_report(run.evidence, chain, recording_id=run.run_id,
                                  steps=run.step_map("lens", ROOT).steps)
        prose = "".join(split_code(report)[1])
        for link in chain.links:
            if link.kind == "decision":
                assert link.title not in prose


@pytest.mark.parametrize("case", ["agent-refund-multi-tools-error", "hostile-strings-agent",
                                  "skillgraph-rejected-cap-then-model-pick"])
def test_the_report_lists_the_causes_first_with_recording_text_only_in_code(case):
    run = opened(case)
    causes = causes_of(run)
    chain = backtrack(run.evidence, None, run.step_map("lens", ROOT))
    report = backtrack_report(run.evidence, chain, recording_id=run.run_id,
                              steps=run.step_map("lens", ROOT).steps, causes=causes)
    code, prose = split_code(report)
    assert report.index("## Likely causes") < report.index("## Chain")
    for cause in causes:
        assert any(cause.headline in piece for piece in code)
        if cause.detail is not None:
            assert any(cause.detail.full[:200] in piece for piece in code)
    for marker in ("<script", "onerror", "javascript:", "](", "<img"):
        assert marker not in "\n".join(prose), marker

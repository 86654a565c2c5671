"""Partial runs: crashed, cut-off and stitched boundary logs.

A run with no ``run.exit``, with entries that never exit, or with exits that
never entered still yields every step it can under every profile, and
``recorders.balance.analyse_balance`` names what is unbalanced.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache

import pytest

from corpus_files import case_names, load_expected, read_bytes, recording_path
from recorders.balance import GAP_CODE, OpenEnd, analyse_balance
from recorders.loading import Gap, Recording, load_recording
from recorders.projections import PROFILES, Projection, build_projection

CRASH = "crash-provider-error-envelope"
SMALL = ("llmcall-single", "agent-one-tool-envelope", "conditional-triage-llmcall",
         "loop-refine-4-iterations", "parallel-3-reviewers", "nested-sequence-with-parallel",
         "sequence-3-llmcalls-envelope", "skillgraph-route-hops-envelope", CRASH)
# Every projection variant: (profile, per_event).
VARIANTS = [(p, False) for p in PROFILES] + [("reference", True)]


@lru_cache(maxsize=None)
def _recording(case: str) -> Recording:
    return load_recording(read_bytes(recording_path(case)))


def _events(case: str) -> list[dict]:
    return list(_recording(case).boundary_events)


def _project(events: list, profile: str, per_event: bool = False) -> Projection:
    """Through the loader, as a file would arrive: a bare boundary-event list."""
    try:
        return build_projection(load_recording(json.dumps(events)), profile, per_event=per_event)
    except ImportError:  # the lens module is written concurrently
        pytest.skip(f"profile {profile!r} not importable yet")


def _wire(steps) -> list[dict]:
    out = []
    for step in steps:
        wire = step.to_wire()
        wire.pop("seq")
        out.append(wire)
    return out


def _without_meta(steps: list[dict]) -> list[dict]:
    return [{k: v for k, v in s.items() if k != "meta"} for s in steps]


def _only(report, field: str) -> None:
    """Every imbalance list is empty except ``field``."""
    for name in ("open_runs", "unmatched_run_exits", "open_subflows", "unmatched_subflow_exits",
                 "open_llm_calls", "unmatched_llm_ends", "open_tool_calls", "unmatched_tool_ends"):
        if name != field:
            assert getattr(report, name) == (), (name, getattr(report, name))


# ─── The real crash ────────────────────────────────────────────────────


def test_crash_report_names_the_model_call_that_never_ended():
    events = _events(CRASH)
    report = analyse_balance(events)
    assert report.open_llm_calls == (OpenEnd("call-llm#58", 73),)
    assert events[73]["type"] == "llm.start"
    _only(report, "open_llm_calls")
    assert report.run_entries == report.run_exits == 1 and not report.missing_run_exit
    (gap,) = report.gaps()
    assert gap.code == GAP_CODE == "unbalanced"
    assert "llm.start without llm.end" in gap.message and "'call-llm#58'" in gap.message
    assert "boundary event 73" in gap.message


@pytest.mark.parametrize("profile,per_event", VARIANTS)
def test_crash_yields_every_step_including_the_failed_call(profile, per_event):
    projection = _project(_events(CRASH), profile, per_event)
    raw = projection.steps.raw_steps()
    # The start of the call that crashed is shown: that is where the run went wrong.
    assert any(s.anchor.runtime_stage_id == "call-llm#58" and s.kind == "react" for s in raw)
    if profile == "reference":
        variant = "replayIngest" if per_event else "replayCoalesced"
        expected = load_expected(CRASH)["runSteps"][variant]
        assert [s.to_wire() for s in raw] == expected["rawSteps"]
        assert [s.to_wire() for s in projection.get_steps()] == expected["steps"]
    else:
        assert projection.get_steps(), "the lens shows nothing for a crashed run"


def test_every_other_corpus_recording_is_balanced():
    """No false alarms: the 19 runs that finished have nothing unbalanced."""
    for case in case_names():
        report = analyse_balance(_events(case))
        if case == CRASH:
            assert not report.balanced
        else:
            assert report.balanced and report.gaps() == [], (case, report.gaps())


# ─── No run.exit ───────────────────────────────────────────────────────


def _without_crash(step: dict) -> dict:
    meta = step.get("meta")
    if not isinstance(meta, dict) or "crashed" not in meta:
        return step
    rest = {key: value for key, value in meta.items() if key not in ("crashed", "error")}
    return {**step, "meta": rest}


@pytest.mark.parametrize("case", SMALL)
@pytest.mark.parametrize("profile,per_event", VARIANTS)
def test_run_without_run_exit_keeps_every_step_but_the_final_answer(case, profile, per_event):
    events = _events(case)
    assert events[-1]["type"] == "run.exit"
    full = _wire(_project(events, profile, per_event).steps.raw_steps())
    cut = _wire(_project(events[:-1], profile, per_event).steps.raw_steps())
    # Only what run.exit itself releases (the buffered `answers`; the crash it
    # reports, which the lens marks on the call that was open) may be missing.
    assert cut == [_without_crash(step) for step in full[:len(cut)]]
    assert [s["label"] for s in full[len(cut):]] in ([], ["answers"])

    report = analyse_balance(events[:-1])
    assert report.missing_run_exit and report.run_exits == 0
    if case != CRASH:  # the crash also has its model call left open
        _only(report, "open_runs")
    assert "no run.exit" in report.gaps()[0].message


@pytest.mark.parametrize("case", SMALL)
@pytest.mark.parametrize("profile,per_event", VARIANTS)
def test_run_cut_anywhere_shows_the_steps_up_to_the_cut(case, profile, per_event):
    """A log cut after k events shows the full run's first steps, nothing invented."""
    events = _events(case)
    full = _wire(_project(events, profile, per_event).steps.raw_steps())
    for k in range(1, len(events), max(1, len(events) // 12)):
        prefix = events[:k]
        cut = _wire(_project(prefix, profile, per_event).steps.raw_steps())
        if not per_event and events[k]["type"] == "fork.branch" \
                and events[k - 1]["type"] == "fork.branch":
            continue  # a cut inside a fork burst makes a smaller fork, as buildRunSteps would
        if profile == "reference":
            assert cut == full[:len(cut)], (case, k)
        else:
            # The lens fills a model call's meta (tool names) from the tool.start
            # events after it; the steps themselves are the same.
            assert _without_meta(cut) == _without_meta(full[:len(cut)]), (case, k)
        last_ts = max(e["ts"] for e in prefix)
        assert all(s["tsMs"] <= last_ts for s in cut), "a step dated after the last event"

        report = analyse_balance(prefix)
        assert report.missing_run_exit
        depth = Counter()
        for e in prefix:
            if e["type"] in ("subflow.entry", "subflow.exit"):
                depth[e["subflowId"]] += 1 if e["type"] == "subflow.entry" else -1
        assert Counter(end.key for end in report.open_subflows) == +depth


# ─── Entries that never exit, exits that never entered ─────────────────


def _drop(events: list[dict], kind: str, subflow_id: str) -> list[dict]:
    return [e for e in events if not (e["type"] == kind and e.get("subflowId") == subflow_id)]


@pytest.mark.parametrize("profile,per_event", VARIANTS)
def test_parallel_branch_that_never_exits(profile, per_event):
    events = _drop(_events("parallel-3-reviewers"), "subflow.exit", "legal")
    report = analyse_balance(events)
    assert [e.key for e in report.open_subflows] == ["legal"]
    _only(report, "open_subflows")
    (gap,) = report.gaps()
    assert "1 subflow entered but never exited: 'legal'" in gap.message

    steps = _project(events, profile, per_event).get_steps()
    labels = [s.label for s in steps]
    # Per-event replay keeps only a fork's first child (a reference fault): fork (1).
    assert ("fork (1)" if per_event else "fork (3)") in labels, labels
    # No merge claims the branch that never exited: every merged branch did exit.
    for step in steps:
        if step.kind == "merge":
            merged = [t.source for t in step.transitions]
            assert "legal" not in merged and step.meta["mergedCount"] == len(merged), labels
    if profile == "reference":
        assert not any(s.kind == "merge" for s in steps), labels  # it waits for all branches


@pytest.mark.parametrize("profile,per_event", VARIANTS)
def test_parallel_branch_exit_that_never_entered(profile, per_event):
    events = _drop(_events("parallel-3-reviewers"), "subflow.entry", "legal")
    report = analyse_balance(events)
    assert [e.key for e in report.unmatched_subflow_exits] == ["legal"]
    _only(report, "unmatched_subflow_exits")
    assert "1 subflow exit that never entered: 'legal'" in report.gaps()[0].message

    projection = _project(events, profile, per_event)
    steps = projection.get_steps()
    assert any(s.kind == "fork" for s in steps)
    json.dumps([s.to_wire() for s in projection.steps.raw_steps()], allow_nan=False)


@pytest.mark.parametrize("profile,per_event", VARIANTS)
def test_log_cut_at_the_front(profile, per_event):
    """The start of the run is missing: exits without entries, run.exit without run.entry."""
    events = _events("sequence-3-llmcalls-envelope")
    k = len(events) // 2
    rest = events[k:]
    report = analyse_balance(rest)
    assert report.unmatched_run_exits and report.run_entries == 0
    started = Counter(e["subflowId"] for e in events[:k] if e["type"] == "subflow.entry")
    ended = Counter(e["subflowId"] for e in events[:k] if e["type"] == "subflow.exit")
    assert Counter(e.key for e in report.unmatched_subflow_exits) == started - ended
    messages = " ".join(g.message for g in report.gaps())
    assert "without a run.entry" in messages and "never entered" in messages

    full = _wire(_project(events, profile, per_event).steps.raw_steps())
    tail = _wire(_project(rest, profile, per_event).steps.raw_steps())
    assert tail, "a run cut at the front still has steps to show"
    first_kept_ts = rest[0]["ts"]
    assert all(s["tsMs"] >= first_kept_ts for s in tail)
    assert len(tail) <= len(full)


@pytest.mark.parametrize("profile,per_event", VARIANTS)
def test_tool_call_that_never_ended(profile, per_event):
    events = _events("agent-one-tool-envelope")
    cut = [e for e in events if e["type"] != "tool.end"]
    report = analyse_balance(cut)
    assert report.open_tool_calls == (OpenEnd("call-wx-1", 21, "get_weather"),)
    _only(report, "open_tool_calls")
    assert "get_weather 'call-wx-1'" in report.gaps()[0].message
    # tool.end carries no step of its own: the steps are those of the whole run.
    assert _wire(_project(cut, profile, per_event).get_steps()) == \
        _wire(_project(events, profile, per_event).get_steps())


# ─── The report itself ─────────────────────────────────────────────────


def test_report_on_malformed_logs_never_raises():
    report = analyse_balance([None, 1, "x", [], {}, {"type": 3}, {"type": "subflow.exit"},
                              {"type": "subflow.entry", "subflowId": ["a"]},
                              {"type": "tool.start", "toolCallId": 5, "runtimeStageId": None}])
    assert report.unreadable == 6
    assert [e.key for e in report.unmatched_subflow_exits] == [""]
    assert [e.key for e in report.open_subflows] == [""]
    assert all(isinstance(g, Gap) for g in report.gaps())


def test_gap_messages_are_one_line_and_list_at_most_five_ids():
    hostile = ["a\nb", "x" * 500, "\x1b[31m", "<script>", *[f"s{i}" for i in range(16)]]
    events = [{"type": "subflow.entry", "subflowId": sid} for sid in hostile]
    (gap,) = analyse_balance(events).gaps()
    assert gap.message.startswith("20 subflows entered but never exited: ")
    assert gap.message.endswith("and 15 more")
    assert len(gap.message.splitlines()) == 1 and len(gap.message) < 600
    assert "'a b' at boundary event 0" in gap.message
    assert "\x1b" not in gap.message and "'\\x1b[31m' at boundary event 2" in gap.message


def test_a_loop_reentering_the_same_subflow_is_balanced():
    events = []
    for _ in range(3):
        events += [{"type": "subflow.entry", "subflowId": "body"},
                   {"type": "llm.start", "runtimeStageId": "body/call-llm#1"},
                   {"type": "llm.end", "runtimeStageId": "body/call-llm#1"},
                   {"type": "subflow.exit", "subflowId": "body"}]
    assert analyse_balance(events).balanced
    report = analyse_balance(events[:-1])
    assert report.open_subflows == (OpenEnd("body", 8),)  # the last pass, not the first

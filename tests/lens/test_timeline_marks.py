"""The timeline marks the framework's retries, fallbacks, recoveries, pauses
and check-ins: every such typed event once, on its lane, its words escaped."""

from __future__ import annotations

import gzip
import json
from types import SimpleNamespace

from family_files import family_recording
from lens.run import open_run
from lens.timeline import (CHECK_IN, FALLBACK, MARK, PAUSED, RECOVERED, RETRY, build_timeline,
                           mark_summary)
from lens.timeline_figure import timeline_figure

P = "agentfootprint."
# Spelled here from the list, not read from the catalogue the code reads.
MARKED_PREFIXES = ("error.retried", "error.recovered", "error.circuit_changed", "reliability.",
                   "resilience.", "fallback.", "pause.", "checkin.")


def family_run(case: str):
    data = gzip.decompress(family_recording(case).read_bytes())
    return open_run(data), json.loads(data)["events"]


def marked_in_file(events) -> list[int]:
    return [i for i, e in enumerate(events)
            if e["type"].removeprefix(P).startswith(MARKED_PREFIXES)]


def test_every_retry_fallback_and_circuit_change_of_the_circuit_breaker_run_is_marked_once():
    run, events = family_run("travel-desk-circuit-breaker")
    timeline = build_timeline(run.evidence)
    assert [m.event_index for m in timeline.marks] == marked_in_file(events)
    kinds = {events[m.event_index]["type"].removeprefix(P): m.kind for m in timeline.marks}
    assert kinds == {"fallback.triggered": FALLBACK, "error.circuit_changed": RECOVERED,
                     "error.retried": RETRY, "error.recovered": RECOVERED}
    assert mark_summary(timeline) == "1 retry, 3 fallbacks, 2 recoveries or circuit changes"


def test_the_check_in_and_its_pause_are_marked_in_time_order():
    run, events = family_run("wire-transfer-checkin-declined")
    timeline = build_timeline(run.evidence)
    assert [m.kind for m in timeline.marks] == [CHECK_IN, PAUSED, PAUSED, CHECK_IN]
    times = [m.at_ms for m in timeline.marks]
    assert times == sorted(times) and all(0 <= t for t in times)


def test_the_canned_answer_without_meta_is_marked_at_its_own_timestamp():
    run, events = family_run("returns-bot-canned-after-provider-outage")
    timeline = build_timeline(run.evidence)
    canned = [m for m in timeline.marks if m.type_name == "resilience.output_canned_used"]
    assert len(canned) == 1 and canned[0].kind == FALLBACK and canned[0].timed
    event = events[canned[0].event_index]
    assert "meta" not in event
    assert canned[0].at_ms == event["timestamp"] - timeline.origin_ms


def _call(ts_start, ts_end):
    return SimpleNamespace(id=0, ts_start=ts_start, ts_end=ts_end, scope=(), model="m",
                           failure=None)


def test_a_mark_without_a_time_sits_at_the_runs_end_and_its_hover_says_so_escaped():
    typed = [{"type": P + "error.retried",
              "payload": {"attempt": 1, "lastError": "<img src=x onerror=alert(1)>"}}]
    evidence = SimpleNamespace(calls=[_call(1_000, 1_400)], tool_calls=[],
                               stages=SimpleNamespace(typed_events=typed))
    timeline = build_timeline(evidence)
    [mark] = timeline.marks
    assert (mark.kind, mark.at_ms, mark.timed) == (RETRY, 400, False)
    [trace] = [t for t in timeline_figure(timeline).to_dict()["data"] if t["name"] == "retries"]
    assert "<img" not in trace["hovertext"][0]
    assert "&lt;img src=x onerror=alert(1)&gt;" in trace["hovertext"][0]
    assert "no time recorded" in trace["hovertext"][0]
    assert trace["customdata"] == [[MARK, None]]


def test_marks_that_share_a_moment_on_a_lane_are_spread_apart_not_stacked():
    run, _ = family_run("travel-desk-circuit-breaker")
    figure = timeline_figure(build_timeline(run.evidence)).to_dict()
    points = [(x, y) for trace in figure["data"] if trace["type"] == "scatter"
              for x, y in zip(trace["x"], trace["y"])]
    # At 8 ms the circuit opened, a fallback served the call and a retry began.
    assert len(points) == 6 and len(set(points)) == 6

"""The step detail, the run header and the served-context panel tell one story.

Over every corpus recording and both projections: for every model call a
step shows, the step detail and the served-context panel name the same call,
the same tools asked for (with the same result text on screen) and the same
token counts, and the panel's "call starts / ends" links lead back to steps
that show that call. The header's totals add up to the calls the steps show,
and equal the sums read straight from the recording's ``stream.llm_end`` and
``stream.tool_*`` events.
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from corpus_files import case_names, read_bytes, recording_path
from lens.evidence.served import ServedContext, served_context_for_step
from lens.run import PROFILES, OpenRun, open_run
from lens.step_detail import LLM_TO_TOOL, StepDetail, describe_step
from lens.summary import summarise

P = "agentfootprint."


@lru_cache(maxsize=None)
def opened(case: str) -> OpenRun:
    return open_run(read_bytes(recording_path(case)))


def facts(pairs) -> dict[str, str]:
    return dict(pairs)


def shown_run_events(run: OpenRun, kind: str) -> list[dict]:
    """Typed events of ``kind`` in the run the steps show (the last, when there are several)."""
    runs = run.recording.typed_run_ids
    return [e for e in run.recording.typed_events if e.get("type") == P + kind
            and (len(runs) < 2 or e.get("meta", {}).get("runId") == runs[-1])]


def shown_calls(run: OpenRun, profile: str) -> list[tuple[int, StepDetail, ServedContext]]:
    """(position, step detail, served context) for every step, in every scope,
    whose detail names a model call."""
    found = []
    for path in run.scopes(profile).paths():
        step_map = run.step_map(profile, path)
        steps = run.scoped_steps(profile, path)
        for position in range(steps.local_count):
            detail = describe_step(steps.steps[position], run.evidence)
            if detail.call_id is None:
                continue
            model, _ = served_context_for_step(run.evidence, step_map, position)
            found.append((position, detail, model, step_map))
    return found


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("case", case_names())
def test_each_call_reads_the_same_in_the_step_detail_and_the_served_context(case, profile):
    run = opened(case)
    for position, detail, model, step_map in shown_calls(run, profile):
        assert model is not None and model.call_id == detail.call_id, (case, position)
        # Position: the panel's links lead to steps that show this very call.
        shown_at = step_map.steps_for_call(detail.call_id)
        assert position in shown_at
        assert model.start_nav.step == shown_at[0] and model.end_nav.step == shown_at[-1]
        # Tokens: the same counts, or both say the recording has none.
        detail_facts, served_facts = facts((f.name, f.value) for f in detail.facts), \
            facts(model.facts)
        if "Input tokens (llm_end)" in served_facts:
            assert detail_facts.get("tokens in", "not recorded") == \
                served_facts["Input tokens (llm_end)"]
            assert detail_facts.get("tokens out", "not recorded") == \
                served_facts["Output tokens (llm_end)"]
        # Tools: an llm→tool step lists exactly the calls the panel says were
        # asked for, and shows each result as the panel does.
        if detail.heading.endswith(LLM_TO_TOOL):
            assert [(t.name, t.call_id) for t in detail.tools_asked] == \
                [(t.name or "(unnamed tool)", t.tool_call_id) for t in model.tool_rows]
            for asked, row in zip(detail.tools_asked, model.tool_rows):
                assert (asked.result is None) == (row.result is None)
                if asked.result is not None:
                    assert asked.result.text == row.result.text


@pytest.mark.parametrize("case", case_names())
def test_the_header_totals_are_the_calls_the_steps_show_and_the_recording_holds(case):
    run = opened(case)
    projection = run.projection("lens")
    summary = summarise(run.evidence, projection.route.get_path(), run.recording.run_info)
    shown = {detail.call_id: detail for _, detail, _, _ in shown_calls(run, "lens")}
    ends = shown_run_events(run, "stream.llm_end")
    # Every model call of the run is shown by some step, and counted once.
    assert summary.model_calls == len(shown_run_events(run, "stream.llm_start")) == len(shown)
    usages = [e["payload"].get("usage") or {} for e in ends]
    recorded_in = [u["input"] for u in usages if "input" in u]
    recorded_out = [u["output"] for u in usages if "output" in u]
    assert summary.tokens_in == (sum(recorded_in) if recorded_in else None)
    assert summary.tokens_out == (sum(recorded_out) if recorded_out else None)
    detail_in = [float(d_facts["tokens in"]) for d_facts in
                 (facts((f.name, f.value) for f in d.facts) for d in shown.values())
                 if "tokens in" in d_facts]
    assert (sum(detail_in) if detail_in else None) == summary.tokens_in
    tool_ends = shown_run_events(run, "stream.tool_end")
    assert summary.tool_calls == len(shown_run_events(run, "stream.tool_start"))
    assert summary.failed_tool_calls == sum(1 for e in tool_ends
                                            if e["payload"].get("error") is True)

"""The plain-language sentence of each step names only recorded facts.

For every step of every scope of every corpus recording, in both
projections, each recorded value the sentence quotes must occur in the
step's own evidence: the events at its stage, the events of the model call
and tool calls it shows, or the projected step itself. The events are read
from the file by position here, not through the sentence's own code.
"""

from __future__ import annotations

import pytest

from corpus_files import case_names, read_bytes, recording_path
from lens.plain_words import step_sentence
from lens.run import open_run
from lens.step_detail import describe_step, step_call, step_tools
from recorders.projections import PROFILES
from recorders.run_step import REACT
from recorders.values import is_number, js_number_text


def leaves(value, strings: set[str], numbers: set[str]) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            strings.update(k for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            strings.add(item)
        elif is_number(item):
            numbers.add(js_number_text(item))


def step_evidence(run, step) -> tuple[set[str], set[str]]:
    evidence = run.evidence
    stages = evidence.stages
    stream = (run.recording.boundary_events if evidence.source == "boundary"
              else run.recording.typed_events)
    events = [stages.boundary_events[i] for i in stages.boundary_indexes(step.runtime_stage_id)]
    events += [stages.typed_events[i] for i in stages.typed_indexes(step.runtime_stage_id)]
    call = step_call(step, evidence)
    if call is not None and step.kind == REACT:
        positions = [call.start_event_index, call.end_event_index]
        for tool in step_tools(step, evidence):
            positions += [tool.start_event_index, tool.end_event_index]
        events += [stream[p] for p in positions if p is not None]
    strings: set[str] = set()
    numbers: set[str] = set()
    leaves([events, step.to_wire()], strings, numbers)
    return strings, numbers


@pytest.mark.parametrize("case", case_names())
def test_each_sentence_names_only_facts_in_its_steps_events(case):
    run = open_run(read_bytes(recording_path(case)))
    sentences = 0
    for profile in PROFILES:
        scopes = run.scopes(profile)
        for path in scopes.paths():
            for step in scopes.get(path).steps:
                sentence = step_sentence(step, run.evidence)
                assert sentence.text.strip(), (profile, step.runtime_stage_id)
                assert "None" not in sentence.text.replace("“None”", "")
                strings, numbers = step_evidence(run, step)
                for value in sentence.values:
                    assert value in numbers or any(value in s for s in strings), \
                        (profile, step.runtime_stage_id, value, sentence.text)
                sentences += 1
    assert sentences


def test_the_failing_refund_call_says_which_tool_failed_and_why():
    run = open_run(read_bytes(recording_path("agent-refund-multi-tools-error")))
    said = [step_sentence(s, run.evidence) for s in run.root_steps("lens")]
    failing = [s for s in said if "failed" in s.text]
    assert failing
    tool_calls = [t for t in run.evidence.tool_calls if t.failed]
    assert tool_calls
    assert tool_calls[0].name in failing[0].values
    assert any(str(tool_calls[0].result)[:30] in value for value in failing[0].values)


@pytest.mark.parametrize("case", case_names())
def test_no_step_detail_shows_a_literal_none(case):
    run = open_run(read_bytes(recording_path(case)))
    for profile in PROFILES:
        scopes = run.scopes(profile)
        for path in scopes.paths():
            for step in scopes.get(path).steps:
                detail = describe_step(step, run.evidence)
                cells = [f.value for f in detail.facts] + [e.type for e in detail.events]
                cells += [t.name for t in detail.tools_asked + detail.tool_results]
                cells += list(detail.branches)
                assert "None" not in cells, (profile, step.runtime_stage_id, cells)



# ─── tool arguments stay in the sentence ───────────────────────────────


def _family_sentences(case: str) -> list[str]:
    import gzip
    from family_files import family_recording
    run = open_run(gzip.decompress(family_recording(case).read_bytes()))
    return [step_sentence(s, run.evidence).text for s in run.root_steps("lens")]


def test_a_three_argument_tool_call_names_its_third_argument_the_date():
    # search_flights was asked with from, to and date; the date is what was asked for.
    asked = [t for t in _family_sentences("travel-desk-circuit-breaker")
             if t.startswith("The model asked for “search_flights”")]
    assert asked
    assert "“date” = “2026-05-14”" in asked[0]


def test_arguments_past_the_named_ones_are_counted_not_dropped():
    from lens.plain_words import _Words, _arguments
    words = _Words()
    _arguments(words, {"a": "1", "b": 2, "flag": True, "nested": {"x": 1}, "items": [1, 2]})
    text = words.done().text
    assert text == " with “a” = “1”, “b” = 2, “flag” = true and 2 more arguments"


def test_an_object_or_list_argument_is_described_not_left_out():
    from lens.plain_words import _Words, _arguments
    words = _Words()
    _arguments(words, {"filters": {"region": "eu", "tier": 2}, "ids": [7, 8, 9]})
    assert words.done().text == " with “filters” = an object of 2 fields, “ids” = a list of 3 items"


def test_a_numeric_argument_reads_differently_from_the_same_digits_as_text():
    # The crew booking was refused because crewId was the number 7 and hours the text "6".
    asked = [t for t in _family_sentences("field-ops-args-invalid-progress")
             if t.startswith("The model asked for “schedule_crew”")]
    assert asked[0].startswith("The model asked for “schedule_crew” with “crewId” = 7, "
                               "“hours” = “6”")

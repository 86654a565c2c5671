"""An answer that repeats one remembered entry's figures while another entry
served to the same call states others is a likely cause: the real RAG case
(facts.json) and small hand-built runs, one behaviour each."""

from __future__ import annotations

from evidence_events import (composed, inject, llm_end, llm_start, tool_end, tool_start,
                             turn_start)
from family_facts import family_facts
from family_files import family_recording
from lens.evidence.causes import likely_causes
from recorders.evidence import build_evidence_index, build_from_events
from recorders.loading import load_path

KIND = "answer repeats a contradicted memory"
CASE = "hr-handbook-rag-outdated-policy"


def _memory_causes(index):
    return [cause for cause in likely_causes(index) if cause.kind == KIND]


def _rag_run(entries: list[tuple[str, str]], answer: str) -> list[dict]:
    """One call served ``entries`` (entry id, text) from retrieval, answering ``answer``."""
    events = [turn_start("How long is the leave?"),
              inject("system-prompt", "Answer from the passages.", source="base")]
    events += [inject("system-prompt", text, source="rag", source_id=f"memory:kb#{entry}",
                      reason=f"retrieved '{entry}'") for entry, text in entries]
    events += [composed("system-prompt"),
               inject("messages", "How long is the leave?", source="user", role="user",
                      position=0)]
    events += [composed("messages"), llm_start("call-llm#1"), llm_end("call-llm#1", answer)]
    return events


def test_the_rag_case_names_the_outdated_entry_the_figure_and_the_entry_that_disagrees():
    expected = family_facts(CASE)["expected"]
    index = build_evidence_index(load_path(str(family_recording(CASE))))
    [cause] = _memory_causes(index)
    # The answer's figure and the entries, from the framework's own account of the run.
    [ranked_first] = [c["id"] for c in expected["memoryRetrieved"][0]["candidates"]
                      if c["rank"] == 1]
    current = next(m["memoryId"] for m in expected["memoryAttached"]
                   if m["memoryId"] != ranked_first)
    assert "4 weeks" in expected["answer"]
    assert "“4 weeks”" in cause.headline and ranked_first in cause.headline
    assert current in cause.headline and "“20 weeks”" in cause.headline
    assert cause.subject == ranked_first and cause.is_error  # the newer entry disagrees
    assert "older entry" in cause.why and "rank 1, score 0.95" in cause.why
    # It rests on both injections and the answer, each at its typed index.
    injected = {i["payload"]["sourceId"].rsplit("#", 1)[1]: i["typedIndex"]
                for i in expected["ragInjections"]}
    assert {injected[ranked_first], injected[current]} <= set(cause.events)
    assert cause.nav is not None


def test_the_first_screen_leads_with_it_when_the_run_has_no_other_cause():
    index = build_evidence_index(load_path(str(family_recording(CASE))))
    assert likely_causes(index)[0].kind == KIND


def test_entries_that_agree_with_the_answer_are_no_cause():
    events = _rag_run([("leave-a", "Parents get 20 weeks of leave."),
                       ("leave-b", "All parents: 20 weeks paid.")],
                      "You get 20 weeks of leave.")
    assert _memory_causes(build_from_events(events)) == []


def test_a_single_remembered_entry_is_no_contradiction():
    events = _rag_run([("leave-a", "Parents get 4 weeks of leave.")], "You get 4 weeks.")
    assert _memory_causes(build_from_events(events)) == []


def test_figures_of_other_units_do_not_contradict():
    events = _rag_run([("leave-a", "Parents get 4 weeks of leave."),
                       ("pay-b", "Leave is paid within 12 days.")], "You get 4 weeks.")
    assert _memory_causes(build_from_events(events)) == []


def test_a_figure_a_tool_returned_is_grounded_and_no_cause():
    entries = [("leave-a", "Parents get 4 weeks of leave."),
               ("leave-b", "Parents get 20 weeks of leave.")]
    assert _memory_causes(build_from_events(_rag_run(entries, "You get 4 weeks."))) != []
    looked_up = [tool_start("policy_lookup", "c1", {"topic": "leave"}),
                 tool_end("c1", "Current policy: 4 weeks")]
    events = looked_up + _rag_run(entries, "You get 4 weeks.")
    assert _memory_causes(build_from_events(events)) == []


def test_without_years_it_is_a_warning_that_says_which_entry_the_answer_followed():
    events = _rag_run([("leave-a", "Secondary caregivers receive 4 weeks of paid leave."),
                       ("leave-b", "Every parent receives 20 weeks paid leave.")],
                      "As a secondary caregiver you get 4 weeks.")
    [cause] = _memory_causes(build_from_events(events))
    assert not cause.is_error and "older" not in cause.why
    assert cause.headline == ("The answer's “4 weeks” comes from the remembered entry leave-a, "
                              "while leave-b, served with it, says “20 weeks”")
    assert "“Secondary caregivers receive 4 weeks of paid leave.”" in cause.why

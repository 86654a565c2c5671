"""Every surface names a run and says how it ended from one set of run facts.

The archive's rows, the exported HTML page, `footprint-lens info` and a
comparison each show a run's id, agent, first message, answer and ending.
Each used to work them out its own way (the archive called a stopped run
"completed", Compare said "complete" where the run page said "stopped"). Here
every recording the project holds is read by each surface, and each must say
what the others say. What the facts themselves should be is pinned against
the recordings' ground truth elsewhere (tests/evidence/test_run_outcome.py,
the archive manifest in tests/archive).
"""

from __future__ import annotations

import pytest

from archive.rows import RUN, index_file
from corpus_files import case_names, pair_names, pair_run_path, read_bytes, recording_path
from family_files import family_names, family_recording
from lens.compare.comparison import compare_runs
from lens.evidence.outcome import ENDINGS
from lens.run import OpenRun
from lens.run_facts import runs_held
from lens.share.html import export_data
from lens.summary import summarise
from lens_cli.info_command import outcome_to_wire
from recorders.loading import first_run, load_file

FILES = ([("family", name, family_recording(name)) for name in family_names()]
         + [("corpus", name, recording_path(name)) for name in case_names()]
         + [("pair", f"{name}/a", pair_run_path(name, "a")) for name in pair_names()])


def _strings(data: dict, value):
    """The exported page keeps recording text in a string table: its index -> the text."""
    return data["strings"][value] if isinstance(value, int) else value


@pytest.mark.parametrize("where, name, path", FILES, ids=[f"{w}:{n}" for w, n, _ in FILES])
def test_each_surface_says_what_the_run_facts_say(where, name, path):
    data = read_bytes(path)
    loaded = load_file(data)
    recording = first_run(loaded)
    run = OpenRun(recording, runs_in_file=runs_held(loaded.runs))
    facts = run.facts
    assert facts.outcome.ended in ENDINGS

    indexed = index_file(path.name, path.read_bytes())
    assert indexed.status == RUN, indexed.problem
    [row] = indexed.tables["runs"]
    assert (row["run_id"], row["agent"], row["final_answer"], row["ended"], row["outcome"],
            row["runs_in_file"]) == (facts.run_id, facts.agent, facts.final_answer,
                                     facts.outcome.ended, facts.outcome.sentence or None,
                                     facts.runs_in_file)
    if facts.first_message is not None:
        assert row["user_message"] == facts.first_message
    # The row counts the calls of its own run, as the run bar does (a file can
    # hold earlier runs; a resumed run's parts are one run).
    bar = summarise(run.evidence, [], recording.run_info, facts)
    assert (row["model_calls"], row["tool_calls"]) == (bar.model_calls, bar.tool_calls)
    assert {call["run_id"] for call in indexed.tables["model_calls"]} <= {facts.run_id}

    page = export_data(OpenRun(recording, runs_in_file=runs_held(loaded.runs)), path.name)
    assert _strings(page, page["first"]["sentence"]) == facts.outcome.sentence
    kind, headline, _detail = page["run"]["outcome"]
    assert (kind, _strings(page, headline)) == (facts.outcome.kind, facts.outcome.headline)
    assert page["first"]["chips"][0][0].startswith(f"Run: {facts.outcome.ended}")

    wire = outcome_to_wire(facts.outcome, run)
    assert (wire["ended"], wire["sentence"], wire["answer"]) == (
        facts.outcome.ended, facts.outcome.sentence, facts.final_answer)

    compared = compare_runs(run, run)
    assert (compared.ending_a.status, compared.ending_a.sentence, compared.ending_a.answer) == (
        facts.outcome.ended, facts.outcome.sentence, facts.final_answer)

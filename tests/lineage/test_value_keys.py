"""Which state key holds a served text (lens/value_keys.py): by exact text,
the last write before the call (its own commit for its output), through the
subflow a call ran in; and the honest reasons when none is named."""

from __future__ import annotations

from lens.key_timeline_figure import READS, WRITES, key_chart, key_timeline_figure
from lens.lineage_view import StageRow, WhereFrom
from lens.step_places import StepPlace
from lens.value_keys import (INPUT, NO_TEXT, NOT_IN_STATE, OUTPUT, STAGE_NOT_IN_LOG, KeyMatch,
                             NoMatch, ValueIndex, match_words)
from recorders.lineage import DELIM, Lineage


def _commit(rid: str, stage: str, **written) -> dict:
    return {"runtimeStageId": rid, "stage": stage, "overwrite": written,
            "trace": [{"path": key, "verb": "set"} for key in written]}


QUESTION, ANSWER = "Which order?", "Order A-1."
LOG = [
    _commit("seed#0", "Seed", inbox=[{"role": "user", "text": QUESTION}]),
    _commit("call#1", "Call", reply=ANSWER),
    _commit("copy#2", "Copy", archived=QUESTION),           # after the call: not its source
    _commit("sf#3", "Subflow", result=ANSWER + " (sub)"),   # a subflow's commit, for sf/inner#5
    _commit("sf#9", "Subflow", result="a later run of the subflow"),
]


def index() -> ValueIndex:
    return ValueIndex(Lineage({"commitLog": LOG}))


def test_a_served_text_names_the_last_key_written_with_it_before_the_call():
    found = index().key_holding(QUESTION, "call#1", INPUT)
    assert isinstance(found, KeyMatch)
    assert (found.key, found.commit, found.inner) == ("inbox", 0, ("0", "text"))
    assert (found.stage_name, found.runtime_stage_id, found.others) == ("Seed", "seed#0", 0)
    assert match_words(found) == ("State key inbox (at 0/text inside it): written at commit 0 "
                                  "by Seed.")


def test_an_output_is_found_in_the_call_stage_own_commit_but_never_as_its_input():
    assert index().key_holding(ANSWER, "call#1", OUTPUT).key == "reply"
    assert index().key_holding(ANSWER, "call#1", INPUT) == NoMatch(NOT_IN_STATE)


def test_a_call_inside_a_subflow_is_bounded_by_the_subflow_run_around_it():
    found = index().key_holding(ANSWER + " (sub)", "sf/inner#5", OUTPUT)
    assert (found.key, found.commit) == ("result", 3)
    # The run of the subflow that started after the call is not the one around it.
    assert index().key_holding("a later run of the subflow", "sf/inner#5", OUTPUT) == \
        NoMatch(NOT_IN_STATE)


def test_no_key_is_named_without_a_text_or_a_stage_in_the_log():
    assert index().key_holding(None, "call#1") == NoMatch(NO_TEXT)
    assert index().key_holding("", "call#1") == NoMatch(NO_TEXT)
    assert index().key_holding(QUESTION, "elsewhere#4") == NoMatch(STAGE_NOT_IN_LOG)
    assert index().key_holding(QUESTION, 7) == NoMatch(STAGE_NOT_IN_LOG)


def test_a_nested_written_key_is_named_by_its_path():
    log = [{"runtimeStageId": "a#0", "stage": "A", "overwrite": {"box": {"lid": QUESTION}},
            "trace": [{"path": f"box{DELIM}lid", "verb": "set"}]}]
    found = ValueIndex(Lineage({"commitLog": log})).key_holding(QUESTION, "b#1", OUTPUT)
    assert isinstance(found, NoMatch)  # b#1 has no commit
    found = ValueIndex(Lineage({"commitLog": log})).key_holding(QUESTION, "a#0", OUTPUT)
    assert (found.key, found.inner) == (f"box{DELIM}lid", ())
    assert match_words(found).startswith("State key box/lid: written at commit 0")


def _row(what: str, index: int | None, commit: int, path=("__root__",)) -> StageRow:
    place = None if index is None else StepPlace(tuple(path), index, 6)
    return StageRow("seed#0", "Seed", place, what, commit=commit)


def test_the_chart_puts_moments_on_the_scope_steps_and_counts_the_rest():
    lineage = Lineage({"commitLog": LOG})
    view = WhereFrom("inbox", (), (_row("set", 1, 0), _row("read", 1, 0), _row("set", 1, 0),
                                   _row("set", 4, 0, ("__root__", "sf")), _row("set", None, 0)),
                     (), ())
    chart = key_chart(view, lineage, ("__root__",), 6, 3)
    assert [(p.row, p.step_index, len(p.moments)) for p in chart.points] == \
        [(WRITES, 1, 2), (READS, 1, 1)]
    assert (chart.elsewhere, chart.unplaced) == (1, 1)
    figure = key_timeline_figure(chart)
    [writes] = [trace for trace in figure.data if trace.name == WRITES]
    assert list(writes.x) == [2] and list(writes.customdata) == [1]
    assert "2 writes" in writes.hovertext[0] and QUESTION in writes.hovertext[0]
    assert figure.layout.shapes[0].x0 == 4  # the slider's step 4 (index 3)
    assert list(figure.layout.xaxis.range) == [0.5, 6.5]

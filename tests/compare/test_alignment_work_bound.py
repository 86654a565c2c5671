"""The step alignment's work bound: a crafted pair is paired by position, quickly
and with a word why; ordinary runs align exactly as difflib aligns them."""

from __future__ import annotations

import dataclasses
import difflib
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compare_support import pair_run
from lens.compare import compare_runs, comparison_text, comparison_to_wire
from lens.compare.alignment import (CHANGED, DIFFLIB_WORK_BUDGET, MAX_ALIGNED_MIDDLE, ONLY_A,
                                    ONLY_B, SAME, TOO_DIFFERENT, TOO_LONG, _difflib_blocks,
                                    _minimal_diff_blocks, _OverBudget, align_steps)
from lens.placement import StepRow

TOOL, MODEL = ("tool", "search"), ("llm", "answer")


def steps(signatures: list[tuple[str, str]]) -> list[StepRow]:
    return [StepRow(("__root__",), index, kind, label, (index, 0))
            for index, (kind, label) in enumerate(signatures)]


def crafted_pair(size: int = MAX_ALIGNED_MIDDLE) -> tuple[list[StepRow], list[StepRow]]:
    """Run A: one step kind, over and over; run B: it alternating with another.
    Their first and last steps differ, so all of it is the middle. difflib's
    longest match is then one step long, found by walking every pair of steps,
    once per match: cubic (215 s of CPU for this pair before the bound)."""
    run_a = [("user", "start a")] + [TOOL] * (size - 2) + [("user", "end a")]
    run_b = [("user", "start b")] + [TOOL, MODEL] * ((size - 2) // 2) + [("user", "end b")]
    return steps(run_a), steps(run_b)


def test_the_crafted_pair_is_paired_by_position_in_well_under_a_second_of_cpu():
    rows_a, rows_b = crafted_pair()
    started = time.process_time()
    aligned = align_steps(rows_a, rows_b)
    cpu = time.process_time() - started
    assert cpu < 2.0, f"{cpu:.2f} s of CPU"
    fallback = aligned.paired_by_position
    assert fallback is not None and fallback.reason == TOO_DIFFERENT
    assert (fallback.first_row, fallback.rows) == (0, 3000)
    assert (fallback.steps_a, fallback.steps_b) == (3000, 3000)
    # By position: row k holds step k of each run.
    assert [(row.a.index, row.b.index) for row in aligned.rows] == [(k, k) for k in range(3000)]
    assert [row.status for row in aligned.rows[:4]] == [CHANGED, SAME, CHANGED, SAME]
    sentence = fallback.sentence()
    assert "rows 1–3,000: paired by position, not aligned" in sentence
    assert "too different to align" in sentence


def test_the_bound_is_on_work_not_length_a_long_ordinary_middle_still_aligns():
    """A middle as long as the crafted one, of varied steps with one step
    inserted and one removed, aligns as before (and fast)."""
    run_a = [("tool", f"call {n}") for n in range(MAX_ALIGNED_MIDDLE)]
    run_b = run_a[:1000] + [("llm", "retry")] + run_a[1000:2000] + run_a[2001:]
    run_a = [("user", "start a")] + run_a[1:]  # differs at the first step and the last
    run_b = [("user", "start b")] + run_b[1:-1] + [("user", "end b")]
    started = time.process_time()
    aligned = align_steps(steps(run_a), steps(run_b))
    assert time.process_time() - started < 2.0
    assert aligned.paired_by_position is None
    statuses = [row.status for row in aligned.rows]
    assert statuses[0] == CHANGED
    assert statuses[1000] == ONLY_B and aligned.rows[1000].b.label == "retry"
    assert statuses[2001] == ONLY_A and aligned.rows[2001].a.label == "call 2000"
    assert statuses[-1] == CHANGED
    assert statuses.count(SAME) == MAX_ALIGNED_MIDDLE - 3


def test_a_long_loop_with_a_few_edits_past_difflibs_budget_aligns_minimally():
    """Real agent loops repeat a few step kinds (the large corpus run: four in
    5,964 steps). A 2,990-step middle of model and tool calls taking turns,
    with steps cut and added, walks ~9 M steps of difflib, past its budget;
    the minimal diff aligns it with exactly those edits."""
    loop = [("react", "llm→tool"), ("react", "tool→llm")] * 1495
    run_a = [("react", "user→llm")] + loop + [("react", "llm→user")]
    run_b = list(run_a)
    del run_b[2500:2502]               # one model-and-tool round fewer
    del run_b[1201]                    # one step fewer
    run_b[700:700] = [("react", "llm→tool (retried)")] * 3  # three tool calls more
    run_b[0], run_b[-1] = ("react", "user→llm (retry)"), ("react", "llm→user (retry)")
    with pytest.raises(_OverBudget):  # the premise: difflib alone would give up
        _difflib_blocks(run_a, run_b, DIFFLIB_WORK_BUDGET)
    started = time.process_time()
    aligned = align_steps(steps(run_a), steps(run_b))
    assert time.process_time() - started < 2.0
    assert aligned.paired_by_position is None
    statuses = [row.status for row in aligned.rows]
    # Every step of B but the five new ones is a step of A, in order: all of them
    # match (where the cut steps are placed within a repeating stretch is free).
    assert statuses.count(SAME) == len(run_b) - 5 == len(run_a) - 2 - 3
    assert sum(row.a is not None for row in aligned.rows) == len(run_a)
    assert sum(row.b is not None for row in aligned.rows) == len(run_b)


def _lcs_length(a: list, b: list) -> int:
    """The longest common subsequence, by the textbook table."""
    previous = [0] * (len(b) + 1)
    for x in a:
        row = [0]
        for j, y in enumerate(b):
            row.append(previous[j] + 1 if x == y else max(previous[j + 1], row[j]))
        previous = row
    return previous[-1]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=30), st.lists(st.sampled_from("abc"),
                                                                max_size=30))
def test_the_minimal_diff_matches_a_longest_common_subsequence(a, b):
    blocks = _minimal_diff_blocks(a, b, budget=10**9)
    assert blocks[-1] == (len(a), len(b), 0)
    assert sum(size for _, _, size in blocks) == _lcs_length(a, b)
    end_a = end_b = 0
    for i, j, size in blocks:
        assert i >= end_a and j >= end_b and a[i:i + size] == b[j:j + size]
        end_a, end_b = i + size, j + size


def test_an_ordinary_insertion_and_deletion_align_as_before():
    run_a = [("user", "ask"), ("llm", "plan"), ("tool", "search"), ("llm", "read"),
             ("tool", "fetch"), ("llm", "answer")]
    run_b = [("user", "ask"), ("llm", "plan"), ("tool", "lookup"), ("tool", "search"),
             ("llm", "read"), ("llm", "answer")]
    aligned = align_steps(steps(run_a), steps(run_b))
    assert aligned.paired_by_position is None
    assert [(row.status, row.a and row.a.label, row.b and row.b.label)
            for row in aligned.rows] == [
        (SAME, "ask", "ask"), (SAME, "plan", "plan"), (ONLY_B, None, "lookup"),
        (SAME, "search", "search"), (SAME, "read", "read"), (ONLY_A, "fetch", None),
        (SAME, "answer", "answer")]


def test_a_middle_longer_than_the_limit_is_paired_by_position_and_says_so():
    run_a = [("tool", f"call {n}") for n in range(MAX_ALIGNED_MIDDLE + 1)]
    run_b = [("llm", "first")] + run_a[1:] + [("llm", "extra")]
    aligned = align_steps(steps(run_a), steps(run_b))
    fallback = aligned.paired_by_position
    assert fallback is not None and fallback.reason == TOO_LONG
    assert (fallback.steps_a, fallback.steps_b) == (3001, 3002)
    assert aligned.rows[-1].status == ONLY_B
    assert "more than the 3,000 a side" in fallback.sentence()


def _difflib_rows(a: list, b: list) -> list[tuple]:
    """The alignment as it was, straight from difflib's opcodes (head and tail included)."""
    rows: list[tuple] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            rows += [(SAME, i, j) for i, j in zip(range(a0, a1), range(b0, b1))]
        elif tag == "replace":
            paired = min(a1 - a0, b1 - b0)
            rows += [(CHANGED, a0 + k, b0 + k) for k in range(paired)]
            rows += [(ONLY_A, i, None) for i in range(a0 + paired, a1)]
            rows += [(ONLY_B, None, j) for j in range(b0 + paired, b1)]
        elif tag == "delete":
            rows += [(ONLY_A, i, None) for i in range(a0, a1)]
        else:
            rows += [(ONLY_B, None, j) for j in range(b0, b1)]
    return rows


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=40), st.lists(st.sampled_from("abcd"),
                                                                 max_size=40))
def test_within_the_budget_the_rows_are_difflibs(letters_a, letters_b):
    a = [("step", letter) for letter in letters_a]
    b = [("step", letter) for letter in letters_b]
    aligned = align_steps(steps(a), steps(b))
    assert aligned.paired_by_position is None
    got = [(row.status, row.a and row.a.index, row.b and row.b.index) for row in aligned.rows]
    # The common head and tail are taken first, so compare against difflib on the
    # whole lists only where that cannot change its answer: same row count and
    # every step of each run once, in order; and exactly, when no head or tail.
    assert [i for _, i, _ in got if i is not None] == list(range(len(a)))
    assert [j for _, _, j in got if j is not None] == list(range(len(b)))
    if not a or not b or (a[0] != b[0] and a[-1] != b[-1]):
        assert got == _difflib_rows(a, b)


def test_the_report_and_the_json_say_which_rows_were_paired_by_position():
    result = compare_runs(pair_run("skillgraph-route-diverges", "a"),
                          pair_run("skillgraph-route-diverges", "b"))
    assert result.alignment_fallback is None
    assert "pairedByPosition" not in comparison_to_wire(result)["alignment"]
    rows_a, rows_b = crafted_pair()
    crafted = align_steps(rows_a, rows_b)
    result = dataclasses.replace(result, alignment=crafted.rows,
                                 alignment_fallback=crafted.paired_by_position)
    wire = comparison_to_wire(result)["alignment"]["pairedByPosition"]
    assert wire["reason"] == "too-different"
    assert (wire["firstRow"], wire["rowCount"], wire["stepsA"], wire["stepsB"]) == (
        0, 3000, 3000, 3000)
    assert "paired by position" in wire["note"]
    assert "rows 1–3,000: paired by position" in comparison_text(result)

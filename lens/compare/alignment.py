"""The two runs' step lists aligned row by row, so the rest can be read side by side.

Steps are matched by (scope path, kind, label): the common head and tail are
taken as they are, and the part between (the *middle*) is aligned with
difflib's longest matching blocks (:class:`difflib.SequenceMatcher`, no
junk heuristic). A replaced run of steps is paired one to one as *changed*;
the rest of the longer run is *only in A* or *only in B*.

The work is bounded, not only the length, in three stages:

1. **difflib, within a budget.** Its search for a longest block walks, for
   every step of A in its range, every step of B with the same signature
   before the range's end, and runs once per block found: two crafted runs
   of a few repeated steps cost cubic time (two 3,000-step middles, one step
   kind against two alternating: 215 s of CPU). Each search's walk is counted
   before it runs (an upper bound, from how often each signature occurs in
   B); the searches together may not walk more than
   :data:`DIFFLIB_WORK_BUDGET` steps. Within it the rows are exactly
   difflib's, as before the bound.
2. **Otherwise a minimal diff, within a budget.** Myers' greedy algorithm
   (fewest steps only in A or only in B), whose work grows with the middle's
   length times the number of such steps: a long run of a few step kinds
   (real agent loops have four) with a handful of edits aligns in
   milliseconds where difflib needs the whole budget. It stops after
   :data:`MINIMAL_DIFF_WORK_BUDGET` steps of work.
3. **Otherwise, the fallback: paired by position.** Row k of A's middle beside
   row k of B's (*same* where the signatures agree, *changed* where not, the
   longer side's rest *only in* it), and :attr:`StepAlignment.paired_by_position`
   says which rows and why, for the page and the report to show. A middle of
   more than :data:`MAX_ALIGNED_MIDDLE` steps on a side goes here directly.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from typing import Hashable, Sequence

from lens.placement import StepRow

SAME = "same"
CHANGED = "changed"
ONLY_A = "only-a"
ONLY_B = "only-b"
MAX_ALIGNED_MIDDLE = 3000
# In difflib's inner steps: one per (step of A, step of B) pair a search walks,
# plus one per step of A it covers. Real runs walked at most 51 k (the corpus:
# its pairs, every two of its runs, and steps cut from the large ones); the 20x
# benchmark run with steps cut 1,000 to 3,000 apart walks 3-9 M and is left to
# stage 2, which aligns it in milliseconds (and matches more of its steps). At
# the 15-25 M steps a second measured here, the budget is about 0.2 s of CPU.
DIFFLIB_WORK_BUDGET = 3_000_000
# In Myers' steps: one per diagonal tried (and kept to walk back), plus one per
# step matched along it. The 20x benchmark run against itself with 3 to 20
# edits in a 3,000-step middle took 7-32 k; a long middle of a few step kinds
# costs about 6,000 per edit, so this allows some 300. At the ~10 M steps a
# second measured here, about 0.2 s of CPU.
MINIMAL_DIFF_WORK_BUDGET = 2_000_000

TOO_LONG = "too-long"
TOO_DIFFERENT = "too-different"


@dataclass(frozen=True, slots=True)
class AlignedRow:
    status: str
    a: StepRow | None
    b: StepRow | None


@dataclass(frozen=True, slots=True)
class PairedByPosition:
    """Which aligned rows were paired by position instead of aligned, and why."""

    reason: str       # TOO_LONG | TOO_DIFFERENT
    first_row: int    # 0-based index of the first such row in the alignment
    rows: int         # how many rows from there
    steps_a: int      # the middle's steps in each run
    steps_b: int

    def sentence(self) -> str:
        """What the page and the text report say (app text)."""
        where = (f"Steps side by side, rows {self.first_row + 1:,}–"
                 f"{self.first_row + self.rows:,}: paired by position, not aligned")
        sizes = f"{self.steps_a:,} steps of A and {self.steps_b:,} of B"
        if self.reason == TOO_LONG:
            return (f"{where}. Between the steps both runs share at the start and the end "
                    f"lie {sizes}, more than the {MAX_ALIGNED_MIDDLE:,} a side the "
                    "comparison aligns.")
        return (f"{where}. Between the steps both runs share at the start and the end lie "
                f"{sizes}, repeating the same few steps in orders too different to align "
                "within the comparison's work limit.")


@dataclass(frozen=True, slots=True)
class StepAlignment:
    """Both runs' steps as aligned rows, and the part paired by position, if any."""

    rows: tuple[AlignedRow, ...]
    paired_by_position: PairedByPosition | None = None


class _OverBudget(Exception):
    """The next step of an alignment would pass its work budget."""


def align_steps(rows_a: Sequence[StepRow], rows_b: Sequence[StepRow]) -> StepAlignment:
    head = 0
    limit = min(len(rows_a), len(rows_b))
    while head < limit and rows_a[head].signature == rows_b[head].signature:
        head += 1
    tail = 0
    while (tail < limit - head
           and rows_a[-1 - tail].signature == rows_b[-1 - tail].signature):
        tail += 1
    middle_a = rows_a[head:len(rows_a) - tail]
    middle_b = rows_b[head:len(rows_b) - tail]
    aligned = [AlignedRow(SAME, x, y) for x, y in zip(rows_a[:head], rows_b[:head])]
    fallback_reason = None
    if max(len(middle_a), len(middle_b)) > MAX_ALIGNED_MIDDLE:
        fallback_reason = TOO_LONG
    else:
        blocks = _blocks_within_budgets([r.signature for r in middle_a],
                                        [r.signature for r in middle_b])
        if blocks is None:
            fallback_reason = TOO_DIFFERENT
        else:
            aligned += _rows_between_blocks(middle_a, middle_b, blocks)
    paired = None
    if fallback_reason is not None:
        by_position = _paired(middle_a, middle_b)
        paired = PairedByPosition(fallback_reason, len(aligned), len(by_position),
                                  len(middle_a), len(middle_b))
        aligned += by_position
    if tail:
        aligned += [AlignedRow(SAME, x, y)
                    for x, y in zip(rows_a[len(rows_a) - tail:], rows_b[len(rows_b) - tail:])]
    return StepAlignment(tuple(aligned), paired)


def _paired(a: Sequence[StepRow], b: Sequence[StepRow]) -> list[AlignedRow]:
    rows = [AlignedRow(SAME if x.signature == y.signature else CHANGED, x, y)
            for x, y in zip(a, b)]
    rows += [AlignedRow(ONLY_A, x, None) for x in a[len(b):]]
    rows += [AlignedRow(ONLY_B, None, y) for y in b[len(a):]]
    return rows


def _blocks_within_budgets(a: list[Hashable], b: list[Hashable]
                           ) -> list[tuple[int, int, int]] | None:
    """The matching blocks of stage 1 or, past its budget, of stage 2; None
    when both budgets run out."""
    for stage, budget in ((_difflib_blocks, DIFFLIB_WORK_BUDGET),
                          (_minimal_diff_blocks, MINIMAL_DIFF_WORK_BUDGET)):
        try:
            return stage(a, b, budget)
        except _OverBudget:
            continue
    return None


def _difflib_blocks(a: list[Hashable], b: list[Hashable],
                    budget: int) -> list[tuple[int, int, int]]:
    """difflib's matching blocks of ``a`` and ``b`` (what
    ``SequenceMatcher.get_matching_blocks`` returns), found by the same
    searches in the same order, with each search's walk counted before it
    runs; raises :class:`_OverBudget` rather than start one that would pass
    ``budget``. Written out here, not left to difflib, so the count sees every
    search whatever difflib's internals call."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    in_b = Counter(b)
    # walked[i]: what searches over a[:i] walk at most: one per step of A, and each
    # step of B with its signature (a search stops at the end of its range of B,
    # so this is an upper bound, and an O(1) one).
    walked = list(accumulate((in_b.get(signature, 0) + 1 for signature in a), initial=0))
    spent = 0
    blocks: list[tuple[int, int, int]] = []
    queue = [(0, len(a), 0, len(b))]
    while queue:
        a_lo, a_hi, b_lo, b_hi = queue.pop()
        spent += walked[a_hi] - walked[a_lo]
        if spent > budget:
            raise _OverBudget
        i, j, size = matcher.find_longest_match(a_lo, a_hi, b_lo, b_hi)
        if size:
            blocks.append((i, j, size))
            if a_lo < i and b_lo < j:
                queue.append((a_lo, i, b_lo, j))
            if i + size < a_hi and j + size < b_hi:
                queue.append((i + size, a_hi, j + size, b_hi))
    blocks.sort()
    return _merged(blocks, len(a), len(b))


def _minimal_diff_blocks(a: list[Hashable], b: list[Hashable],
                         budget: int) -> list[tuple[int, int, int]]:
    """The matching blocks of a shortest edit script (Myers 1986, the greedy
    forward search), or :class:`_OverBudget` once its work passes ``budget``.
    ``furthest[offset + k]``: how far along A the best path so far gets on
    diagonal ``k`` (position in A - position in B); ``reach[d]`` keeps, for
    walking the path back, the diagonals round ``d`` read (every other one)."""
    n, m = len(a), len(b)
    offset = n + m + 1
    furthest = [0] * (2 * offset + 1)
    reach: list[list[int]] = []
    work = 0
    for edits in range(n + m + 1):
        reach.append(furthest[offset - edits - 1:offset + edits + 2:2])
        work += 2 * edits + 3  # that copy, and a try on every diagonal of this round
        for k in range(-edits, edits + 1, 2):
            if k == -edits or (k != edits
                               and furthest[offset + k - 1] < furthest[offset + k + 1]):
                x = furthest[offset + k + 1]  # one step only in B
            else:
                x = furthest[offset + k - 1] + 1  # one step only in A
            y = x - k
            start = x
            while x < n and y < m and a[x] == b[y]:
                x, y = x + 1, y + 1
            work += x - start
            furthest[offset + k] = x
            if x >= n and y >= m:
                return _merged(_path_matches(reach, edits, n, m), n, m)
        if work > budget:
            raise _OverBudget
    raise AssertionError("a path with n + m edits always reaches the end")


def _path_matches(reach: list[list[int]], edits: int, n: int,
                  m: int) -> list[tuple[int, int, int]]:
    """The matched steps of the path found with ``edits`` edits, walked back
    from the end, as blocks of one (merged by the caller)."""
    x, y = n, m
    matches: list[tuple[int, int, int]] = []
    for d in range(edits, 0, -1):
        seen, k = reach[d], x - y

        def at(diagonal: int) -> int:
            return seen[(diagonal + d + 1) // 2]

        came_from = k + 1 if k == -d or (k != d and at(k - 1) < at(k + 1)) else k - 1
        before_x = at(came_from)
        before_y = before_x - came_from
        while x > before_x and y > before_y:  # the matched run after that edit
            x, y = x - 1, y - 1
            matches.append((x, y, 1))
        x, y = before_x, before_y
    while x > 0 and y > 0:  # matched from the start, before any edit
        x, y = x - 1, y - 1
        matches.append((x, y, 1))
    matches.reverse()
    return matches


def _merged(blocks: list[tuple[int, int, int]], n: int, m: int) -> list[tuple[int, int, int]]:
    """Sorted blocks with adjacent ones joined (as difflib joins them), and
    difflib's closing ``(n, m, 0)``."""
    merged: list[tuple[int, int, int]] = []
    for i, j, size in blocks:
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + size)
        else:
            merged.append((i, j, size))
    merged.append((n, m, 0))
    return merged


def _rows_between_blocks(middle_a: Sequence[StepRow], middle_b: Sequence[StepRow],
                         blocks: list[tuple[int, int, int]]) -> list[AlignedRow]:
    """The rows of difflib's opcodes for ``blocks``: equal, replace, delete, insert."""
    rows: list[AlignedRow] = []
    at_a = at_b = 0
    for i, j, size in blocks:
        old, new = middle_a[at_a:i], middle_b[at_b:j]
        paired = min(len(old), len(new))
        rows += [AlignedRow(CHANGED, x, y) for x, y in zip(old, new)]
        rows += [AlignedRow(ONLY_A, x, None) for x in old[paired:]]
        rows += [AlignedRow(ONLY_B, None, y) for y in new[paired:]]
        rows += [AlignedRow(SAME, x, y) for x, y in zip(middle_a[i:i + size],
                                                        middle_b[j:j + size])]
        at_a, at_b = i + size, j + size
    return rows

"""The two runs' step lists aligned row by row, so the rest can be read side by side.

Steps are matched by (scope path, kind, label): the common head and tail are
taken as they are, and the part between is aligned with difflib's longest
matching blocks. A replaced run of steps is paired one to one as *changed*;
the rest of the longer run is *only in A* or *only in B*. Aligning an
unusually long middle would cost quadratic time, so beyond
:data:`MAX_ALIGNED_MIDDLE` rows on a side the middle is paired by position.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Sequence

from lens.placement import StepRow

SAME = "same"
CHANGED = "changed"
ONLY_A = "only-a"
ONLY_B = "only-b"
MAX_ALIGNED_MIDDLE = 3000


@dataclass(frozen=True, slots=True)
class AlignedRow:
    status: str
    a: StepRow | None
    b: StepRow | None


def _paired(a: Sequence[StepRow], b: Sequence[StepRow]) -> list[AlignedRow]:
    rows = [AlignedRow(SAME if x.signature == y.signature else CHANGED, x, y)
            for x, y in zip(a, b)]
    rows += [AlignedRow(ONLY_A, x, None) for x in a[len(b):]]
    rows += [AlignedRow(ONLY_B, None, y) for y in b[len(a):]]
    return rows


def align_steps(rows_a: Sequence[StepRow], rows_b: Sequence[StepRow]) -> list[AlignedRow]:
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
    if max(len(middle_a), len(middle_b)) > MAX_ALIGNED_MIDDLE:
        aligned += _paired(middle_a, middle_b)
    else:
        matcher = difflib.SequenceMatcher(None, [r.signature for r in middle_a],
                                          [r.signature for r in middle_b], autojunk=False)
        for tag, a0, a1, b0, b1 in matcher.get_opcodes():
            if tag == "equal":
                aligned += [AlignedRow(SAME, x, y)
                            for x, y in zip(middle_a[a0:a1], middle_b[b0:b1])]
            elif tag == "replace":
                old, new = middle_a[a0:a1], middle_b[b0:b1]
                paired = min(len(old), len(new))
                aligned += [AlignedRow(CHANGED, x, y) for x, y in zip(old, new)]
                aligned += [AlignedRow(ONLY_A, x, None) for x in old[paired:]]
                aligned += [AlignedRow(ONLY_B, None, y) for y in new[paired:]]
            elif tag == "delete":
                aligned += [AlignedRow(ONLY_A, x, None) for x in middle_a[a0:a1]]
            else:
                aligned += [AlignedRow(ONLY_B, None, y) for y in middle_b[b0:b1]]
    if tail:
        aligned += [AlignedRow(SAME, x, y)
                    for x, y in zip(rows_a[len(rows_a) - tail:], rows_b[len(rows_b) - tail:])]
    return aligned

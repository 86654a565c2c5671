"""Which pieces of a slot were added, removed or changed between two served contexts.

Pieces are matched in order by (role or source, text) with difflib's longest
matching blocks; where a run of A's pieces is replaced by a run of B's, they
are paired one to one as *changed* (with a line diff of their text) and the
rest of the longer run is added or removed. Ids a provider issues (a tool
result's ``sourceId``) are not part of the match.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from lens.compare.evidence_adapter import ServedPiece

# Bound the text diff of one pair of pieces: enough to read, never the whole log.
MAX_DIFF_LINES = 400


@dataclass(frozen=True)
class ChangedPiece:
    a: ServedPiece
    b: ServedPiece
    diff: tuple[str, ...]  # unified diff lines, recording text


@dataclass(frozen=True)
class SlotPieces:
    """One slot's pieces side by side."""

    slot: str
    added: tuple[ServedPiece, ...]
    removed: tuple[ServedPiece, ...]
    changed: tuple[ChangedPiece, ...]
    unchanged: int
    pieces_a: int
    pieces_b: int


def text_diff(a: str | None, b: str | None) -> tuple[str, ...]:
    lines = list(difflib.unified_diff((a or "").splitlines(), (b or "").splitlines(),
                                      fromfile="A", tofile="B", n=2, lineterm=""))
    if len(lines) > MAX_DIFF_LINES:
        lines = lines[:MAX_DIFF_LINES] + [f"… {len(lines) - MAX_DIFF_LINES} more diff lines"]
    return tuple(lines)


def _identity(piece: ServedPiece) -> tuple:
    return (piece.who, piece.content)


def diff_pieces(slot: str, pieces_a: list[ServedPiece], pieces_b: list[ServedPiece]) -> SlotPieces:
    matcher = difflib.SequenceMatcher(None, [_identity(p) for p in pieces_a],
                                      [_identity(p) for p in pieces_b], autojunk=False)
    added: list[ServedPiece] = []
    removed: list[ServedPiece] = []
    changed: list[ChangedPiece] = []
    unchanged = 0
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            unchanged += a1 - a0
            continue
        old, new = pieces_a[a0:a1], pieces_b[b0:b1]
        paired = min(len(old), len(new)) if tag == "replace" else 0
        for piece_a, piece_b in zip(old[:paired], new[:paired]):
            changed.append(ChangedPiece(piece_a, piece_b, text_diff(piece_a.content,
                                                                    piece_b.content)))
        removed.extend(old[paired:])
        added.extend(new[paired:])
    return SlotPieces(slot, tuple(added), tuple(removed), tuple(changed), unchanged,
                      len(pieces_a), len(pieces_b))

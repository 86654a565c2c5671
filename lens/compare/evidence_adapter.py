"""The one place the comparison reads the evidence index.

The comparison needs little from :mod:`recorders.evidence`: for the model
call that starts at a given typed event, the pieces of each slot it was
served (role, source, text). Reading them here, through public names only
(``EvidenceIndex.calls``, ``ModelCall.start_event_index``, ``ModelCall.slots``,
``SlotComposition.pieces``, and the piece's ``slot``/``role``/``source``/
``source_id``/``content``/``content_is_summary``), keeps the rest of the
comparison independent of how that index is laid out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recorders.evidence import EvidenceIndex


@dataclass(frozen=True, slots=True)
class ServedPiece:
    """One piece of a slot as the model was served it. All fields are recording text."""

    role: str | None
    source: str | None
    source_id: str | None
    content: str | None
    content_is_summary: bool

    @property
    def who(self) -> str:
        """Role or source, whichever the recording gives ("" when neither)."""
        return self.role or self.source or ""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def served_pieces(index: EvidenceIndex, start_event_index: int
                  ) -> dict[str, list[ServedPiece]] | None:
    """The pieces per slot of the model call starting at typed event ``start_event_index``;
    None when the index has no such call (e.g. it was built from the boundary log)."""
    call = next((c for c in index.calls if c.start_event_index == start_event_index), None)
    if call is None:
        return None
    return {slot: [ServedPiece(_text(p.role), _text(p.source), _text(p.source_id),
                               _text(p.content), bool(p.content_is_summary))
                   for p in composition.pieces]
            for slot, composition in call.slots.items()}

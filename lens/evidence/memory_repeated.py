"""Answer repeats a remembered entry that another one contradicts.

Retrieval and memory serve the model entries it did not check: when two
remembered entries served to the answering call state different figures of
the same unit ("4 weeks" in the 2023 handbook, "20 weeks" in the 2026 one)
and the answer repeats one of them, the answer took a side the recording can
show. The cause names the figures, the entry they came from, the entry that
disagrees and what each says, and which of the two names the later year when
both name one (a superseded entry is the usual story).

Owns: finding, per final answer, the remembered entries served to its call
whose figures it repeats while another served entry states another figure
of the same unit. Conservative: a figure a tool result or the user's own
words state is grounded and not counted; a remembered entry is a served
prompt or message piece whose source is ``rag`` or ``memory``.

Does not own: values no served text holds (:mod:`lens.evidence.ungrounded`),
reading figures out of a text (:mod:`lens.evidence.answer_values`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from recorders.evidence import EvidenceIndex, ModelCall, SearchEntry, StepMap
from lens.evidence.answer_values import Quantity, Texts, quantities
from lens.evidence.cause_record import ERROR, WARNING, LikelyCause
from lens.evidence.nav import nav_for_call
from lens.evidence.ungrounded import MEMORY_SOURCES, entry_name, grounds
from lens.text import display_text, one_line
from lens.wording import and_words, quoted

KIND = "answer repeats a contradicted memory"
_SERVED_KINDS = frozenset({"system prompt", "message"})
_YEAR = re.compile(r"(?<!\d)(19\d\d|20\d\d)(?!\d)")
QUOTE_CHARS = 120
_CLAUSE_ENDS = ("\n", ". ", "; ")


@dataclass(frozen=True)
class _Entry:
    """A remembered entry served to a call: its piece and the figures it states."""

    piece: SearchEntry
    name: str
    figures: dict[tuple[str, str], str]  # (number, unit) → as written ("20 weeks")
    reason: str | None  # the injection's own words ("retrieved 'x' (rank 1, score 0.95)")

    def states(self, figure: Quantity) -> bool:
        return (figure.number, figure.unit) in self.figures

    def other_figures(self, figure: Quantity) -> list[str]:
        """What this entry says in ``figure``'s unit that is another number."""
        return [text for (number, unit), text in self.figures.items()
                if unit == figure.unit and number != figure.number]

    def latest_year(self) -> int | None:
        years = [int(year) for year in _YEAR.findall(self.name + " " + self.piece.text)]
        return max(years) if years else None


def repeated_memories(index: EvidenceIndex, step_map: StepMap | None) -> list[LikelyCause]:
    answers = [call for call in index.calls if call.is_final_answer and call.output]
    if not answers:
        return []
    entries = _remembered_entries(index, {call.id for call in answers})
    if not entries:
        return []
    grounding = Texts(entry.text for entry in index.search_entries if grounds(entry))
    causes = []
    for call in answers:
        served = entries.get(call.id, [])
        if len(served) < 2:
            continue
        cause = _cause(index, step_map, call, served, grounding)
        if cause is not None:
            causes.append(cause)
    return causes


def _remembered_entries(index: EvidenceIndex, calls: set[int]) -> dict[int, list[_Entry]]:
    reasons = {entry.event_index: entry.text for entry in index.search_entries
               if entry.kind == "injection reason" and entry.event_index is not None}
    served: dict[int, list[_Entry]] = {}
    for piece in index.search_entries:
        source, _, source_id = piece.label.partition(" ")
        if piece.kind not in _SERVED_KINDS or source not in MEMORY_SOURCES:
            continue
        targets = [call for call in piece.served_in if call in calls]
        if not targets:
            continue
        entry = _Entry(piece, entry_name(source_id) if source_id else "a memory entry",
                       {(q.number, q.unit): q.text for q in quantities(piece.text)},
                       reasons.get(piece.event_index))
        for call in targets:
            served.setdefault(call, []).append(entry)
    return served


def _cause(index: EvidenceIndex, step_map: StepMap | None, call: ModelCall,
           served: Sequence[_Entry], grounding: Texts) -> LikelyCause | None:
    """The entry whose figures the answer repeats most, and the first served
    entry that states other figures of the same units, if there is one."""
    best: tuple[_Entry, list[Quantity], _Entry, list[str]] | None = None
    said = [figure for figure in dict.fromkeys(quantities(call.output))
            if not grounding.hold(figure.number)]
    for source in served:
        repeated = [figure for figure in said if source.states(figure)]
        if not repeated:
            continue
        for other in served:
            if other is source:
                continue
            differing = [text for figure in repeated if not other.states(figure)
                         for text in other.other_figures(figure)]
            if differing and (best is None or len(repeated) > len(best[1])):
                best = (source, repeated, other, list(dict.fromkeys(differing)))
                break
    if best is None:
        return None
    source, repeated, other, other_says = best
    figures = and_words([quoted(figure.text) for figure in repeated])
    headline = (f"The answer's {figures} {'comes' if len(repeated) == 1 else 'come'} from the "
                f"remembered entry {source.name}, while {other.name}, served with it, says "
                f"{and_words([quoted(text) for text in other_says])}")
    why = [f"Both were served to model call {call.id + 1}"]
    ranks = [f"{entry.name}: {quoted(one_line(entry.reason, QUOTE_CHARS))}"
             for entry in (source, other) if entry.reason]
    why[0] += f" ({'; '.join(ranks)})." if ranks else "."
    source_year, other_year = source.latest_year(), other.latest_year()
    newer_disagrees = source_year is not None and other_year is not None \
        and other_year > source_year
    if newer_disagrees:
        why.append(f"{other.name} names {other_year} and {source.name} {source_year}: "
                   "the answer follows the older entry.")
    why.append(f"{source.name} says {quoted(_sentence_with(source.piece.text, repeated[0].text))}; "
               f"{other.name} says {quoted(_sentence_with(other.piece.text, other_says[0]))}.")
    why.append("No tool result or user message states "
               f"{'it' if len(repeated) == 1 else 'them'}.")
    return LikelyCause(
        KIND, ERROR if newer_disagrees else WARNING, headline, " ".join(why),
        display_text(source.piece.text), nav_for_call(index, step_map, call.id, end=True),
        # The answer first: the cause is shown where the answer repeats the entry.
        tuple(position for position in (call.end_event_index, source.piece.event_index,
                                        other.piece.event_index) if position is not None),
        source.name, answer_call=call.id)


def _sentence_with(text: str, words: str) -> str:
    """The clause of ``text`` (cut at a line end, a full stop or a semicolon)
    that holds ``words``, on one line and bounded; the text's start when they
    are not found as written."""
    at = text.find(words)
    if at < 0:
        return one_line(text, QUOTE_CHARS)
    start = max([0] + [text.rfind(mark, 0, at) + len(mark) for mark in _CLAUSE_ENDS
                       if text.rfind(mark, 0, at) >= 0])
    ends = [end for end in (text.find(mark, at) for mark in _CLAUSE_ENDS) if end >= 0]
    return one_line(text[start:min(ends) if ends else len(text)].strip(), QUOTE_CHARS)

"""What each model call was served, slot by slot, and the first call served differently.

A call's served context is, per slot, the ordered list of the context events
(``context.injected`` pieces and the ``context.slot_composed`` that closed
the slot) composed for it since the previous call, as the evidence index
(:mod:`recorders.evidence`) attributed them: the one reader of the typed
stream, so compare and the step's served-context pane agree on what a call
was served. A slot the call did not recompose (carried over from the
previous call) has no events of its own here: two runs that recomposed
different slots differ there.

Calls are paired by their order among ``stream.llm_start`` events (0-based).
The first pair whose per-slot lists differ (as (type, normalised payload),
:mod:`lens.compare.events`) is the first call served differently; its
differing slots are listed in order of first appearance, A's slots first.
When every pair matches but one run made more calls, its first extra call is
reported (the other side's index None) with all of its slots.

Comparing touches only the events of calls whose raw events differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from recorders.evidence import EvidenceIndex
from recorders.evidence.records import SOURCE_TYPED
from lens.compare.events import EventComparer

FRESH = "fresh"  # SlotComposition.origin of a slot composed for its call


@dataclass(slots=True)
class ServedCall:
    """One model call: where it starts in the typed stream and its context events by slot."""

    start_index: int
    slots: dict[str, list[int]] = field(default_factory=dict)  # slot -> event indices


class ServedCalls:
    """Every model call of one run, in ``stream.llm_start`` order, with its served events.

    Also keeps, for each attributed context event, the index of the
    ``stream.llm_start`` it was served to (the step that shows a context
    event is the step of that call). An index built from the boundary log
    (no typed model calls) has no served events.
    """

    def __init__(self, events: Sequence[Any], index: EvidenceIndex) -> None:
        self.events = events
        self.calls: list[ServedCall] = []
        self.served_to: dict[int, int] = {}  # context event index -> llm_start index
        if index.source != SOURCE_TYPED:
            return
        for call in index.calls:
            slots: list[tuple[str, list[int]]] = []
            for name, composition in call.slots.items():
                if composition.origin != FRESH:
                    continue
                served = [piece.event_index for piece in composition.pieces]
                if composition.composed_event_index is not None:
                    served.append(composition.composed_event_index)
                if served:
                    served.sort()
                    slots.append((name, served))
                    for position in served:
                        self.served_to[position] = call.start_event_index
            slots.sort(key=lambda named: named[1][0])  # in order of first appearance
            self.calls.append(ServedCall(call.start_event_index, dict(slots)))

    def __len__(self) -> int:
        return len(self.calls)


@dataclass(frozen=True)
class ServedDifference:
    """The first pair of model calls served differently (indices among llm_starts)."""

    call_index_a: int | None
    call_index_b: int | None
    start_index_a: int | None  # typed index of its stream.llm_start
    start_index_b: int | None
    slots: tuple[str, ...]


def _slot_order(a: ServedCall | None, b: ServedCall | None) -> list[str]:
    names = list(a.slots) if a is not None else []
    if b is not None:
        names += [name for name in b.slots if name not in names]
    return names


def _slot_differs(served_a: ServedCalls, served_b: ServedCalls, indices_a: list[int],
                  indices_b: list[int], comparer: EventComparer) -> bool:
    if len(indices_a) != len(indices_b):
        return True
    for index_a, index_b in zip(indices_a, indices_b):
        event_a, event_b = served_a.events[index_a], served_b.events[index_b]
        if event_a.get("type") != event_b.get("type"):
            return True
        if not comparer.payloads_equal(event_a.get("payload"), event_b.get("payload")):
            return True
    return False


def first_served_difference(served_a: ServedCalls, served_b: ServedCalls,
                            comparer: EventComparer) -> ServedDifference | None:
    for number, (call_a, call_b) in enumerate(zip(served_a.calls, served_b.calls)):
        differing = tuple(
            slot for slot in _slot_order(call_a, call_b)
            if _slot_differs(served_a, served_b, call_a.slots.get(slot, []),
                             call_b.slots.get(slot, []), comparer))
        if differing:
            return ServedDifference(number, number, call_a.start_index, call_b.start_index,
                                    differing)
    common = min(len(served_a), len(served_b))
    if len(served_a) > common:
        extra = served_a.calls[common]
        return ServedDifference(common, None, extra.start_index, None,
                                tuple(_slot_order(extra, None)))
    if len(served_b) > common:
        extra = served_b.calls[common]
        return ServedDifference(None, common, None, extra.start_index,
                                tuple(_slot_order(None, extra)))
    return None

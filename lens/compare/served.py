"""What each model call was served, slot by slot, and the first call served differently.

Each ``context.injected`` / ``context.slot_composed`` event that carries
``payload.slot`` fires one subflow below its model call (``sf-system-prompt``,
``sf-messages``, ``sf-tools``…). It belongs to the next ``stream.llm_start``
whose ``meta.subflowPath`` is the context event's path minus its last segment.
A call's served context is, per slot, the ordered list of those events as
(type, normalised payload) (normalised as in :mod:`lens.compare.events`).

Calls are paired by their order among ``stream.llm_start`` events (0-based).
The first pair whose per-slot lists differ is the first call served
differently; its differing slots are listed in order of first appearance, A's
slots first. When every pair matches but one run made more calls, its first
extra call is reported (the other side's index None) with all of its slots.

Built in one pass over a run's typed stream (:class:`ServedCalls`); comparing
touches only the events of calls whose raw events differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from recorders.catalogue import CONTEXT_INJECTED, CONTEXT_SLOT_COMPOSED, LLM_START
from lens.compare.events import EventComparer

CONTEXT_TYPES = frozenset({CONTEXT_INJECTED, CONTEXT_SLOT_COMPOSED})


@dataclass(slots=True)
class ServedCall:
    """One model call: where it starts in the typed stream and its context events by slot."""

    start_index: int
    subflow_path: tuple[str, ...]
    slots: dict[str, list[int]] = field(default_factory=dict)  # slot -> event indices


class ServedCalls:
    """Every model call of one run, in ``stream.llm_start`` order, with its served events.

    Also keeps, for each attributed context event, the index of the
    ``stream.llm_start`` it was served to (the step that shows a context
    event is the step of that call).
    """

    def __init__(self, events: Sequence[Any]) -> None:
        self.events = events
        self.calls: list[ServedCall] = []
        self.served_to: dict[int, int] = {}  # context event index -> llm_start index
        pending: dict[tuple[str, ...], dict[str, list[int]]] = {}
        for index, event in enumerate(events):
            kind = event.get("type") if isinstance(event, dict) else None
            if kind in CONTEXT_TYPES:
                slot = _slot(event)
                path = _subflow_path(event)
                if slot is not None and path:
                    pending.setdefault(path[:-1], {}).setdefault(slot, []).append(index)
            elif kind == LLM_START:
                path = _subflow_path(event)
                served = pending.pop(path, {})
                for indices in served.values():
                    for context_index in indices:
                        self.served_to[context_index] = index
                self.calls.append(ServedCall(index, path, served))

    def __len__(self) -> int:
        return len(self.calls)


def _subflow_path(event: dict) -> tuple[str, ...]:
    meta = event.get("meta")
    path = meta.get("subflowPath") if isinstance(meta, dict) else None
    if isinstance(path, list) and all(isinstance(p, str) for p in path):
        return tuple(path)
    return ()


def _slot(event: dict) -> str | None:
    payload = event.get("payload")
    if not isinstance(payload, dict) or "slot" not in payload:
        return None
    slot = payload["slot"]
    return slot if isinstance(slot, str) else repr(slot)


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

"""Compare reads what each call was served from the evidence index, and that
reading keeps the comparison's rule.

The rule, as compare has always stated it, is written out here from the
events alone: each context event (``context.injected`` or
``context.slot_composed``) that names a slot belongs to the next
``stream.llm_start`` whose ``meta.subflowPath`` is the event's path minus
its last segment; per call, each slot's events in stream order, the slots in
order of first appearance. Every recording of the corpus, the pairs and the
feature families must give the same calls, slots and attributions.
"""

from __future__ import annotations

import pytest

from corpus_files import case_names, pair_names, pair_run_path, read_bytes, recording_path
from family_files import family_names, family_recording
from lens.compare.served import ServedCalls
from lens.run import open_run
from recorders.catalogue import CONTEXT_INJECTED, CONTEXT_SLOT_COMPOSED, LLM_START

CONTEXT_TYPES = (CONTEXT_INJECTED, CONTEXT_SLOT_COMPOSED)


def by_the_rule(events: list) -> tuple[list[tuple[int, dict]], dict[int, int]]:
    calls: list[tuple[int, dict]] = []
    served_to: dict[int, int] = {}
    pending: dict[tuple, dict[str, list[int]]] = {}
    for position, event in enumerate(events):
        meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
        path = meta.get("subflowPath")
        path = tuple(path) if isinstance(path, list) else ()
        payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
        if event.get("type") in CONTEXT_TYPES and isinstance(payload.get("slot"), str) and path:
            pending.setdefault(path[:-1], {}).setdefault(payload["slot"], []).append(position)
        elif event.get("type") == LLM_START:
            slots = pending.pop(path, {})
            for served in slots.values():
                served_to.update((p, position) for p in served)
            calls.append((position, slots))
    return calls, served_to


def every_recording() -> list:
    files = [recording_path(case) for case in case_names()]
    files += [pair_run_path(pair, side) for pair in pair_names() for side in ("a", "b")]
    files += [family_recording(case) for case in family_names()]
    return files


@pytest.mark.parametrize("path", every_recording(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_served_calls_follow_the_rule(path):
    run = open_run(read_bytes(path))
    served = ServedCalls(run.recording.typed_events, run.evidence)
    calls, served_to = by_the_rule(run.recording.typed_events)
    assert [(call.start_index, call.slots) for call in served.calls] == calls
    assert list(list(call.slots) for call in served.calls) == [list(s) for _, s in calls]
    assert served.served_to == served_to


def test_the_rule_has_something_to_check():
    """The recordings above serve context to calls: the rule is not vacuous."""
    run = open_run(read_bytes(recording_path("agent-refund-multi-tools-error")))
    calls, served_to = by_the_rule(run.recording.typed_events)
    assert len(calls) >= 2 and len(served_to) >= 4
    assert all(slots for _, slots in calls)

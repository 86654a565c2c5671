"""Every one of the 107 catalogue types reaches a view other than the raw events table.

One minimal event of each type (the builder of ``test_every_event_type_opens``)
is put beside the first model call's start of a real family recording, opened
with :func:`lens.run.open_run`, and looked for, by its position in the typed
stream, in the view models a person reads: the framework's findings, the
likely causes, Search (under its own family), the timeline's marks, the
served context of a model call (slots, evaluations, evictions, notes), the
model and tool call records, the memory, integrity ledger and turn records,
and the step detail's list of the step's events.
"""

from __future__ import annotations

import json

import pytest

from lens.evidence.causes import likely_causes
from lens.evidence.search import entry_family, searchable_entries
from lens.run import open_run
from lens.step_detail import describe_step
from lens.timeline import build_timeline
from recorders import catalogue
from recorders.profiles import DEFAULT_PROFILE
from test_every_event_type_opens import HOST, _first_call_start, _with_event, minimal_payload

START = _first_call_start()
AT = START + 1  # the typed index of the inserted event


def _served(index, at: int) -> bool:
    for call in index.calls:
        slots = call.slots.values()
        if (any(piece.event_index == at for slot in slots for piece in slot.pieces)
                or any(slot.composed_event_index == at for slot in slots)
                or call.evaluated_event_index == at
                or any(eviction.event_index == at for eviction in call.evictions)
                or any(note.event_index == at for note in call.notes)):
            return True
    return False


def _call_records(index, at: int) -> bool:
    return (any(at in (c.start_event_index, c.end_event_index, c.failure_event_index)
                for c in index.calls)
            or any(at in (t.start_event_index, t.end_event_index)
                   or any(note.event_index == at for note in t.notes) for t in index.tool_calls))


def homes(run, entry: catalogue.EventType, at: int) -> list[str]:
    """Where the event at typed index ``at`` is shown, other than raw events."""
    index = run.evidence
    step_map = run.step_map(DEFAULT_PROFILE, ())
    found = []
    if any(finding.event_index == at for finding in index.findings):
        found.append("finding")
    if any(at in cause.events for cause in likely_causes(index, step_map)):
        found.append("likely cause")
    if any(text.event_index == at and entry_family(index, text) == entry.family
           for text in searchable_entries(index)):
        found.append("search")
    if any(mark.event_index == at for mark in build_timeline(index).marks):
        found.append("timeline mark")
    if _served(index, at):
        found.append("served context")
    if _call_records(index, at):
        found.append("model or tool call")
    if any(record.event_index == at
           for record in (*index.memory, *index.integrity, *index.turns)):
        found.append("memory, integrity or turn record")
    stage = run.recording.typed_events[at]["meta"]["runtimeStageId"]
    steps = run.scoped_steps(DEFAULT_PROFILE, ()).steps
    if any(ref.stream == "typed" and ref.index == at
           for step in steps if step.runtime_stage_id == stage
           for ref in describe_step(step, index).events):
        found.append("step detail")
    return found


@pytest.mark.parametrize("entry", catalogue.EVENT_TYPES, ids=lambda t: t.short)
def test_every_type_reaches_a_view_other_than_raw_events(entry):
    event = {"type": entry.name, "payload": minimal_payload(entry),
             "meta": dict(HOST["events"][START]["meta"])}
    run = open_run(_with_event(event, AT))
    assert run.recording.typed_events[AT]["type"] == entry.name
    assert homes(run, entry, AT), f"{entry.short} is shown only on the raw events page"


# A token or a reasoning delta is a piece of a text that the call's end
# carries whole (its answer; its reasoning, in thinking_end): the pieces are
# listed with their step, the whole is what Search and the call show.
PIECES = {catalogue.LLM_TOKEN, catalogue.THINKING_DELTA}
# A slot's composition and the skill evaluation belong to the next call's
# served context; an event put in beside a real one is superseded by it, so
# these two are checked on the real events of the host recording instead.
SERVED = {catalogue.CONTEXT_SLOT_COMPOSED, catalogue.CONTEXT_EVALUATED}


@pytest.mark.parametrize("entry", [t for t in catalogue.EVENT_TYPES
                                   if t.name not in PIECES | SERVED], ids=lambda t: t.short)
def test_every_type_reaches_a_view_beyond_its_steps_event_list(entry):
    """The step's list of events is a place a person has to know to look: each
    type is also a finding, a cause, a Search text under its family, a mark,
    a part of a call's record or of its served context."""
    event = {"type": entry.name, "payload": minimal_payload(entry),
             "meta": dict(HOST["events"][START]["meta"])}
    run = open_run(_with_event(event, AT))
    assert set(homes(run, entry, AT)) - {"step detail"}, entry.short


@pytest.mark.parametrize("name", sorted(SERVED))
def test_slot_compositions_and_evaluations_are_served_context(name):
    run = open_run(json.dumps(HOST).encode())
    positions = [i for i, e in enumerate(run.recording.typed_events) if e["type"] == name]
    assert positions
    assert all(_served(run.evidence, at) for at in positions)


def test_every_verdict_and_warning_type_is_a_finding_and_a_likely_cause():
    # The framework's own judgements are never left to a list of events.
    judged = [t for t in catalogue.EVENT_TYPES if t.kind != catalogue.CONTEXT]
    assert len(judged) > 30  # the selection is not empty by mistake
    for entry in judged:
        event = {"type": entry.name, "payload": minimal_payload(entry),
                 "meta": dict(HOST["events"][START]["meta"])}
        run = open_run(_with_event(event, AT))
        where = homes(run, entry, AT)
        assert "finding" in where and "likely cause" in where, (entry.short, where)

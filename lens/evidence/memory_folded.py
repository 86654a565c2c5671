"""Memory folded away: a memory strategy left earlier entries out of what it served.

A memory strategy (a window, a summary, a semantic pick, fact extraction)
reshapes what an agent remembers before the model is served it, and says so
in ``memory.strategy_applied``: which entries it dropped, which it added, and
why. A summary keeps what its writer thought mattered; a detail of a dropped
entry that the summary does not carry is gone from the model's view, and the
answer that needed it cannot give it. The event is context, so no verdict
tells it.

Owns: one cause per strategy that dropped entries in the file (however many
passes it made: counted once, by distinct entry), placed on the model call
its first drop fed, quoting the strategy's own reason. Does not own what the
memory served (the evidence index's ``memory``) or repeated memories
(:mod:`lens.evidence.memory_repeated`).
"""

from __future__ import annotations

from recorders.catalogue import MEMORY_STRATEGY_APPLIED, short_name
from recorders.evidence import EvidenceIndex, ModelCall, StepMap
from lens.evidence.cause_record import WARNING, LikelyCause, event_detail
from lens.evidence.event_nav import nav_for_event
from lens.evidence.nav import call_in_words, nav_for_call
from lens.text import one_line
from lens.wording import and_words, plural, quoted

KIND = "memory left entries out"
NAME_CHARS = 60
IDS_SHOWN = 5
# Both spellings a recording may use: a set look-up per event, no parsing.
_STRATEGY_APPLIED = frozenset({MEMORY_STRATEGY_APPLIED, short_name(MEMORY_STRATEGY_APPLIED)})
_SUMMARIZING = "summarizing"
# A memory read runs in a subflow of its own inside the scope of the call it feeds.
_MEMORY_SUBFLOW_PREFIX = "sf-memory"


def folded_memories(index: EvidenceIndex, step_map: StepMap | None) -> list[LikelyCause]:
    drops: dict[object, list[tuple[int, dict, dict]]] = {}
    for position, event in enumerate(index.stages.typed_events):
        kind = event.get("type") if isinstance(event, dict) else None
        if not isinstance(kind, str) or kind not in _STRATEGY_APPLIED:
            continue
        payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
        if _ids(payload.get("droppedIds")):
            strategy = payload.get("strategyId")
            drops.setdefault(strategy if isinstance(strategy, str) else None,
                             []).append((position, event, payload))
    return [_cause(index, step_map, passes) for passes in drops.values()]


def _ids(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _fed(index: EvidenceIndex, position: int, event: dict) -> ModelCall | None:
    """The first model call of the event's run and scope that started after it."""
    meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
    path = meta.get("subflowPath") if isinstance(meta.get("subflowPath"), list) else []
    scope = tuple(str(part) for part in path if part != "__root__"
                  and not str(part).startswith(_MEMORY_SUBFLOW_PREFIX))
    return next((call for call in index.calls if call.run_id == meta.get("runId")
                 and call.scope == scope and call.start_event_index > position), None)


def _cause(index: EvidenceIndex, step_map: StepMap | None,
           passes: list[tuple[int, dict, dict]]) -> LikelyCause:
    position, event, payload = passes[0]
    dropped = list(dict.fromkeys(i for _, _, p in passes for i in _ids(p.get("droppedIds"))))
    strategy, kind = payload.get("strategyId"), payload.get("strategyKind")
    named = f"Memory {one_line(strategy, NAME_CHARS)}" if isinstance(strategy, str) and strategy \
        else "A memory strategy"
    call = _fed(index, position, event)
    before = f" before {call_in_words(call)}" if call is not None else ""
    shown = and_words(dropped[:IDS_SHOWN] + ([f"{len(dropped) - IDS_SHOWN} more"]
                                            if len(dropped) > IDS_SHOWN else []))
    entries = plural(len(dropped), "earlier entry")
    if kind == _SUMMARIZING:
        headline = f"{named} served a summary in place of {entries}{before}: {shown}"
    else:
        headline = f"{named} left {entries} out{before}: {shown}"
    reason = payload.get("reason")
    answer = f"; it answered {quoted(call.output)}" if call is not None and call.output else ""
    why = ((f"The {one_line(kind, NAME_CHARS)} strategy's words: {quoted(reason)}. "
            if isinstance(kind, str) and isinstance(reason, str) else
            f"Its words: {quoted(reason)}. " if isinstance(reason, str) else "")
           + "Whatever those entries said that "
           + ("the summary does not carry" if kind == _SUMMARIZING else "the rest does not")
           + f" was not in what the model was served{answer}."
           + (f" The strategy dropped entries on {plural(len(passes), 'pass')}; each entry is "
              "counted once." if len(passes) > 1 else ""))
    nav = nav_for_call(index, step_map, call.id) if call is not None \
        else nav_for_event(index, step_map, position)
    return LikelyCause(KIND, WARNING, headline, one_line(why), event_detail(event), nav,
                       tuple(p for p, _, _ in passes),
                       strategy if isinstance(strategy, str) and strategy else None)

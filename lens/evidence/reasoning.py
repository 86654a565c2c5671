"""Reasoning around a failure: what the model thought, in its own words.

A model that reasons before it answers (extended thinking) leaves its
reasoning in ``stream.thinking_end``: blocks of text, counted. When a run went
wrong, that text is often the quickest account of why the model did what it
did, yet it is recorded as context and no verdict tells it. This shows it.

Owns: one cause per scope whose model calls recorded reasoning, in a run
that has an error-level cause; it quotes the last reasoning of the scope
(the one nearest its answer) and names each block that holds no readable
text, or blocks counted but not recorded. Does not own the framework's own
``agent.thinking_parse_failed`` verdict: that is told as a verdict in its own
words (:mod:`lens.evidence.causes`).
"""

from __future__ import annotations


from recorders.catalogue import THINKING_END, short_name
from recorders.evidence import EvidenceIndex, ModelCall, StepMap
from lens.evidence.cause_record import WARNING, LikelyCause, event_detail
from lens.evidence.nav import call_in_words, nav_for_call
from lens.text import one_line
from lens.wording import and_words, plural, quoted, times

KIND = "the model's reasoning"
QUOTE_CHARS = 240
NAME_CHARS = 60
# Both spellings a recording may use: a set look-up per event, no parsing.
_THINKING_END = frozenset({THINKING_END, short_name(THINKING_END)})


def reasoning_causes(index: EvidenceIndex, step_map: StepMap | None) -> list[LikelyCause]:
    """The reasoning of each scope that recorded some, last first within its scope."""
    passes: dict[tuple, list[tuple[int, dict, ModelCall | None]]] = {}
    for position, event in enumerate(index.stages.typed_events):
        kind = event.get("type") if isinstance(event, dict) else None
        if not isinstance(kind, str) or kind not in _THINKING_END:
            continue
        payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
        call = _call_of(index, position, event)
        key = (call.run_id, call.scope) if call is not None else (None, _path(event))
        passes.setdefault(key, []).append((position, payload, call))
    return [_cause(index, step_map, found) for found in passes.values()]


def _path(event: dict) -> tuple[str, ...]:
    meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
    path = meta.get("subflowPath")
    return tuple(str(p) for p in path if p != "__root__") if isinstance(path, list) else ()


def _call_of(index: EvidenceIndex, position: int, event: dict) -> ModelCall | None:
    """The last model call of the event's run that started before it, in the
    deepest scope that holds the event's path (reasoning runs in a subflow of
    its call's scope)."""
    meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
    path = _path(event)
    best = None
    for call in index.calls:
        if call.run_id != meta.get("runId") or call.start_event_index > position \
                or path[:len(call.scope)] != call.scope:
            continue
        if best is None or len(call.scope) > len(best.scope) or \
                (len(call.scope) == len(best.scope) and call.id > best.id):
            best = call
    return best


def _texts(payload: dict) -> tuple[list[str], list[str]]:
    """(the readable texts of the blocks, a phrase for each block with none)."""
    blocks = payload.get("blocks") if isinstance(payload.get("blocks"), list) else []
    texts, unreadable = [], []
    for number_, block in enumerate(blocks, 1):
        content = block.get("content") if isinstance(block, dict) else None
        if isinstance(content, str) and content.strip():
            texts.append(content)
        else:
            kind = block.get("type") if isinstance(block, dict) else None
            named = f" ({one_line(kind, NAME_CHARS)})" if isinstance(kind, str) and kind else ""
            unreadable.append(f"block {number_} of {len(blocks)}{named}")
    return texts, unreadable


def _cause(index: EvidenceIndex, step_map: StepMap | None,
           found: list[tuple[int, dict, ModelCall | None]]) -> LikelyCause:
    position, payload, call = found[-1]
    texts, unreadable = _texts(payload)
    who = call_in_words(call) if call is not None else "the model"
    if call is not None and call.scope:
        who = f"in {one_line(call.scope[-1], NAME_CHARS)}, {who}"
    who = who[0].upper() + who[1:]
    if texts:
        headline = f"{who} reasoned: {quoted(' '.join(texts), QUOTE_CHARS)}"
    else:
        headline = f"{who} recorded reasoning that holds no readable text"
    notes = []
    if unreadable:
        notes.append(f"{and_words(unreadable)} {'holds' if len(unreadable) == 1 else 'hold'} "
                     "no readable text")
    counted = payload.get("blockCount")
    blocks = payload.get("blocks") if isinstance(payload.get("blocks"), list) else []
    if isinstance(counted, int) and not isinstance(counted, bool) and counted > len(blocks):
        notes.append(f"{plural(counted, 'block')} {'was' if counted == 1 else 'were'} counted "
                     f"but {plural(len(blocks), 'block')} recorded")
    earlier = len(found) - 1
    why = ("The run has an error, and this is the model's own reasoning recorded next to it"
           + (f"; its scope recorded reasoning {times(earlier)} before this" if earlier
              else "")
           + (f"; {'; '.join(notes)}" if notes else "") + ".")
    nav = nav_for_call(index, step_map, call.id, end=True) if call is not None else None
    return LikelyCause(KIND, WARNING, headline, why,
                       event_detail(index.stages.typed_events[position]), nav,
                       # The pass it quotes first: a cause leads where its first event is placed.
                       (position,) + tuple(p for p, _, _ in found[:-1]),
                       call.scope[-1] if call is not None and call.scope else None)

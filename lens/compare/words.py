"""What a comparison found, in a person's words: where the two runs part and
what the model was served differently, as the Compare page and ``compare
--format text`` lead with it. Event type names and field paths stay in the
details below it, never in these sentences.

Owns: the lead sentences. Does not own: finding the differences
(:mod:`lens.compare.comparison`) or what happened at a step
(:mod:`lens.plain_words`, whose sentence each side carries).
"""

from __future__ import annotations

from lens.compare.comparison import EventSide, FirstDifference, RunComparison, \
    ServedContextDifference
from lens.wording import and_words

# The compared field of an event, as what it is (payload fields the comparison reports).
FIELD_WORDS = {
    "type": "a different kind of event",
    "payload.result": "a tool's result",
    "payload.args": "a tool call's arguments",
    "payload.error": "an error",
    "payload.content": "the content",
    "payload.contentHash": "the content put into the model's context",
    "payload.toolName": "which tool was called",
    "payload.model": "the model",
}
SLOT_WORDS = {"system-prompt": "system prompt", "messages": "messages", "tools": "tools"}


def comparison_sentences(result: RunComparison) -> tuple[str, ...]:
    """The verdict; or where the runs part, what happened there in each run (a
    sentence each) and how the first model call served differently differs."""
    if result.identical:
        return ("The two runs are the same in substance: only run ids, times, durations and "
                "provider-issued ids differ.",)
    sentences = []
    if result.first_difference is not None:
        sentences += _parting(result.first_difference)
    if result.served_difference is not None:
        sentences.append(_served(result.served_difference))
    if not sentences:
        sentences.append("The runs cannot be compared event by event; see the notes.")
    return tuple(sentences)


def _parting(first: FirstDifference) -> list[str]:
    a, b = first.a, first.b
    what = _field_words(first.field)
    if a.typed_index is None or b.typed_index is None:
        ended, going = ("A", b) if a.typed_index is None else ("B", a)
        lead = (f"The runs part where run {ended}'s events end and the other's go on, at "
                f"{_place(going)}.")
    elif a.step == b.step and a.scope_steps == b.scope_steps:
        lead = f"The runs part at {_place(a)}, in both runs: {what} differs."
    else:
        lead = f"The runs part at {_place(a)} of run A and {_place(b)} of run B: {what} differs."
    sentences = [lead]
    if a.step_words and b.step_words and a.step_words != b.step_words:
        sentences += [f"In A: {_sentence(a.step_words)}", f"In B: {_sentence(b.step_words)}"]
    elif a.step_words and b.step_words:
        sentences.append(f"In both: {_sentence(a.step_words)}")
    return sentences


def _field_words(field: str) -> str:
    if field in FIELD_WORDS:
        return FIELD_WORDS[field]
    if field.startswith("payload.args."):
        return f"the tool call's argument “{field.removeprefix('payload.args.')}”"
    return f"the event's “{field.removeprefix('payload.')}”"


def _place(side: EventSide) -> str:
    if side.step is None:
        return "a point between steps"
    path, index = side.step
    scope = "" if len(path) <= 1 else f" inside {path[-1]}"
    count = f" of {side.scope_steps}" if side.scope_steps else ""
    return f"step {index + 1}{count}{scope}"


def _served(served: ServedContextDifference) -> str:
    names = [SLOT_WORDS.get(slot, slot) for slot in served.slots]
    slots = and_words(names)
    verb = "differs" if names == ["system prompt"] else "differ"
    a, b = served.call_index_a, served.call_index_b
    if a is not None and a == b:
        calls = f"Model call {a + 1}'s {slots} {verb} between the runs"
    elif a is None or b is None:
        has, number = ("A", a) if a is not None else ("B", b)
        calls = f"Only run {has} makes a model call {number + 1}"
    else:
        calls = (f"The {slots} served to model call {a + 1} of run A and model call {b + 1} "
                 f"of run B {verb}")
    counts = []
    for slot in served.pieces:
        parts = [f"{len(slot.changed)} changed" if slot.changed else "",
                 f"{len(slot.added)} added" if slot.added else "",
                 f"{len(slot.removed)} removed" if slot.removed else "",
                 f"{slot.unchanged} the same" if slot.unchanged else ""]
        told = ", ".join(p for p in parts if p)
        if told:
            counts.append(f"{SLOT_WORDS.get(slot.slot, slot.slot)}: {told}")
    return calls + (f" ({'; '.join(counts)})." if counts else ".")


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "…", "”", "!", "?")) else text + "."

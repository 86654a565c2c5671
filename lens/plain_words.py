"""One sentence per step that a person can read without knowing the framework.

:func:`step_sentence` says what happened at a step ("The model asked for
issue_refund with orderId A-77120; it failed after 1 ms:
PaymentGatewayTimeout…") from recorded facts only: the model call and tool
calls of the evidence index, the decision's rationale, the subflow payloads
at the step's stage. A sentence is a run of fragments; a fragment is either
app wording or a recorded value (``value`` is the value as the recording
holds it, ``text`` how the sentence shows it, clipped), so a renderer can
set recorded values apart and escape them, and a test can check that every
value the sentence names is in the step's events.

A step where the framework filed a verdict (a permission check that denied
a tool, a contract left unmet, a canned answer that replaced the model's)
says so at the end of its sentence, in the words its cause leads with:
the sentence is what a person reads first, and "the model asked for
list_vendor_bank_accounts" alone hides that the call was refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from recorders import boundary_names
from recorders.evidence import EvidenceIndex, Finding, ModelCall, ToolCall
from recorders.run_step import DECIDE, FORK, ITERATION, MERGE, REACT, SEQUENTIAL, RunStep
from recorders.values import is_number, js_number_text
from lens.step_detail import (LLM_TO_TOOL, LLM_TO_USER, TOOL_TO_LLM, USER_TO_LLM, actor_arrow,
                              decision_rationale, step_call, step_tools)
from lens.evidence.plain_headlines import finding_headline
from lens.text import cut_at_word, format_ms, one_line

QUOTE_CHARS = 120  # a quoted text longer than this is clipped
MAX_TOOLS = 3      # tools named in one sentence; more are counted
MAX_ARGS = 3       # arguments named per tool; more are counted
MAX_RESULT_KEYS = 3  # keys named of an object result
MAX_NAMES = 4      # branch names named in one sentence
MAX_VERDICTS = 2   # verdicts named at the end of a sentence; more are counted
VERDICT_CHARS = 120  # a verdict's headline longer than this is cut at a word
# Where a subflow's payload carries its input (on entry) and its output (on exit).
INPUT_KEYS = ("message", "userMessage")
OUTPUT_KEYS = ("answer", "llmLatestContent", "result", "output")


@dataclass(frozen=True)
class Fragment:
    text: str                  # as shown
    value: str | None = None   # the recorded value it shows; None for app wording
    quoted: bool = True        # False: a recorded number shown bare, so 7 and “7” differ

    @property
    def recorded(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class Sentence:
    fragments: tuple[Fragment, ...]

    @property
    def text(self) -> str:
        """The sentence as plain text, recorded values in quotes."""
        return "".join(f"“{f.text}”" if f.recorded and f.quoted else f.text
                       for f in self.fragments)

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(f.value for f in self.fragments if f.value is not None)


class _Words:
    """A sentence being written: app wording and recorded values, in order."""

    def __init__(self) -> None:
        self.parts: list[Fragment] = []

    def say(self, text: str) -> _Words:
        self.parts.append(Fragment(text))
        return self

    def quote(self, value: Any, limit: int = QUOTE_CHARS, bare_numbers: bool = False) -> _Words:
        raw = _raw(value)
        self.parts.append(Fragment(one_line(raw, limit), raw,
                                   quoted=not (bare_numbers and is_number(value))))
        return self

    def done(self) -> Sentence:
        return Sentence(tuple(self.parts))


def step_sentence(step: RunStep, evidence: EvidenceIndex,
                  verdicts: Sequence[Finding] = ()) -> Sentence:
    """What happened at ``step``, in one sentence, from its recorded facts;
    ``verdicts`` are the framework's verdicts placed at this step (the step
    detail's "what went wrong here"), told at the end in their own words."""
    sentence = _what_happened(step, evidence)
    if not verdicts:
        return sentence
    words = _Words()
    words.parts.extend(sentence.fragments)
    _verdicts(words, verdicts, evidence)
    return words.done()


def _what_happened(step: RunStep, evidence: EvidenceIndex) -> Sentence:
    if step.kind == REACT:
        return _model_step(step, evidence)
    if step.kind == DECIDE:
        return _decision(step, evidence)
    if step.kind in (FORK, MERGE):
        return _fork_or_merge(step)
    if step.kind == ITERATION:
        return _loop_pass(step, evidence)
    if step.kind == SEQUENTIAL:
        return _handoff(step, evidence)
    return _Words().say(f"A {step.kind} step (").quote(step.label).say(").").done()


def _verdicts(words: _Words, verdicts: Sequence[Finding], evidence: EvidenceIndex) -> None:
    """`` Flagged here: a permission check denied x (rule TRS-04): “…”.`` Each
    verdict is told by its cause's plain headline (its type name and payload
    are one click down, in the step detail), once however often it was filed.
    A verdict whose recorded text the sentence already quotes (the tool end
    whose failure it tells) is not named at all."""
    said = {fragment.value for fragment in words.parts if fragment.recorded}
    told: list[str] = []
    for finding in verdicts:
        quotable = [value for _, value in finding.explained
                    if isinstance(value, str) and value or is_number(value)]
        if quotable and all(_raw(value) in said for value in quotable):
            continue
        headline = _in_a_clause(finding_headline(evidence, [finding]))
        if headline not in told:
            told.append(headline)
    if not told:
        return
    words.say(" Flagged here: " + "; ".join(cut_at_word(headline, VERDICT_CHARS)
                                            for headline in told[:MAX_VERDICTS]))
    if len(told) > MAX_VERDICTS:
        more = len(told) - MAX_VERDICTS
        words.say(f"; and {more} more verdict{'' if more == 1 else 's'}")
    words.say(".")


def _in_a_clause(headline: str) -> str:
    """A headline as a clause after a colon: its first word in lower case when
    it is an ordinary word ("A permission check…", "Tool x…"), never a name
    ("EditorialLoop…", "openai-gpt-4.1…")."""
    first, _, rest = headline.partition(" ")
    if first[:1].isupper() and (not first[1:] or first[1:].isalpha() and first[1:].islower()):
        return first.lower() + (" " + rest if rest else "")
    return headline


def _raw(value: Any) -> str:
    """A value as a fragment records it."""
    return js_number_text(value) if is_number(value) else str(value)


# ─── model and tool calls ──────────────────────────────────────────────


def _model_step(step: RunStep, evidence: EvidenceIndex) -> Sentence:
    arrow = actor_arrow(step)
    call = step_call(step, evidence)
    words = _Words()
    if call is None:
        return words.say("A model call happens here, but the recording has no model-call "
                         "events at this stage.").done()
    if arrow == USER_TO_LLM:
        words.say("The model")
        _model_name(words, call)
        return words.say(f" is called with {_count(call.messages_count, 'message')}"
                         f"{_offered(call)}.").done()
    if arrow == LLM_TO_TOOL:
        tools = step_tools(step, evidence)
        if not tools:
            return words.say("The model asked for tools, but no tool call follows in the "
                             "recording.").done()
        words.say("The model asked for ")
        _tool_list(words, tools)
        return words.say(".").done()
    if arrow == TOOL_TO_LLM:
        tools = step_tools(step, evidence)
        if not tools:
            return words.say("Tool results go back to the model.").done()
        words.say("Back to the model: ")
        for number, tool in enumerate(tools[:MAX_TOOLS]):
            if number:
                words.say("; ")
            _tool_name(words, tool)
            if tool.failed:
                words.say(" failed")
                if tool.has_result and tool.result not in (None, ""):
                    words.say(": ").quote(_result_text(tool.result), limit=80)
            else:
                words.say(" returned" if tool.has_result else " ended, result not recorded")
        if len(tools) > MAX_TOOLS:
            words.say(f"; and {len(tools) - MAX_TOOLS} more tool results")
        return words.say(".").done()
    if arrow == LLM_TO_USER:
        words.say("The model")
        _model_name(words, call)
        if call.output:
            return words.say(" answered: ").quote(call.output).say(".").done()
        if call.failure:
            return words.say(" failed: ").quote(call.failure).say(".").done()
        return words.say(" answered; the recording carries no text for the answer.").done()
    words.say("A model call")
    _model_name(words, call)
    return words.say(".").done()


def _model_name(words: _Words, call: ModelCall) -> None:
    if call.model:
        words.say(" (").quote(call.model).say(")")


def _offered(call: ModelCall) -> str:
    if call.tools_count is None or call.tools_count == 0:
        return ""
    return f" and {_count(call.tools_count, 'tool')} it may use"


def _count(value: float | None, noun: str) -> str:
    if value is None:
        return f"an unrecorded number of {noun}s"
    return f"{js_number_text(value)} {noun}{'' if value == 1 else 's'}"


def _tool_list(words: _Words, tools: tuple[ToolCall, ...]) -> None:
    for number, tool in enumerate(tools[:MAX_TOOLS]):
        if number:
            words.say("; then ")
        _tool_name(words, tool)
        _arguments(words, tool.args)
        _outcome(words, tool)
    if len(tools) > MAX_TOOLS:
        words.say(f"; and {len(tools) - MAX_TOOLS} more tool calls")


def _tool_name(words: _Words, tool: ToolCall) -> None:
    if tool.name:
        words.quote(tool.name)
    else:
        words.say("an unnamed tool")


def _arguments(words: _Words, args: Any) -> None:
    """Up to MAX_ARGS arguments by name, then how many more: an argument is
    never dropped without a word (a date left out changes what was asked)."""
    if not isinstance(args, Mapping) or not args:
        return
    words.say(" with ")
    items = list(args.items())
    for number, (key, value) in enumerate(items[:MAX_ARGS]):
        if number:
            words.say(", ")
        words.quote(key).say(" = ")
        _argument_value(words, value)
    if len(items) > MAX_ARGS:
        more = len(items) - MAX_ARGS
        words.say(f" and {more} more argument{'' if more == 1 else 's'}")


def _argument_value(words: _Words, value: Any) -> None:
    """A text or number quoted (clipped); any other value described in app words."""
    if isinstance(value, str) or is_number(value):
        # A number bare, a text quoted: a tool refused for a numeric id where it
        # wants text ("crewId" = 7, not “C-07”) must read differently from “7”.
        words.quote(value, limit=40, bare_numbers=True)
    elif isinstance(value, bool):
        words.say("true" if value else "false")
    elif value is None:
        words.say("null")
    elif isinstance(value, Mapping):
        words.say(f"an object of {_count(len(value), 'field')}")
    elif isinstance(value, list):
        words.say(f"a list of {_count(len(value), 'item')}")
    else:
        words.say("a value")


def _outcome(words: _Words, tool: ToolCall) -> None:
    if not tool.ended:
        words.say("; the recording has no end for that call")
        return
    timing = ""
    if tool.duration_ms is not None:
        timing = f" after {format_ms(tool.duration_ms)}"
    if tool.failed:
        words.say(f"; it failed{timing}")
        if tool.has_result and tool.result not in (None, ""):
            words.say(": ").quote(_result_text(tool.result))
        return
    words.say(f"; it returned{timing}")
    if not tool.has_result:
        words.say(", the result not recorded")
    elif isinstance(tool.result, str) and tool.result:
        words.say(" ").quote(tool.result, limit=60)
    elif isinstance(tool.result, Mapping) and tool.result:
        words.say(" an object with ")
        for number, key in enumerate(list(tool.result)[:MAX_RESULT_KEYS]):
            if number:
                words.say(", ")
            words.quote(key)
        if len(tool.result) > MAX_RESULT_KEYS:
            words.say("…")
    elif is_number(tool.result):
        words.say(" ").quote(tool.result)


def _result_text(result: Any) -> Any:
    if isinstance(result, Mapping):
        for key in ("message", "error"):
            if isinstance(result.get(key), str):
                return result[key]
    return result if isinstance(result, str) or is_number(result) else "an error value"


# ─── compositions ──────────────────────────────────────────────────────


def _decision(step: RunStep, evidence: EvidenceIndex) -> Sentence:
    chosen = (step.meta or {}).get("chosen")
    words = _Words()
    if isinstance(chosen, str) and chosen:
        words.say("The route chose ").quote(chosen)
    else:
        words.say("A decision was made")
    rationale = decision_rationale(step, evidence)
    if rationale:
        return words.say(" because ").quote(rationale).say(".").done()
    return words.say("; the recording gives no reason.").done()


def _fork_or_merge(step: RunStep) -> Sentence:
    if step.kind == FORK:
        names = [t.target for t in step.transitions]
        words = _Words().say(f"The work split into {len(names)} branches running side by side")
    else:
        names = [t.source for t in step.transitions]
        words = _Words().say(f"{len(names)} branches finished and their results were merged")
    _names(words, names)
    return words.say(".").done()


def _names(words: _Words, names: list[str]) -> None:
    if not names:
        return
    words.say(": ")
    for number, name in enumerate(names[:MAX_NAMES]):
        if number:
            words.say(", ")
        words.quote(name)
    if len(names) > MAX_NAMES:
        words.say(f" and {len(names) - MAX_NAMES} more")


def _loop_pass(step: RunStep, evidence: EvidenceIndex) -> Sentence:
    meta = step.meta or {}
    words = _Words().say("Loop pass ")
    index = meta.get("index")
    if is_number(index):
        words.say(js_number_text(index))
    else:
        words.quote(step.label)
    target = meta.get("target")
    if isinstance(target, str) and target:
        words.say(" ran ").quote(target)
    output = _text_of(_payload_at(step, evidence, boundary_names.SUBFLOW_EXIT), OUTPUT_KEYS)
    if output is not None:
        return words.say(" and produced ").quote(output).say(".").done()
    return words.say(".").done()


def _handoff(step: RunStep, evidence: EvidenceIndex) -> Sentence:
    answers = step.label == "answers"
    entry = _event_at(step, evidence, boundary_names.SUBFLOW_ENTRY)
    name = entry.get("subflowName") if entry else None
    words = _Words()
    if isinstance(name, str) and name:
        words.quote(name)
    else:
        words.say("The next part of the run")
    if answers:
        text = _text_of(_payload_at(step, evidence, boundary_names.SUBFLOW_EXIT), OUTPUT_KEYS)
        words.say(" answered")
    else:
        text = _text_of(_payload_at(step, evidence, boundary_names.SUBFLOW_ENTRY), INPUT_KEYS)
        words.say(" was handed its input" if step.label == "asks" else
                  " was handed the previous part's result")
    if text is not None:
        words.say(": ").quote(text)
    return words.say(".").done()


def _event_at(step: RunStep, evidence: EvidenceIndex, kind: str) -> dict | None:
    events = evidence.stages.boundary_events_at(step.runtime_stage_id, kind)
    return events[0] if events else None


def _payload_at(step: RunStep, evidence: EvidenceIndex, kind: str) -> Any:
    event = _event_at(step, evidence, kind)
    return event.get("payload") if event else None


def _text_of(payload: Any, keys: tuple[str, ...]) -> str | None:
    """The text a subflow payload carries: itself, or the first of ``keys`` it has."""
    if isinstance(payload, str) and payload:
        return payload
    if isinstance(payload, Mapping):
        for key in keys:
            if isinstance(payload.get(key), str) and payload[key]:
                return payload[key]
    return None


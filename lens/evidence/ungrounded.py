"""Answered without grounding: an answer states an id or a number no tool returned.

An agent offered tools is meant to read its facts from them. When its answer
states a distinctive value (:mod:`lens.evidence.answer_values`) that no tool
result of the file holds and no user message gave, the value came from
somewhere else: a remembered or retrieved entry, the system prompt, or
nothing the model was served at all. The cause names the value, where it came
from, and the tools: those offered and never called in the answer's scope,
else those called, whose results hold no such value.

Conservative: only final answers of calls that were offered a tool, only
values of a distinctive shape, and a value any tool result or user message
holds anywhere in the file counts as grounded. When the framework's evidence
gate flagged the same value, its verdict is told by this cause (its event is
among the cause's), not a second time.
"""

from __future__ import annotations

from typing import Sequence

from recorders.catalogue import AGENT_EVIDENCE_CHECKED, VERDICT
from recorders.evidence import TOOLS, EvidenceIndex, Finding, ModelCall, SearchEntry, StepMap
from recorders.evidence.records import tool_name_of
from lens.evidence.answer_values import Texts, distinctive_values, holds
from lens.evidence.cause_record import ERROR, WARNING, LikelyCause
from lens.evidence.nav import call_title, nav_for_call
from lens.text import display_text
from lens.wording import and_words

KIND = "answered without grounding"
# Search entries whose text grounds a value: what tools returned, what the user said.
_GROUNDING_KINDS = frozenset({"tool result", "user prompt"})
MEMORY_SOURCES = frozenset({"rag", "memory"})  # the sources of a remembered piece
NO_SOURCE = "no tool result or message holds it"
SYSTEM_PROMPT_SOURCE = "the system prompt"


def ungrounded_answers(index: EvidenceIndex, step_map: StepMap | None) -> list[LikelyCause]:
    answers = [call for call in index.calls
               if call.is_final_answer and call.output and _offered(call)]
    if not answers:
        return []
    grounding = Texts(entry.text for entry in index.search_entries if grounds(entry))
    served = _served_to({call.id for call in answers}, index.search_entries)
    flags = _evidence_flags(index.findings)
    causes = []
    for call in answers:
        values = [value for value in distinctive_values(call.output)
                  if not grounding.hold(value) and not grounding.derive(value)]
        if values:
            causes.append(_cause(index, step_map, call, values, served.get(call.id, ()),
                                 flags.get(call.id, ())))
    return causes


def grounds(entry: SearchEntry) -> bool:
    """Whether a search entry's text grounds a value: a tool's result or the user's words."""
    if entry.kind in _GROUNDING_KINDS:
        return True
    # A served message the user wrote (a composition hands one step's answer on as one).
    return entry.kind == "message" and entry.label.split(" ", 1)[0] == "user"


def _offered(call: ModelCall) -> tuple[str, ...]:
    """The names of the tools ``call`` was offered: its ``llm_start`` list,
    else its tools slot."""
    names: list[str | None] = []
    if call.tools_offered:
        names = [tool.get("name") if isinstance(tool, dict) else None
                 for tool in call.tools_offered]
    elif TOOLS in call.slots:
        names = [tool_name_of(piece.content) for piece in call.slots[TOOLS].pieces]
    return tuple(dict.fromkeys(name for name in names if isinstance(name, str) and name))


def _served_to(calls: set[int], entries: Sequence[SearchEntry]
               ) -> dict[int, list[SearchEntry]]:
    """The served texts (prompt and message pieces) of each of ``calls``."""
    served: dict[int, list[SearchEntry]] = {}
    for entry in entries:
        for call in entry.served_in:
            if call in calls:
                served.setdefault(call, []).append(entry)
    return served


def _evidence_flags(findings: Sequence[Finding]) -> dict[int, list[Finding]]:
    """The evidence gate's verdicts (values no tool returned) by the call they judged."""
    flags: dict[int, list[Finding]] = {}
    for finding in findings:
        if finding.type == AGENT_EVIDENCE_CHECKED and finding.kind == VERDICT \
                and finding.call is not None:
            flags.setdefault(finding.call, []).append(finding)
    return flags


def source_of(value: str, served: Sequence[SearchEntry]) -> str:
    """Where a value the tools did not return came from, among the texts the
    call was served: a remembered entry first, then the system prompt."""
    holding = [entry for entry in served if holds(entry.text, value)]
    for entry in holding:
        source, _, source_id = entry.label.partition(" ")
        if source in MEMORY_SOURCES:
            return f"memory entry {entry_name(source_id)}" if source_id else "a memory entry"
    if any(entry.kind == "system prompt" for entry in holding):
        return SYSTEM_PROMPT_SOURCE
    return NO_SOURCE


def entry_name(source_id: str) -> str:
    """A remembered entry as people name it: 9.62 spells a retrieved piece's
    source ``memory:<store>#<entry>``; the entry, else the id as recorded."""
    _, hash_mark, entry = source_id.rpartition("#")
    return entry if hash_mark and entry else source_id


def _flagged(finding: Finding, values: Sequence[str]) -> bool:
    unsupported = finding.payload.get("unsupported") if isinstance(finding.payload, dict) else None
    said = [item.get("value") for item in unsupported if isinstance(item, dict)] \
        if isinstance(unsupported, list) else []
    return any(isinstance(text, str) and holds(text, value) for text in said for value in values)


def _cause(index: EvidenceIndex, step_map: StepMap | None, call: ModelCall,
           values: list[str], served: Sequence[SearchEntry],
           flags: Sequence[Finding]) -> LikelyCause:
    sources = {value: source_of(value, served) for value in values}
    offered = _offered(call)
    called = list(dict.fromkeys(
        tool.name for tool in index.tool_calls
        if tool.run_id == call.run_id and tool.scope == call.scope and tool.name))
    never_called = [name for name in offered if name not in called]
    headline = f"Answer states {and_words(values)}, which no tool returned"
    if never_called:
        headline += f"; {and_words(never_called)} {_was(never_called)} offered and never called"
    why = " ".join(f"{value}: {source}." for value, source in sources.items())
    if called:
        why += (f" The scope called {and_words(called)}; no tool result in the file holds "
                f"{'it' if len(values) == 1 else 'them'}.")
    else:
        why += f" {call_title(call)} was offered {and_words(offered)} and no tool was called."
    told = [finding for finding in flags if _flagged(finding, values)]
    if told:
        action = told[0].word("action")
        why += f" The framework's evidence gate flagged the same value (its action: {action})."
    invented = any(source != SYSTEM_PROMPT_SOURCE for source in sources.values())
    return LikelyCause(
        KIND, ERROR if invented else WARNING, headline, why, display_text(call.output),
        nav_for_call(index, step_map, call.id, end=True),
        tuple(position for position in
              [call.end_event_index, *(finding.event_index for finding in told)]
              if position is not None),
        (never_called or called or [None])[0], answer_call=call.id)


def _was(items: Sequence[str]) -> str:
    return "was" if len(items) == 1 else "were"

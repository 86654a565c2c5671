"""The backtrack chain: from a model output back through the context that fed it.

From a model output (the final answer by default) the walk goes back through
the context that call was served: tool results to their tool calls and the
model calls that asked for them, assistant messages to the calls that wrote
them, recursively, down to the user's message and the system prompt. Each
piece is listed once, where it is first met.

The walk is breadth first: the target's whole context, with each piece's
immediate source, comes before the context of the calls those sources lead
to, so a long history is cut at its far end, never at the answer's own
context. It is written as plain functions over one small state
(:class:`_Walk`: the index, the step map, and what was met already).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Iterator

from recorders.evidence import (MESSAGES, SYSTEM_PROMPT, TOOLS, EvidenceIndex, ModelCall, Piece,
                                StepMap)
from recorders.values import json_text
from lens.evidence.feeds import DECIDED, feeds_of
from lens.evidence.nav import Nav, call_in_words, call_title, nav_for_call, nav_for_tool
from lens.text import DisplayText, display_text

MAX_BACKTRACK_LINKS = 400


@dataclass(frozen=True)
class BacktrackLink:
    number: int
    depth: int
    relation: str             # our words: "final answer", "tool result", "asked for by", ...
    kind: str                 # "output" | "system" | "message" | "tool" | "call" | "tools" |
                              # "evicted" | "context" (a call's own context follows) | "note" |
                              # "decision" (a Conditional chose this branch)
    title: str                # may hold recording ids/names: show as text
    text: DisplayText | None
    call_id: int | None
    tool_id: int | None
    error: bool
    inferred: str | None      # how a link was inferred when the recording has no id for it
    nav: Nav | None


@dataclass(frozen=True)
class BacktrackChain:
    target_call_id: int | None
    links: tuple[BacktrackLink, ...]
    truncated: bool
    notes: tuple[str, ...]

    def tools(self) -> list[BacktrackLink]:
        return [link for link in self.links if link.kind == "tool"]


# A link, and the model call whose own context the walk should visit next (if any).
Found = tuple[BacktrackLink, "ModelCall | None"]


@dataclass
class _Walk:
    """What one walk reads and what it has met already."""

    index: EvidenceIndex
    step_map: StepMap | None
    seen_calls: set[int] = field(default_factory=set)
    seen_pieces: set[tuple] = field(default_factory=set)
    seen_tools: set[tuple] = field(default_factory=set)

    def first_meeting(self, key: tuple, seen: set[tuple]) -> bool:
        """True the first time ``key`` is met (and remember it)."""
        if key in seen:
            return False
        seen.add(key)
        return True

    def call_nav(self, call_id: int, end: bool = False) -> Nav:
        return nav_for_call(self.index, self.step_map, call_id, end=end)

    def entered_at(self, call: ModelCall, slot: str, key: tuple) -> ModelCall:
        """The earliest call of ``call``'s scope, in an unbroken run of calls
        back from it, that was served the piece ``key`` in ``slot``: where the
        piece first entered the context."""
        entered = call
        while entered.previous_in_scope is not None:
            before = self.index.calls[entered.previous_in_scope]
            composition = before.slots.get(slot)
            if composition is None or all(p.key != key for p in composition.pieces):
                break
            entered = before
        return entered


def _link(depth: int, relation: str, kind: str, title: str, text: Any = None, *,
          call: int | None = None, tool: int | None = None, error: bool = False,
          inferred: str | None = None, nav: Nav | None = None) -> BacktrackLink:
    """A link, numbered once the chain is complete."""
    return BacktrackLink(0, depth, relation, kind, title,
                         display_text(text) if text is not None else None, call, tool, error,
                         inferred, nav)


def backtrack(index: EvidenceIndex, call_id: int | None = None,
              step_map: StepMap | None = None,
              max_links: int = MAX_BACKTRACK_LINKS) -> BacktrackChain:
    """The chain from ``call_id``'s output (the final answer when None); see the module doc."""
    target = index.calls[call_id] if call_id is not None else index.final_call()
    notes = list(index.notices)
    if target is None:
        return BacktrackChain(None, (), False, tuple(notes + ["No model call was recorded."]))
    walk = _Walk(index, step_map, seen_calls={target.id})
    final = index.final_call()
    relation = ("final answer" if final is not None and target.id == final.id
                and target.is_final_answer else "model output")
    links = [_link(0, relation, "output", call_title(target), target.output, call=target.id,
                   nav=walk.call_nav(target.id, end=True))]
    if target.output is None:
        notes.append("The chosen call's output is not recorded.")
    truncated = _walk_back(walk, target, links, max_links)
    if truncated:
        notes.append(f"The chain was cut at {max_links} links.")
    numbered = tuple(replace(link, number=n + 1) for n, link in enumerate(links))
    return BacktrackChain(target.id, numbered, truncated, tuple(notes))


def _walk_back(walk: _Walk, target: ModelCall, links: list[BacktrackLink],
               max_links: int) -> bool:
    """Append the links behind ``target``'s output, breadth first; True when cut short."""
    queue: deque[tuple[ModelCall, int, bool]] = deque([(target, 1, False)])
    while queue:
        call, depth, needs_header = queue.popleft()
        for link, source in _context_links(walk, call, depth):
            if len(links) >= max_links - (1 if needs_header else 0):
                return True
            if needs_header:  # this call's context follows: say whose it is
                links.append(_link(depth - 1, "context served to", "context", call_title(call),
                                   call=call.id, nav=walk.call_nav(call.id)))
                needs_header = False
            links.append(link)
            if source is not None and source.id not in walk.seen_calls:
                walk.seen_calls.add(source.id)
                queue.append((source, link.depth + 1, True))
    return False


def _context_links(walk: _Walk, call: ModelCall, depth: int) -> Iterator[Found]:
    """The pieces ``call`` was served that were not met before, each with its source."""
    served_nav = walk.call_nav(call.id)
    if not call.slots:
        yield _link(depth, "no context recorded", "note",
                    f"{call_title(call)}: no injections were recorded", call=call.id,
                    nav=served_nav), None
        return
    scope_key = (call.run_id, call.scope)
    system = call.slots.get(SYSTEM_PROMPT)
    for piece in system.pieces if system else ():
        if walk.first_meeting((scope_key, SYSTEM_PROMPT, piece.key, piece.content),
                              walk.seen_pieces):
            label = f"{piece.source or 'source not recorded'}" + (
                f" {piece.source_id}" if piece.source_id else "")
            first = walk.entered_at(call, SYSTEM_PROMPT, piece.key)
            yield _link(depth, _entered("system prompt", call, first), "system", label,
                        piece.content, call=first.id, nav=walk.call_nav(first.id)), None
    tools = call.slots.get(TOOLS)
    if tools is not None and tools.pieces:
        names = tuple(str(p.key[1]) for p in tools.pieces)
        if walk.first_meeting((scope_key, names), walk.seen_tools):
            yield _link(depth, "tools offered", "tools", ", ".join(names), call=call.id,
                        nav=served_nav), None
    messages = call.slots.get(MESSAGES)
    for piece in messages.pieces if messages else ():
        if walk.first_meeting((scope_key, MESSAGES, piece.key), walk.seen_pieces):
            yield from _message_links(walk, piece, call, depth, served_nav)
    for eviction in call.evictions:
        for piece in eviction.pieces:
            if not walk.first_meeting((scope_key, piece.slot, piece.key), walk.seen_pieces):
                continue
            found = _message_links(walk, piece, call, depth, served_nav)
            link, source = next(found)
            yield replace(link, kind="evicted",
                          relation=f"evicted before this call ({link.relation})"), source
            yield from found
    yield from _composition_links(walk, call, depth)


def _entered(relation: str, call: ModelCall, first: ModelCall) -> str:
    return relation if first.id == call.id else f"{relation} (first served to {call_in_words(first)})"


def _composition_links(walk: _Walk, call: ModelCall, depth: int) -> Iterator[Found]:
    """Where the input of a composition's child came from: the decision that
    chose it, the previous step's forwarded answer, or a merge's branches."""
    steps = walk.step_map.steps if walk.step_map is not None else ()
    for feed in feeds_of(walk.index, steps, call):
        if feed.relation == DECIDED:
            title = f"routes to {feed.chosen}"
            text = (f"rationale: {feed.rationale}" if feed.rationale is not None
                    else "the recording carries no rationale for this decision")
            yield _link(depth, feed.relation, "decision", title, text,
                        nav=Nav(feed.step, True)), None
            continue
        source = walk.index.calls[feed.call_id]
        yield _link(depth, feed.relation, "call", call_title(source), source.output,
                    call=source.id, nav=walk.call_nav(source.id, end=True)), source


def _message_links(walk: _Walk, piece: Piece, call: ModelCall, depth: int,
                   served_nav: Nav) -> Iterator[Found]:
    """A message piece, then where it came from (a tool call and its asker, or
    the call that wrote the same text)."""
    index = walk.index
    role = piece.role or piece.source or "message"
    if piece.tool_call is not None:
        tool = index.tool_calls[piece.tool_call]
        yield _link(depth, "tool result (ERROR)" if tool.error else "tool result", "message",
                    f"{tool.name} {tool.tool_call_id}", piece.content, call=call.id,
                    tool=tool.id, error=bool(tool.error), nav=served_nav), None
        yield _link(depth + 1, "returned by tool call", "tool", f"{tool.name} {tool.tool_call_id}",
                    f"arguments: {json_text(tool.args)}", tool=tool.id, call=tool.requested_by,
                    error=bool(tool.error), nav=nav_for_tool(index, walk.step_map, tool.id)), None
        asker = index.asked_by(tool.id)
        if asker is not None:
            yield _link(depth + 2, "asked for by", "call", call_title(asker), asker.output,
                        call=asker.id, nav=walk.call_nav(asker.id, end=True)), asker
        else:
            yield _link(depth + 2, "asking call not recorded", "note",
                        "no model call before this tool call in its scope"), None
        return
    if piece.is_tool_result:
        yield _link(depth, "tool result (tool call not recorded)", "message",
                    str(piece.source_id), piece.content, call=call.id, nav=served_nav), None
        return
    if piece.written_by is not None or piece.matches_output_of is not None:
        writer_id = piece.written_by if piece.written_by is not None else piece.matches_output_of
        writer = index.calls[writer_id]
        written = piece.written_by is not None
        yield _link(depth, "assistant message" if written else "user message", "message", role,
                    piece.content, call=call.id, nav=served_nav), None
        yield _link(depth + 1, "written by" if written else "same text as the output of", "call",
                    call_title(writer), None, call=writer.id,
                    inferred="matched by identical text",
                    nav=walk.call_nav(writer.id, end=True)), writer
        return
    relation = "user message" if role == "user" else f"{role} message"
    if piece.from_user_prompt:
        relation = "user message (the turn's prompt)"
    inferred = None
    if piece.content is None or piece.content_is_summary:
        inferred = "cannot be traced further: only a summary or nothing was recorded"
    first = walk.entered_at(call, MESSAGES, piece.key)
    yield _link(depth, _entered(relation, call, first), "message", role, piece.content,
                call=first.id, inferred=inferred,
                nav=served_nav if first.id == call.id else walk.call_nav(first.id)), None

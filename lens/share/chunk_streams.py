"""Text that was streamed: the chunks of one model answer (``stream.token``) or
one reasoning (``stream.thinking_delta``), put back together for redaction.

A secret streamed in pieces is in no single event: ``"alice.sm"`` in one
token, ``"ith@example.com"`` in the next. Redaction looks for secrets in each
stream's joined text and writes the masked whole back over the chunks
(:func:`spread`): a mask goes into the chunk where its value starts, the
rest of the value is left out of the chunks after it, and every event stays.

A stream is the chunks of one event type, run, stage and iteration, in
``tokenIndex`` order (arrival order where a chunk has none). A second chunk
with a ``tokenIndex`` already met in the stream starts a second copy of it
(a file holding the run twice), so copies are never joined into one text.
In a packed recording an event's ``meta`` (or a chunk's content) may be a
``{"$af:ref": n}`` reference into the file's ``values``, followed here.

What this owns: which events are chunks, their streams, and spreading a
masked whole over them. What it does not: finding or masking secrets
(:mod:`lens.share.redaction`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from recorders.catalogue import LLM_TOKEN, THINKING_DELTA

CHUNK_TYPES = frozenset({LLM_TOKEN, THINKING_DELTA})
_REF = "$af:ref"
_MAX_HOPS = 16  # references followed for one value (a packed file's are one or two deep)


def resolved(value: Any, values: Sequence[Any] | None) -> Any:
    """``value``, or what its packed reference stands for (``values`` is the
    packed file's table; None when the file is not packed)."""
    for _ in range(_MAX_HOPS):
        if (values is None or value.__class__ is not dict or len(value) != 1
                or _REF not in value):
            return value
        index = value[_REF]
        if index.__class__ is not int or not 0 <= index < len(values):
            return value
        value = values[index]
    return value


def chunk_of(event: dict, values: Sequence[Any] | None) -> tuple[tuple, Any, str] | None:
    """(stream key, token index, text) of a chunk event; None for any other dict."""
    kind = event.get("type")
    if kind.__class__ is not str or kind not in CHUNK_TYPES:
        return None
    payload = event.get("payload")
    if payload.__class__ is not dict:
        return None
    content = resolved(payload.get("content"), values)
    if content.__class__ is not str:
        return None
    meta = resolved(event.get("meta"), values)
    run = stage = None
    if meta.__class__ is dict:
        run = _hashable(resolved(meta.get("runId"), values))
        stage = _hashable(resolved(meta.get("runtimeStageId"), values))
    else:
        stage = _hashable(meta)
    iteration = _hashable(resolved(payload.get("iteration"), values))
    return (kind, run, stage, iteration), payload.get("tokenIndex"), content


def _hashable(value: Any) -> Any:
    return value if value is None or value.__class__ in (str, int, float, bool) else repr(value)


@dataclass
class Chunk:
    """One chunk as met: its place in the stream, its text, and (when rewriting)
    the payload written for it, whose ``content`` :func:`spread` sets."""

    token_index: Any
    arrival: int
    text: str
    holder: dict | None = None


class ChunkStreams:
    """The streams of one document, gathered as its events are met."""

    def __init__(self) -> None:
        self._streams: dict[tuple, list[Chunk]] = {}
        self._copies: Counter = Counter()
        self._arrivals = 0

    def add(self, key: tuple, token_index: Any, text: str, holder: dict | None = None) -> None:
        copy = 0
        if token_index.__class__ is int:
            copy = self._copies[key, token_index]
            self._copies[key, token_index] += 1
        self._streams.setdefault((key, copy), []).append(
            Chunk(token_index, self._arrivals, text, holder))
        self._arrivals += 1

    def __bool__(self) -> bool:
        return bool(self._streams)

    def streams(self) -> list[list[Chunk]]:
        """Each stream's chunks in order: by token index where every chunk has one."""
        ordered = []
        for chunks in self._streams.values():
            if all(c.token_index.__class__ is int for c in chunks):
                chunks = sorted(chunks, key=lambda c: (c.token_index, c.arrival))
            ordered.append(chunks)
        return ordered


def joined(chunks: Sequence[Chunk]) -> str:
    return "".join(chunk.text for chunk in chunks)


def spread(text: str, lengths: Sequence[int], groups: Sequence[tuple[int, int, str]]
           ) -> list[str]:
    """The chunks of ``text`` (``lengths`` long, in order) with each masked group
    ``(start, end, replacement)`` (sorted, not overlapping) written over them:
    the replacement where the group starts, nothing for the rest of it."""
    pieces: list[str] = []
    at_group = 0
    start = 0
    for length in lengths:
        end = start + length
        out: list[str] = []
        position = start
        while position < end:
            while at_group < len(groups) and groups[at_group][1] <= position:
                at_group += 1
            if at_group == len(groups) or groups[at_group][0] >= end:
                out.append(text[position:end])
                break
            group_start, group_end, replacement = groups[at_group]
            if group_start > position:
                out.append(text[position:group_start])
                position = group_start
            if position == group_start:
                out.append(replacement)
            position = min(group_end, end)
        pieces.append("".join(out))
        start = end
    return pieces

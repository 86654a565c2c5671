"""Which state key holds a served value: a model call's slot piece or output,
matched by its text to the values the commit log wrote.

Owns: one index per run of every string the commit log's commits wrote (under
each written key, at any depth inside its value), and the lookup that names,
for a text a model was served, the written key whose write put that text
there last before the call. A match is by exact text only, never by a key's
name: a piece the engine composed from several values, or from outside the
state, matches nothing, and the caller says so. Knows nothing about widgets
or about how a slot is shown.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Iterator

from recorders.lineage import DELIM, Lineage, own_get

INPUT, OUTPUT = "input", "output"  # what the model was given; what it wrote back


@dataclass(frozen=True)
class KeyMatch:
    """A written key holding a text: the commit that wrote it and where inside the value."""

    key: str                  # the commit log's key (nested segments joined by DELIM)
    commit: int               # position in the commit log of the write that holds the text
    inner: tuple[str, ...]    # the path inside the key's value ("" parts: the value itself)
    stage_name: str | None
    runtime_stage_id: str | None
    others: int               # how many other written keys hold the same text by then


@dataclass(frozen=True)
class NoMatch:
    """Why no written key is named for a text (this module's words)."""

    why: str


NOT_IN_STATE = ("No state key the commit log writes holds this text: it was composed from "
                "several values, or came from outside the run's state.")
STAGE_NOT_IN_LOG = ("Neither this call's stage nor a subflow around it has a commit in the "
                    "commit log (the call may belong to an earlier run of the file), so no "
                    "write can be placed before it.")
NO_TEXT = "No text was recorded for this piece, so it cannot be matched to a state key."


def written_value(bundle: dict, key: str) -> Any:
    """The value a commit wrote at ``key`` (flat or nested in its overwrite or
    updates; the updates win, as they are applied after); None when absent."""
    found = None
    segments = key.split(DELIM)
    for part in ("overwrite", "updates"):
        written = bundle.get(part)
        if not isinstance(written, dict):
            continue
        if key in written:
            found = written[key]
        else:
            nested = own_get(written, segments)
            if nested is not None:
                found = nested
    return found


def _strings(value: Any, inner: tuple[str, ...] = ()) -> Iterator[tuple[str, tuple[str, ...]]]:
    # An explicit stack: a hostile recording nests deeper than Python recurses.
    stack = [(value, inner)]
    while stack:
        current, path = stack.pop()
        if isinstance(current, str):
            yield current, path
        elif isinstance(current, dict):
            stack.extend((item, (*path, str(name))) for name, item in current.items())
        elif isinstance(current, list):
            stack.extend((item, (*path, str(n))) for n, item in enumerate(current))


class ValueIndex:
    """Every string the commit log wrote -> the writes holding it, in commit order.

    Owns the index and the lookup; not the lineage queries (``Lineage``) nor
    how a served piece is found (the caller passes its text and its stage).
    Built once per run: one walk over the written values.
    """

    def __init__(self, lineage: Lineage) -> None:
        log = lineage.log
        self._bundles = log.bundles
        self._writes: dict[str, list[tuple[int, str, tuple[str, ...]]]] = {}
        self._first_commit: dict[Any, int] = {}
        self._last_commit: dict[Any, int] = {}
        # A stage path (``a/b``) -> its runs' execution indices and ids, ascending.
        self._runs_of: dict[str, list[tuple[int, str]]] = {}
        for position, bundle in enumerate(log.bundles):
            rid = bundle.get("runtimeStageId")
            if isinstance(rid, str):
                if rid not in self._first_commit:
                    self._first_commit[rid] = position
                    parsed = _parsed(rid)
                    if parsed is not None:
                        self._runs_of.setdefault(parsed[0], []).append((parsed[1], rid))
                self._last_commit[rid] = position
            for key in dict.fromkeys(log.paths[position]):
                value = written_value(bundle, key)
                for text, inner in _strings(value):
                    self._writes.setdefault(text, []).append((position, key, inner))

    def key_holding(self, text: Any, runtime_stage_id: Any,
                    served: str = INPUT) -> KeyMatch | NoMatch:
        """The key whose write holds ``text`` last before the call at
        ``runtime_stage_id``: for what the model was given, before the call's
        stage first committed; for its output, up to the stage's last commit
        (the stage writes its output when it commits). A stage inside a
        subflow commits with the subflow: then the subflow's run is used."""
        if not isinstance(text, str) or not text:
            return NoMatch(NO_TEXT)
        committed = self._committing_stage(runtime_stage_id)
        bound = None if committed is None else (
            self._first_commit if served == INPUT else self._last_commit)[committed]
        if bound is None:
            return NoMatch(STAGE_NOT_IN_LOG)
        limit = bound if served == INPUT else bound + 1
        held = [write for write in self._writes.get(text, ()) if write[0] < limit]
        if not held:
            return NoMatch(NOT_IN_STATE)
        last = max(position for position, _, _ in held)
        # Of the writes in that commit, the first in trace order: the key the stage wrote it to.
        position, key, inner = next(write for write in held if write[0] == last)
        others = len({k for _, k, _ in held} - {key})
        bundle = self._bundles[position]
        stage, rid = bundle.get("stage"), bundle.get("runtimeStageId")
        return KeyMatch(key, position, inner, stage if isinstance(stage, str) else None,
                        rid if isinstance(rid, str) else None, others)


    def _committing_stage(self, runtime_stage_id: Any) -> str | None:
        """The stage whose commits hold the call's writes: its own, else the
        run of the innermost subflow around it that started before it (the
        engine counts stages up as they run: ``path#N``)."""
        if not isinstance(runtime_stage_id, str):
            return None
        if runtime_stage_id in self._first_commit:
            return runtime_stage_id
        parsed = _parsed(runtime_stage_id)
        if parsed is None:
            return None
        segments, number = parsed[0].split("/"), parsed[1]
        for depth in range(len(segments) - 1, 0, -1):
            runs = self._runs_of.get("/".join(segments[:depth]), [])
            at = bisect_right(runs, number, key=lambda run: run[0])
            if at:
                return runs[at - 1][1]
        return None


def _parsed(runtime_stage_id: str) -> tuple[str, int] | None:
    """``"a/b#7"`` -> ``("a/b", 7)``; None without an execution index."""
    path, mark, number = runtime_stage_id.rpartition("#")
    if not mark or not number.isdigit() or not number.isascii():
        return None
    return path, int(number)


def match_words(match: KeyMatch) -> str:
    """One line naming the key and its write; key and stage are recording text."""
    where = "/".join(match.inner)
    inside = f" (at {where} inside it)" if where else ""
    stage = match.stage_name or "an unnamed stage"
    also = (f"; {match.others} other key{'s' if match.others != 1 else ''} also held it"
            if match.others else "")
    return (f"State key {match.key.replace(DELIM, '/')}{inside}: written at commit "
            f"{match.commit} by {stage}{also}.")

"""Build a larger recording from a real Agent recording by repeating its iterations.

The middle ReAct iterations of the source (every one between the first and
the last ``loop.iteration`` back-edge) are repeated so the result holds about
``factor`` times as many events. Each copy gets fresh, consistent ids:
execution indices (``#N``) and commit indices shifted past the source's
largest, tool-call ids suffixed with the copy number, timestamps shifted by
the span of the repeated block, and loop/iteration counters renumbered.
Events after the block (the final answer, ``run.exit``) move to the end.

A tool result served back to the model names its tool call (a piece's
``sourceId``); each copy's served results name the calls that copy's run
would have made: a result of a call in the same copy by that copy's id, a
result of a call from before the copy (the previous iteration, served again
in the sliding window) by the id it has in the previous copy, with that
call's result as its text. So every scaled tool call is served as the
source's calls are, and what a piece says is what its call returned.

The snapshot's execution tree and the structure are kept as in the source;
the result says so in ``scaledFrom``. It is a benchmark input, not a real run.

    python benchmarks/scale_recording.py SOURCE FACTOR OUT.json[.gz]
"""

from __future__ import annotations

import copy
import gzip
import json
import re
import sys
from pathlib import Path
from typing import Any

from recorders import boundary_names
from recorders.catalogue import AGENT_ITERATION_START

_EXEC_INDEX = re.compile(r"#(\d+)$")
# A served tool result's fields that say what it holds.
_SERVED_TEXT = ("rawContent", "contentSummary", "contentHash")


def scale_recording(document: dict, factor: int, source_name: str = "source") -> dict:
    """Return a new recording with the repeated block copied ``factor - 1`` more times."""
    if factor < 1:
        raise ValueError("factor must be at least 1")
    recording = document.get("recording", document)  # an envelope's inner recording
    boundary_entry = next(r for r in recording["snapshot"]["recorders"]
                          if r.get("name") == "BoundaryEvents")
    boundary: list[dict] = boundary_entry["data"]
    typed: list[dict] = recording["events"]

    back_edges = [i for i, e in enumerate(boundary) if e["type"] == boundary_names.LOOP_ITERATION]
    if len(back_edges) < 2:
        raise ValueError("the source needs at least three ReAct iterations to repeat")
    first, last = back_edges[0], back_edges[-1]
    block = boundary[first:last]
    t_start, t_end = block[0]["ts"], boundary[last]["ts"]
    span = t_end - t_start
    exec_offset = 1 + max(_exec_index(e["runtimeStageId"]) for e in boundary)
    commit_offset = 1 + max(e.get("commitIdxAfter", 0) for e in boundary)
    passes = sum(e["type"] == boundary_names.LOOP_ITERATION for e in block)

    typed_block = [e for e in typed if t_start <= e["meta"]["wallClockMs"] < t_end]
    typed_head = [e for e in typed if e["meta"]["wallClockMs"] < t_start]
    typed_tail = [e for e in typed if e["meta"]["wallClockMs"] >= t_end]
    iterations_per_block = sum(e["type"] == AGENT_ITERATION_START
                               for e in typed_block)

    order = _ToolCallOrder(typed, t_start, t_end)

    new_boundary = list(boundary[:last])
    new_typed = list(typed_head) + list(typed_block)
    for n in range(1, factor):
        shift = _Shift(n, n * span, n * exec_offset, n * commit_offset, n * passes,
                       n * iterations_per_block, order)
        new_boundary.extend(shift.boundary(e) for e in block)
        new_typed.extend(shift.typed(e) for e in typed_block)
    tail_shift = _Shift(factor - 1, (factor - 1) * span, (factor - 1) * exec_offset,
                        (factor - 1) * commit_offset, (factor - 1) * passes,
                        (factor - 1) * iterations_per_block, order, rename_calls=False)
    new_boundary.extend(tail_shift.boundary(e) for e in boundary[last:])
    new_typed.extend(tail_shift.typed(e) for e in typed_tail)

    scaled = {key: value for key, value in recording.items() if key not in ("events", "snapshot")}
    snapshot = dict(recording["snapshot"])
    snapshot["recorders"] = [
        {**r, "data": new_boundary} if r is boundary_entry else r
        for r in recording["snapshot"]["recorders"]
    ]
    scaled["snapshot"] = snapshot
    scaled["events"] = new_typed
    scaled["scaledFrom"] = {
        "recording": source_name,
        "factor": factor,
        "note": "benchmark input scaled from a real recording by repeating its middle "
                "ReAct iterations with fresh ids; snapshot tree and structure are the source's",
    }
    return scaled


def _is_tool_result(piece: dict) -> bool:
    return piece.get("source") == "tool-result" or piece.get("asRole") == "tool"


def _exec_index(runtime_stage_id: str) -> int:
    match = _EXEC_INDEX.search(runtime_stage_id)
    return int(match.group(1)) if match else 0


def _copy_id(value: str, copy_number: int) -> str:
    """A tool-call id as copy ``copy_number`` of the repeated block names it."""
    return value if copy_number == 0 else f"{value}-x{copy_number}"


class _ToolCallOrder:
    """The source's tool calls in the order they started, and which of them
    the repeated block holds: what a served result's ``sourceId`` becomes in
    a later copy."""

    def __init__(self, typed: list[dict], t_start: float, t_end: float) -> None:
        self.ids: list[str] = []
        self.block_first = None
        # How the source served each call's result: the piece's text fields.
        self.served_text: dict[str, dict] = {}
        block_count = 0
        for event in typed:
            payload = event.get("payload")
            if not isinstance(payload, dict):
                continue
            if event["type"].endswith(".context.injected") and _is_tool_result(payload) \
                    and isinstance(payload.get("sourceId"), str):
                self.served_text.setdefault(payload["sourceId"], {
                    key: payload[key] for key in _SERVED_TEXT if key in payload})
            if not (event["type"].endswith(".stream.tool_start")
                    and isinstance(payload.get("toolCallId"), str)):
                continue
            if t_start <= event["meta"]["wallClockMs"] < t_end:
                if self.block_first is None:
                    self.block_first = len(self.ids)
                block_count += 1
            self.ids.append(payload["toolCallId"])
        self.block_length = block_count
        self.position = {tool_id: i for i, tool_id in enumerate(self.ids)}

    def served_call(self, source_id: Any, copies_before: int) -> tuple[Any, Any]:
        """(id, source's id) of the call ``source_id`` names after
        ``copies_before`` extra copies of the block.

        Laid end to end, the scaled run's calls are the head, then the block
        ``factor`` times, then the tail; a reference reaches as far back in
        that sequence as it did in the source."""
        at = self.position.get(source_id) if isinstance(source_id, str) else None
        if at is None or self.block_first is None or copies_before == 0:
            return source_id, source_id
        first, length = self.block_first, self.block_length
        if at >= first + length:
            return source_id, source_id  # a call of the tail: it keeps its id
        shifted = at + copies_before * length
        if shifted < first:
            return self.ids[shifted], self.ids[shifted]
        copy_number, offset = divmod(shifted - first, length)
        original = self.ids[first + offset]
        return _copy_id(original, copy_number), original


class _Shift:
    """Fresh ids and times for one copy of the repeated block (or for the tail,
    which keeps its own tool-call ids but serves the last copy's results)."""

    def __init__(self, copy_number: int, ms: int, exec_offset: int, commit_offset: int,
                 pass_offset: int, iteration_offset: int, order: _ToolCallOrder,
                 rename_calls: bool = True) -> None:
        self.copy_number = copy_number
        self.order = order
        self.ms = ms
        self.exec_offset = exec_offset
        self.commit_offset = commit_offset
        self.pass_offset = pass_offset
        self.iteration_offset = iteration_offset
        self.rename_calls = rename_calls

    def stage(self, runtime_stage_id: str) -> str:
        return _EXEC_INDEX.sub(lambda m: f"#{int(m.group(1)) + self.exec_offset}", runtime_stage_id)

    def call_id(self, value: Any) -> Any:
        if self.rename_calls and isinstance(value, str):
            return _copy_id(value, self.copy_number)
        return value

    def served(self, piece: dict) -> dict:
        """A served piece (typed payload or boundary event) naming this copy's
        tool call, and saying what that call returned."""
        if not _is_tool_result(piece) or "sourceId" not in piece:
            return piece
        source_id = piece["sourceId"]
        piece["sourceId"], original = self.order.served_call(source_id, self.copy_number)
        if original != source_id:
            for key, value in self.order.served_text.get(original, {}).items():
                if key in piece:
                    piece[key] = value
        return piece

    def boundary(self, event: dict) -> dict:
        out = dict(event)
        out["runtimeStageId"] = self.stage(event["runtimeStageId"])
        out["ts"] = event["ts"] + self.ms
        for key in ("commitIdxBefore", "commitIdxAfter"):
            if isinstance(event.get(key), int):
                out[key] = event[key] + self.commit_offset
        if "toolCallId" in event:
            out["toolCallId"] = self.call_id(event["toolCallId"])
        if event["type"] == boundary_names.LOOP_ITERATION:
            out["iteration"] = event["iteration"] + self.pass_offset
        if event["type"] == boundary_names.CONTEXT_INJECTED:
            self.served(out)
        return out

    def typed(self, event: dict) -> dict:
        out = dict(event)
        meta = dict(event["meta"])
        meta["runtimeStageId"] = self.stage(meta.get("runtimeStageId", ""))
        meta["wallClockMs"] = meta["wallClockMs"] + self.ms
        if isinstance(meta.get("runOffsetMs"), (int, float)):
            meta["runOffsetMs"] = meta["runOffsetMs"] + self.ms
        out["meta"] = meta
        payload = event.get("payload")
        if isinstance(payload, dict):
            payload = dict(payload)
            if "toolCallId" in payload:
                payload["toolCallId"] = self.call_id(payload["toolCallId"])
            if event["type"].endswith(".context.injected"):
                self.served(payload)
            for key in ("iterIndex", "iteration"):
                if isinstance(payload.get(key), int):
                    payload[key] = payload[key] + self.iteration_offset
            if self.rename_calls and isinstance(payload.get("toolCalls"), list):
                payload["toolCalls"] = [
                    {**c, "id": self.call_id(c.get("id"))} if isinstance(c, dict) else c
                    for c in payload["toolCalls"]
                ]
            out["payload"] = payload
        return out


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    source, factor, out = Path(argv[0]), int(argv[1]), Path(argv[2])
    sys.setrecursionlimit(20_000)
    raw = source.read_bytes()
    document = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    scaled = scale_recording(copy.deepcopy(document), factor, source.parent.name or source.name)
    data = json.dumps(scaled, separators=(",", ":")).encode()
    out.write_bytes(gzip.compress(data) if out.suffix == ".gz" else data)
    boundary = next(r for r in scaled["snapshot"]["recorders"] if r.get("name") == "BoundaryEvents")
    print(f"{out}: {len(boundary['data'])} boundary events, {len(scaled['events'])} typed events, "
          f"{len(data) / 1e6:.1f} MB; scaled ×{factor} from {source} (not a real run)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

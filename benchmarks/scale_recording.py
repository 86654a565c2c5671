"""Build a larger recording from a real Agent recording by repeating its iterations.

The middle ReAct iterations of the source (every one between the first and
the last ``loop.iteration`` back-edge) are repeated so the result holds about
``factor`` times as many events. Each copy gets fresh, consistent ids:
execution indices (``#N``) and commit indices shifted past the source's
largest, tool-call ids suffixed with the copy number, timestamps shifted by
the span of the repeated block, and loop/iteration counters renumbered.
Events after the block (the final answer, ``run.exit``) move to the end.

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

_EXEC_INDEX = re.compile(r"#(\d+)$")


def scale_recording(document: dict, factor: int, source_name: str = "source") -> dict:
    """Return a new recording with the repeated block copied ``factor - 1`` more times."""
    if factor < 1:
        raise ValueError("factor must be at least 1")
    recording = document.get("recording", document)  # an envelope's inner recording
    boundary_entry = next(r for r in recording["snapshot"]["recorders"]
                          if r.get("name") == "BoundaryEvents")
    boundary: list[dict] = boundary_entry["data"]
    typed: list[dict] = recording["events"]

    back_edges = [i for i, e in enumerate(boundary) if e["type"] == "loop.iteration"]
    if len(back_edges) < 2:
        raise ValueError("the source needs at least three ReAct iterations to repeat")
    first, last = back_edges[0], back_edges[-1]
    block = boundary[first:last]
    t_start, t_end = block[0]["ts"], boundary[last]["ts"]
    span = t_end - t_start
    exec_offset = 1 + max(_exec_index(e["runtimeStageId"]) for e in boundary)
    commit_offset = 1 + max(e.get("commitIdxAfter", 0) for e in boundary)
    passes = sum(e["type"] == "loop.iteration" for e in block)

    typed_block = [e for e in typed if t_start <= e["meta"]["wallClockMs"] < t_end]
    typed_head = [e for e in typed if e["meta"]["wallClockMs"] < t_start]
    typed_tail = [e for e in typed if e["meta"]["wallClockMs"] >= t_end]
    iterations_per_block = sum(e["type"] == "agentfootprint.agent.iteration_start"
                               for e in typed_block)

    new_boundary = list(boundary[:last])
    new_typed = list(typed_head) + list(typed_block)
    for n in range(1, factor):
        shift = _Shift(n, n * span, n * exec_offset, n * commit_offset, n * passes,
                       n * iterations_per_block)
        new_boundary.extend(shift.boundary(e) for e in block)
        new_typed.extend(shift.typed(e) for e in typed_block)
    tail_shift = _Shift(0, (factor - 1) * span, (factor - 1) * exec_offset,
                        (factor - 1) * commit_offset, (factor - 1) * passes,
                        (factor - 1) * iterations_per_block, rename_calls=False)
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


def _exec_index(runtime_stage_id: str) -> int:
    match = _EXEC_INDEX.search(runtime_stage_id)
    return int(match.group(1)) if match else 0


class _Shift:
    """Fresh ids and times for one copy of the repeated block."""

    def __init__(self, copy_number: int, ms: int, exec_offset: int, commit_offset: int,
                 pass_offset: int, iteration_offset: int, rename_calls: bool = True) -> None:
        self.copy_number = copy_number
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
            return f"{value}-x{self.copy_number}"
        return value

    def boundary(self, event: dict) -> dict:
        out = dict(event)
        out["runtimeStageId"] = self.stage(event["runtimeStageId"])
        out["ts"] = event["ts"] + self.ms
        for key in ("commitIdxBefore", "commitIdxAfter"):
            if isinstance(event.get(key), int):
                out[key] = event[key] + self.commit_offset
        if "toolCallId" in event:
            out["toolCallId"] = self.call_id(event["toolCallId"])
        if event["type"] == "loop.iteration":
            out["iteration"] = event["iteration"] + self.pass_offset
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

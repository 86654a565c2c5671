"""Measurement 6: comparing two runs costs no more than opening them.

Run A is ``large-agent-300-tool-calls`` scaled 20× (``scale_recording.py``);
run B is a second copy of it in which every volatile field differs the way it
does between two real runs (run id, wall-clock times and offsets, every
``durationMs``, and fresh tool-call ids used consistently). The comparison
must therefore walk both typed streams to the end, normalise every payload
that carries a duration or an id, and align every step: its worst case.

Side by side in the same rounds: opening both files (``lens.run.open_run``
plus the lens projection the comparison and the page read) against
``compare_runs`` on the two open runs. Target: compare / open ≤ 1.
"""

from __future__ import annotations

import json
import sys

from benchmarks.inputs import _cached, _digest, scaled_path
from benchmarks.timing import median, ms, ratios, side_by_side
from lens.compare import compare_runs
from lens.run import open_run

COMPARE_TARGET = 1.0
FACTOR = 20


def _volatile_copy(data: bytes) -> bytes:
    """The same run with every volatile field changed (see the module doc)."""
    document = json.loads(data)
    recording = document.get("recording", document)
    ids: dict[str, str] = {}
    for event in recording["events"]:
        payload = event.get("payload")
        if isinstance(payload, dict) and isinstance(payload.get("toolCallId"), str):
            ids.setdefault(payload["toolCallId"], f"call_rerun_{len(ids)}")

    def rename(value):
        if isinstance(value, dict):
            return {k: (v + 3 if k == "durationMs" and isinstance(v, (int, float))
                        else rename(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [rename(v) for v in value]
        return ids.get(value, value) if isinstance(value, str) else value

    events = []
    for event in recording["events"]:
        event = rename(event)
        meta = event["meta"]
        meta["runId"] = "run-rerun"
        meta["wallClockMs"] += 86_400_000
        meta["runOffsetMs"] += 5
        events.append(event)
    recording["events"] = events
    return json.dumps(document, separators=(",", ":")).encode()


def second_copy_path():
    source = scaled_path(FACTOR).read_bytes()
    return _cached(f"compare-b-x{FACTOR}-{_digest(source)}.json",
                   lambda: _volatile_copy(source))


def _open_both(data_a: bytes, data_b: bytes):
    def work():
        runs = (open_run(data_a), open_run(data_b))
        for run in runs:
            run.views("lens")
        return runs
    return work


def measure_compare(repeat: int) -> dict:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    data_a = scaled_path(FACTOR).read_bytes()
    data_b = second_copy_path().read_bytes()
    run_a, run_b = _open_both(data_a, data_b)()
    result = compare_runs(run_a, run_b)
    times = side_by_side({"open_both": _open_both(data_a, data_b),
                          "compare": lambda: compare_runs(run_a, run_b)}, repeat)
    ratio = ratios(times["compare"], times["open_both"])
    return {
        "factor": FACTOR,
        "typed_events": list(result.typed_events),
        "aligned_rows": len(result.alignment),
        "identical": result.identical,
        "repeat": repeat,
        "open_both_ms": ms(median(times["open_both"])),
        "compare_ms": ms(median(times["compare"])),
        "compare_over_open": round(ratio["of_medians"], 3),
        "compare_over_open_per_round": round(ratio["median_per_round"], 3),
        "target": COMPARE_TARGET,
        "met": ratio["of_medians"] <= COMPARE_TARGET,
    }


if __name__ == "__main__":
    print(json.dumps(measure_compare(int(sys.argv[1]) if len(sys.argv) > 1 else 3), indent=2))

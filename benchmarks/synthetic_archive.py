"""A synthetic archive of many small runs, made from the sample archive's runs.

    python -m benchmarks.synthetic_archive DIR [--runs 100000]

Each sample run becomes a small template: the typed events the index reads
(model and tool calls, turns, compositions, errors, route events) and the
root's boundary entry and exit; token streams and context events are left
out, so a run is a few kilobytes. Every generated run gets a fresh run id, a
start time spread over a year, and varied facts (token counts, which tool
failed, the user's message), and is written gzipped under
``<agent>/<yyyy-mm>/<run id>.json.gz`` as a sink with dated folders would.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import json
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from recorders import boundary_names

_KEPT_TYPED = ("stream.llm_start", "stream.llm_end", "stream.tool_start", "stream.tool_end",
               "agent.turn_start", "agent.turn_end", "agent.run_configured",
               "composition.enter", "composition.exit", "error.fatal", "context.evaluated",
               "skill.", "agent.route_decided")
_KEPT_BOUNDARY = (boundary_names.RUN_ENTRY, boundary_names.RUN_EXIT)
YEAR_MS = 365 * 24 * 3600 * 1000
START = datetime(2025, 12, 1, tzinfo=timezone.utc)


def templates(sample_folder: Path) -> list[dict]:
    """The sample runs, trimmed to what the index reads."""
    found = []
    for path in sorted(sample_folder.rglob("*.json")):
        if path.name.startswith("_"):
            continue
        envelope = json.loads(path.read_bytes())
        recording = envelope["recording"]
        recording["events"] = [e for e in recording["events"]
                               if any(k in e.get("type", "") for k in _KEPT_TYPED)]
        snapshot = recording["snapshot"]
        log = snapshot.get("recorders", [])
        for recorder in log if isinstance(log, list) else []:
            if isinstance(recorder, dict) and isinstance(recorder.get("data"), list):
                recorder["data"] = [e for e in recorder["data"]
                                    if isinstance(e, dict) and e.get("type") in _KEPT_BOUNDARY]
        for key in ("executionTree", "commitLog", "subflowResults", "sharedState",
                    "initialState", "commitValues", "writeProvenance"):
            snapshot.pop(key, None)
        recording.pop("structure", None)
        found.append(envelope)
    return found


def synthetic_run(template: dict, number: int, rng: random.Random) -> tuple[str, str, bytes]:
    """(agent, run id, gzipped envelope) of run ``number``."""
    envelope = copy.deepcopy(template)
    run_id = f"run-syn-{number:07d}-{rng.randrange(16**6):06x}"
    started = START + timedelta(milliseconds=rng.randrange(YEAR_MS))
    old_start = None
    run = envelope["run"]
    run["runId"] = run_id
    run["startedAt"] = started.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    events = envelope["recording"]["events"]
    for event in events:
        meta = event.get("meta") or {}
        if old_start is None and isinstance(meta.get("wallClockMs"), (int, float)):
            old_start = meta["wallClockMs"]
        if "runId" in meta:
            meta["runId"] = run_id
        if isinstance(meta.get("wallClockMs"), (int, float)) and old_start is not None:
            meta["wallClockMs"] = started.timestamp() * 1000 + (meta["wallClockMs"] - old_start)
        payload = event.get("payload")
        kind = event.get("type", "")
        if not isinstance(payload, dict):
            continue
        if kind.endswith("stream.llm_end") and isinstance(payload.get("usage"), dict):
            payload["usage"] = {"input": rng.randrange(50, 4000), "output": rng.randrange(5, 600)}
        elif kind.endswith("stream.tool_end"):
            payload["error"] = rng.random() < 0.04
        elif kind.endswith("agent.turn_start"):
            payload["userPrompt"] = f"{payload.get('userPrompt', '')} (ticket {number})"
    if old_start is not None:
        _shift_boundary_times(envelope["recording"], started.timestamp() * 1000 - old_start)
    if "endedAt" in run:
        run["endedAt"] = (started + timedelta(milliseconds=rng.randrange(200, 30_000))).isoformat(
            timespec="milliseconds").replace("+00:00", "Z")
    agent = (envelope.get("configuration") or {}).get("agentId") or _composition(events)
    data = gzip.compress(json.dumps(envelope, separators=(",", ":")).encode(), 5, mtime=0)
    return agent or "agent", run_id, data


def _shift_boundary_times(recording: dict, offset_ms: float) -> None:
    """Move the boundary log's times with the typed events' (a run without an
    ``endedAt`` is timed by its root exit, which must not end before it starts)."""
    log = recording["snapshot"].get("recorders", [])
    for recorder in log if isinstance(log, list) else []:
        for entry in recorder.get("data", []) if isinstance(recorder, dict) else []:
            if isinstance(entry, dict) and isinstance(entry.get("ts"), (int, float)):
                entry["ts"] += offset_ms


def _composition(events: list[dict]) -> str | None:
    for event in events:
        if event.get("type", "").endswith("composition.enter"):
            return (event.get("payload") or {}).get("id")
    return None


def generate(sample_folder: Path, target: Path, runs: int, seed: int = 14) -> int:
    rng = random.Random(seed)
    shapes = templates(sample_folder)
    written = 0
    for number in range(runs):
        agent, run_id, data = synthetic_run(shapes[number % len(shapes)], number, rng)
        month = (START + timedelta(days=number * 365 // max(runs, 1))).strftime("%Y-%m")
        folder = target / agent / month
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{run_id}.json.gz").write_bytes(data)
        written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.synthetic_archive")
    parser.add_argument("target")
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--sample", default=str(Path(__file__).resolve().parents[1]
                                                / "tests" / "archive_sample"))
    args = parser.parse_args(argv)
    sample = Path(args.sample)
    if (sample / "runs.tar.gz").exists():
        import tarfile
        import tempfile

        unpacked = Path(tempfile.mkdtemp(prefix="lens-archive-sample-"))
        with tarfile.open(sample / "runs.tar.gz") as tar:
            tar.extractall(unpacked, filter="data")
        sample = unpacked
    count = generate(sample, Path(args.target), args.runs)
    print(f"wrote {count} runs under {args.target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

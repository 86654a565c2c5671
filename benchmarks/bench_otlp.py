"""Measurement 8: a run as OpenTelemetry spans (``footprint-lens export otlp``).

For the large corpus run and its 20× copy (``scale_recording.py``), in the
same rounds: opening the file (``lens.run.open_run``), then on that fresh open
run building the spans and writing them as compact JSON, as the command does
(:func:`lens.share.otlp.otlp_document`, which builds the lens projection for
the scopes' kinds), and the same with ``--content`` on another fresh open run.
Each is timed on the wall clock and in process CPU time (the machine is
shared: CPU time is what the work costs, wall time what a user waits). Also
the export's size and span count against the file's size, and the whole
``--redact`` export as the command does it (the recording redacted as
``export recording`` writes it, opened, exported, every text masked once
more): in the rounds for the 1× run, once for the 20× copy (the recording's
redaction dominates it).
"""

from __future__ import annotations

import gc
import json
from time import perf_counter, process_time

from benchmarks.inputs import SCALE_SOURCE, corpus_bytes, scaled_path
from benchmarks.timing import median, ms
from lens.run import open_run
from lens.share.otlp import otlp_document


def _spans_json(run, content: bool = False, redactor=None) -> bytes:
    document = otlp_document(run, content=content, redactor=redactor)
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _export_redacted(data: bytes) -> bytes:
    from lens.share.recording_export import export_recording
    from lens.share.redaction import Redactor

    redactor = Redactor()
    return _spans_json(open_run(export_recording(data, redactor).data), redactor=redactor)


def _timed(work) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds, result) of ``work``, from a collected heap."""
    gc.collect()
    wall, cpu = perf_counter(), process_time()
    value = work()
    return perf_counter() - wall, process_time() - cpu, value


def measure_otlp(repeat: int, redact_20x: bool) -> dict:
    results: dict = {}
    for name, data in (("1x", corpus_bytes(SCALE_SOURCE)), ("20x", scaled_path(20).read_bytes())):
        wall: dict[str, list[float]] = {}
        cpu: dict[str, list[float]] = {}

        def note(case: str, seconds: tuple[float, float, object]) -> object:
            wall.setdefault(case, []).append(seconds[0])
            cpu.setdefault(case, []).append(seconds[1])
            return seconds[2]

        plain = full = b""
        for _ in range(repeat):
            fresh = note("open", _timed(lambda: open_run(data)))
            plain = note("spans", _timed(lambda: _spans_json(fresh)))
            fresh = open_run(data)  # the projection is built once per open run: a new one
            full = note("spans_content", _timed(lambda: _spans_json(fresh, content=True)))
            fresh = None
            if name == "1x":
                note("export_redacted", _timed(lambda: _export_redacted(data)))
        spans = json.loads(plain)["resourceSpans"][0]["scopeSpans"][0]["spans"]
        row = {
            "file_bytes": len(data), "spans": len(spans),
            "export_bytes": len(plain), "export_content_bytes": len(full),
            "export_over_file": round(len(plain) / len(data), 3),
            "export_content_over_file": round(len(full) / len(data), 3),
        }
        for case in wall:
            row[f"{case}_ms"] = ms(median(wall[case]))
            row[f"{case}_cpu_ms"] = ms(median(cpu[case]))
        row["spans_over_open"] = round(median(wall["spans"]) / median(wall["open"]), 2)
        row["spans_over_open_cpu"] = round(median(cpu["spans"]) / median(cpu["open"]), 2)
        if name != "1x" and redact_20x:
            seconds = _timed(lambda: _export_redacted(data))
            row["export_redacted_once_ms"] = ms(seconds[0])
            row["export_redacted_once_cpu_ms"] = ms(seconds[1])
        results[name] = row
    return results


def format_rows(results: dict) -> str:
    lines = []
    for name, r in results.items():
        lines.append(f"{name}: {r['file_bytes'] / 1e6:.1f} MB file, {r['spans']:,} spans")
        lines.append(f"    open {r['open_ms']:.0f} ms (CPU {r['open_cpu_ms']:.0f}); spans as JSON "
                     f"{r['spans_ms']:.0f} ms (CPU {r['spans_cpu_ms']:.0f}), "
                     f"{r['spans_over_open']:.2f}x open (CPU {r['spans_over_open_cpu']:.2f}x); "
                     f"with --content {r['spans_content_ms']:.0f} ms "
                     f"(CPU {r['spans_content_cpu_ms']:.0f})")
        lines.append(f"    size {r['export_bytes'] / 1e6:.2f} MB ({r['export_over_file']:.3f}x the "
                     f"file), with --content {r['export_content_bytes'] / 1e6:.2f} MB "
                     f"({r['export_content_over_file']:.3f}x)")
        if "export_redacted_ms" in r:
            lines.append(f"    whole export with --redact {r['export_redacted_ms']:.0f} ms "
                         f"(CPU {r['export_redacted_cpu_ms']:.0f})")
        if "export_redacted_once_ms" in r:
            lines.append(f"    whole export with --redact, once: {r['export_redacted_once_ms']:.0f} ms "
                         f"(CPU {r['export_redacted_once_cpu_ms']:.0f})")
    return "\n".join(lines)


def table_rows(results: dict, row: str) -> list[str]:
    """The section's rows in ``python -m benchmarks``'s table (``row`` is its format)."""
    lines = []
    for name, r in results.items():
        lines.append(row.format(f"8 export otlp {name} ({r['spans']:,} spans)",
                                f"{r['spans_cpu_ms']:.0f} ms CPU",
                                f"{r['open_cpu_ms']:.0f} ms open", f"{r['spans_over_open_cpu']:.2f}x",
                                "", ""))
        lines.append(row.format("    size", f"{r['export_bytes'] / 1e6:.1f} MB", "file",
                                f"{r['export_over_file']:.3f}x", "", ""))
    return lines


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.bench_otlp [--quick]``: prints the rows and writes
    ``benchmarks/results/otlp.json``."""
    import argparse
    import sys
    from pathlib import Path

    from benchmarks.machine import machine

    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_otlp")
    parser.add_argument("--quick", action="store_true",
                        help="2 rounds and no 20x redaction (a smoke check)")
    args = parser.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    report = {"command": "python -m benchmarks.bench_otlp" + (" --quick" if args.quick else ""),
              "machine": machine(),
              "results": measure_otlp(2 if args.quick else 5, redact_20x=not args.quick)}
    out = Path(__file__).resolve().parent / "results" / "otlp.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(format_rows(report["results"]))
    print(f"\nfigures written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Run the performance benchmarks and report medians and ratios against their anchors.

    python -m benchmarks [--quick]
                         [--only v8,open,scaling,slider,memory,compare,browser,share,follow,otlp]
                         [--json PATH]

Prints a table and writes every figure (with the machine it ran on) to
``benchmarks/results/latest.json``. Not part of the unit suite: run on purpose,
on a quiet machine if you have one. ``--quick`` runs fewer repeats (for a
smoke check, not for quoting).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import sys
from pathlib import Path
from time import perf_counter

from benchmarks.machine import machine
from recorders.counting import noun_for

RESULTS = Path(__file__).resolve().parent / "results" / "latest.json"
SECTIONS = ("v8", "open", "scaling", "slider", "memory", "compare", "browser", "share",
            "follow", "otlp")

# (repeats for the V8 anchor, open, scaling, slider moves, memory probes, compare,
# browser presses per round, rounds)
FULL = {"v8": 7, "open": 7, "scaling": 5, "slider": 300, "memory": 3, "compare": 5,
        "presses": 20, "rounds": 3, "share": 5, "share_opens": 5,
        "follow": 3, "follow_batches": 60, "otlp": 5, "otlp_redact_20x": True}
QUICK = {"v8": 3, "open": 3, "scaling": 2, "slider": 90, "memory": 1, "compare": 2,
         "presses": 8, "rounds": 2, "share": 2, "share_opens": 2,
         "follow": 1, "follow_batches": 20, "otlp": 2, "otlp_redact_20x": False}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (smoke check)")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"comma-separated subset of {', '.join(SECTIONS)}")
    parser.add_argument("--json", type=Path, default=RESULTS, help="where to write the figures")
    args = parser.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(only) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown {noun_for(len(unknown), 'section')}: {', '.join(unknown)}")
    plan = QUICK if args.quick else FULL

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    # Import what the app imports, then freeze the collector's view of it: both
    # sides of every comparison then run against the same collector state.
    import pandas  # noqa: F401
    import plotly.graph_objects  # noqa: F401
    import streamlit  # noqa: F401

    import benchmarks.page_work  # noqa: F401
    gc.collect()
    gc.freeze()

    report: dict = {
        "command": "python -m benchmarks" + (" --quick" if args.quick else "")
                   + ("" if set(only) == set(SECTIONS) else f" --only {','.join(only)}"),
        "started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(),
        "plan": plan,
        "results": {},
    }
    for section in SECTIONS:
        if section not in only:
            continue
        start = perf_counter()
        print(f"… {section}", file=sys.stderr, flush=True)
        report["results"][section] = _run(section, plan)
        report["results"][section + "_seconds"] = round(perf_counter() - start, 1)
        _write(args.json, report)
    print(format_table(report))
    _write(args.json, report)
    print(f"\nfigures written to {args.json}")
    return 0


def _run(section: str, plan: dict) -> dict:
    if section == "v8":
        from benchmarks.bench_open import measure_open_v8
        return measure_open_v8(plan["v8"])
    if section == "open":
        from benchmarks.bench_open import measure_open
        return measure_open(plan["open"])
    if section == "scaling":
        from benchmarks.bench_open import measure_scaling
        return measure_scaling(plan["scaling"])
    if section == "slider":
        from benchmarks.bench_slider import measure_slider
        return measure_slider(plan["slider"])
    if section == "memory":
        from benchmarks.bench_memory import measure_memory
        return measure_memory(plan["memory"])
    if section == "compare":
        from benchmarks.bench_compare import measure_compare
        return measure_compare(plan["compare"])
    if section == "share":
        from benchmarks.bench_share import measure_share
        return measure_share(plan["share"], plan["share_opens"])
    if section == "follow":
        from benchmarks.bench_follow import measure_follow
        return measure_follow(plan["follow"], plan["follow_batches"])
    if section == "otlp":
        from benchmarks.bench_otlp import measure_otlp
        return measure_otlp(plan["otlp"], plan["otlp_redact_20x"])
    from benchmarks.bench_browser import measure_browser
    return measure_browser(plan["presses"], plan["rounds"])


def _write(path: Path, report: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n")


def _met(flag: object) -> str:
    return "yes" if flag is True else ("NO" if flag is False else "–")


def format_table(report: dict) -> str:
    results = report["results"]
    m = report["machine"]
    lines = [f"machine: {m['nproc']} cores · {m['cpu']} · python {m['python']} · "
             f"load {m['load_average_at_start']}", ""]
    row = "{:<44} {:>12} {:>12} {:>9} {:>14} {:>5}"
    lines.append(row.format("measurement", "measured", "baseline", "ratio", "target", "met"))
    lines.append("-" * 101)
    v8 = results.get("v8", {})
    if "skipped" in v8:
        lines.append(f"1 open vs V8: skipped: {v8['skipped']}")
    for name, r in v8.items():
        if not isinstance(r, dict):
            continue
        lines.append(row.format(f"1 open {name}", f"{r['lens_open_ms']:.0f} ms",
                                f"V8 {r['v8_read_parse_ms']:.0f} ms", f"{r['open_over_v8']:.2f}x",
                                "<= 1.0x V8", _met(r["met"])))
    for name, r in results.get("open", {}).items():
        lines.append(row.format(f"1b app open {name}", f"{r['open_ms']:.0f} ms",
                                f"{r['bare_parse_ms']:.0f} ms", f"{r['open_over_bare']:.2f}x",
                                "<= 1.5x", _met(r["met"])))
        lines.append(row.format("    vs parse with collector paused", "",
                                f"{r['bare_parse_gc_paused_ms']:.0f} ms",
                                f"{r['open_over_bare_gc_paused']:.2f}x", "", ""))
    scaling = results.get("scaling")
    if scaling:
        for key, r in scaling["rows"].items():
            lines.append(row.format(
                f"2 scaling {key} ({r['boundary_events']:,} events, {r['file_mb']:.0f} MB)",
                f"{r['us_per_event']:.1f} us/ev", f"{r['open_ms']:.0f} ms open",
                f"{r['open_over_bare']:.2f}x", "", ""))
        if "per_event_20x_over_1x" in scaling:
            lines.append(row.format("2 scaling: per event 20x / 1x", "", "",
                                    f"{scaling['per_event_20x_over_1x']:.2f}x", "<= 1.3x",
                                    _met(scaling.get("met"))))
            lines.append(row.format("    after-parse work per event 20x / 1x", "", "",
                                    f"{scaling['after_parse_per_event_20x_over_1x']:.2f}x", "", ""))
        if scaling.get("marginal_ratio") is not None:
            lines.append(row.format("    marginal per event (5->20x)/(1->5x)", "", "",
                                    f"{scaling['marginal_ratio']:.2f}x", "", ""))
    for profile, r in results.get("slider", {}).items():
        lines.append(row.format(f"3 slider move 20x {profile} ({r['steps_at_root']:,} steps)",
                                f"{r['median_ms']:.1f} ms", f"p95 {r['p95_ms']:.1f}", "",
                                "<= 15 ms", _met(r["met"])))
        parts = " · ".join(f"{k} {v:.1f}" for k, v in r["parts_median_ms"].items())
        lines.append(f"    {parts} ms; max {r['max_ms']:.0f} ms")
    for name, r in results.get("memory", {}).items():
        lines.append(row.format(f"4 memory {name}", f"{r['open_peak_mb']:.0f} MB",
                                f"{r['file_mb']:.1f} MB file", f"{r['open_peak_over_file']:.2f}x",
                                "<= 3x", _met(r["met"])))
        lines.append(row.format("    bare json.loads peak", f"{r['bare_parse_peak_mb']:.0f} MB",
                                "", f"{r['bare_parse_peak_over_file']:.2f}x", "", ""))
    compare = results.get("compare")
    if compare:
        lines.append(row.format(f"6 compare two {compare['factor']}x copies",
                                f"{compare['compare_ms']:.0f} ms",
                                f"{compare['open_both_ms']:.0f} ms open",
                                f"{compare['compare_over_open']:.2f}x", "<= 1x",
                                _met(compare["met"])))
    for name, r in results.get("share", {}).items():
        lines.append(row.format(f"7 export html {name} ({r['file_bytes'] / 1e6:.0f} MB file)",
                                f"{r['export_ms']:.0f} ms", f"{r['open_ms']:.0f} ms open",
                                f"{r['export_over_open']:.2f}x", "", ""))
        lines.append(row.format("    page size", f"{r['page_bytes'] / 1e6:.1f} MB", "",
                                f"{r['page_over_file']:.2f}x", "<= file+4 MB",
                                _met(r["size_bound_met"])))
        if r["browser_open_ms"] is not None:
            lines.append(row.format("    page open in Chromium (file://)",
                                    f"{r['browser_open_ms']:.0f} ms",
                                    f"max {r['browser_open_max_ms']:.0f}", "", "<= 2000 ms",
                                    _met(r["browser_open_met"])))
        lines.append(row.format("    export with --redact", f"{r['export_redacted_ms']:.0f} ms",
                                "", "", "", ""))
    if results.get("follow"):
        from benchmarks.bench_follow import table_rows
        lines += table_rows(results["follow"], row, _met)
    if results.get("otlp"):
        from benchmarks.bench_otlp import table_rows as otlp_rows
        lines += otlp_rows(results["otlp"], row)
    browser = results.get("browser")
    if browser:
        for case, r in browser.get("cases", {}).items():
            lines.append(row.format(f"5 browser {case}", f"{r['median_ms']:.0f} ms",
                                    f"p95 {r['p95_ms']:.0f}", "", "", ""))
        if "ratio" in browser:
            lines.append(row.format("5 browser: lens / trivial app", "", "",
                                    f"{browser['ratio']:.2f}x", "<= 1.2x", _met(browser.get("met"))))
        if "ratio_small_run" in browser:
            lines.append(row.format("    lens, small run / trivial app", "", "",
                                    f"{browser['ratio_small_run']:.2f}x", "(reported)", ""))
        if "ratio_20x" in browser:
            lines.append(row.format("    lens 20x / trivial app", "", "",
                                    f"{browser['ratio_20x']:.2f}x", "(reported)", ""))
        if "ratio_served_open" in browser:
            lines.append(row.format("    served context open / trivial app", "", "",
                                    f"{browser['ratio_served_open']:.2f}x", "<= 1.4x",
                                    _met(browser.get("served_open_met"))))
        for case, ratio in browser.get("against_frozen_trivial", {}).items():
            short = {"lens, served context open": "served context open"}.get(case, case)
            lines.append(row.format(f"    {short} / frozen trivial app", "", "",
                                    f"{ratio:.2f}x", "(reported)", ""))
        for case, ratio in browser.get("step_drawn_ratios", {}).items():
            lines.append(row.format(f"    whole step drawn, {case} / trivial app", "", "",
                                    f"{ratio:.2f}x", "(reported)", ""))
        if browser.get("error"):
            lines.append(f"5 browser: not measured: {browser['error']}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())

"""Measurement 4: peak resident memory of opening a large recording.

Each measurement is a fresh subprocess (``python -m benchmarks.bench_memory
--child MODE PATH``): it imports everything the app imports, collects, resets
the kernel's high-water mark (``/proc/self/clear_refs``), notes its resident
size as the baseline, then reads the file and opens it
(:func:`benchmarks.page_work.open_for_page`) or, for comparison, only ``json.loads``
it. Peak minus baseline, over the JSON file's size, is the figure. Linux only.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarks.inputs import LARGE, REPO, corpus_path
from benchmarks.timing import median

MEMORY_TARGET = 3.0


def proc_status(field: str) -> int:
    """A ``/proc/self/status`` figure in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def _child(mode: str, path: str) -> None:
    import gc

    import pandas  # noqa: F401  (the app's imports, in the baseline)
    import plotly.graph_objects  # noqa: F401
    import streamlit  # noqa: F401

    from benchmarks.page_work import open_for_page

    sys.setrecursionlimit(20_000)
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")  # reset VmHWM to the current RSS
        reset = True
    except OSError:
        reset = False
    baseline = proc_status("VmRSS") if reset else proc_status("VmHWM")
    data = Path(path).read_bytes()
    if mode == "bare":
        kept = json.loads(data)
    else:
        kept = open_for_page(data)
    peak = proc_status("VmHWM")
    after = proc_status("VmRSS")
    print(json.dumps({"baseline": baseline, "peak": peak, "after": after, "size": len(data),
                      "hwm_reset": reset}))
    del kept


def _probe(mode: str, path: Path) -> dict:
    answer = subprocess.run([sys.executable, "-m", "benchmarks.bench_memory", "--child", mode,
                             str(path)], cwd=REPO, capture_output=True, text=True, timeout=600,
                            check=True)
    return json.loads(answer.stdout.strip().splitlines()[-1])


def measure_memory(repeat: int) -> dict:
    rows = {}
    for name in LARGE:
        path = corpus_path(name)
        probes: dict[str, list[dict]] = {"open": [], "bare": []}
        for _ in range(repeat):
            for mode in probes:
                probes[mode].append(_probe(mode, path))
        size = probes["open"][0]["size"]

        def peak(mode: str) -> float:
            return median([p["peak"] - p["baseline"] for p in probes[mode]])

        def kept(mode: str) -> float:
            return median([p["after"] - p["baseline"] for p in probes[mode]])

        rows[name] = {
            "file_mb": round(size / 1e6, 2),
            "repeat": repeat,
            "open_peak_mb": round(peak("open") / 1e6, 1),
            "open_peak_over_file": round(peak("open") / size, 2),
            "open_resident_after_mb": round(kept("open") / 1e6, 1),
            "bare_parse_peak_mb": round(peak("bare") / 1e6, 1),
            "bare_parse_peak_over_file": round(peak("bare") / size, 2),
            "hwm_reset": all(p["hwm_reset"] for p in probes["open"]),
            "target": f"peak <= {MEMORY_TARGET:g} x file size",
            "met": peak("open") / size <= MEMORY_TARGET,
        }
    return rows


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3])
    else:
        print("usage: python -m benchmarks.bench_memory --child open|bare PATH", file=sys.stderr)
        sys.exit(2)

"""What machine a benchmark ran on, for the figures it writes.

Owns: the description (cores, CPU, memory, Python, platform, load at start)
every benchmark's report carries beside its figures. Does not own: running
or timing anything (:mod:`benchmarks.run`, :mod:`benchmarks.timing`).

A leaf, so any benchmark can put it in its report without importing the
runner that imports the benchmarks.
"""

from __future__ import annotations

import os
import platform
import subprocess


def machine() -> dict:
    """This machine as a report's ``machine`` entry; a fact it cannot read is left empty."""
    cpu = ""
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info
                        if line.startswith("model name")), "")
    except OSError:
        pass
    memory = ""
    try:
        memory = subprocess.run(["free", "-h"], capture_output=True, text=True,
                                timeout=10).stdout.splitlines()[1]
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    try:
        load = os.getloadavg()
    except OSError:
        load = ()
    return {"nproc": os.cpu_count(), "cpu": cpu or platform.processor(), "memory": memory,
            "python": platform.python_version(), "platform": platform.platform(),
            "load_average_at_start": [round(x, 2) for x in load]}

"""The V8 anchor: how long Node takes to read and ``JSON.parse`` a file.

agentfootprint's own tooling runs in Node, so the time V8 needs to read a
recording and parse it is the reference an open is held to. Each call starts
a fresh ``node`` (a cold heap, as a tool opening one file has) and times,
inside it, ``JSON.parse(fs.readFileSync(path, 'utf8'))``; Node's start-up is
not counted. Where ``node`` is not installed the anchor is absent and the
benchmark says so.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

NODE = "node"
_SCRIPT = (
    "const fs = require('fs'); const { performance } = require('perf_hooks');"
    "const start = performance.now();"
    "const value = JSON.parse(fs.readFileSync(process.argv[1], 'utf8'));"
    "const end = performance.now();"
    "if (value === undefined) process.exit(3);"
    "process.stdout.write(String((end - start) / 1000));"
)
MISSING = "node is not installed (no V8 anchor: install Node.js to measure target 1)"


def node_path() -> str | None:
    return shutil.which(NODE)


def node_version() -> str | None:
    node = node_path()
    if node is None:
        return None
    return subprocess.run([node, "--version"], capture_output=True, text=True,
                          timeout=30).stdout.strip()


def v8_read_and_parse(path: Path) -> float:
    """Seconds V8 takes to read ``path`` and JSON.parse it, timed inside Node."""
    node = node_path()
    if node is None:
        raise RuntimeError(MISSING)
    answer = subprocess.run([node, "-e", _SCRIPT, str(path)], capture_output=True, text=True,
                            timeout=600, check=True)
    return float(answer.stdout.strip())

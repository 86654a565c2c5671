"""Every ``footprint-lens`` command that prints JSON prints it in UTF-8 (``→``,
not ``\\u2192``), whatever the locale's encoding: issue #39's "CLI JSON is
ASCII-escaped". The recorders' own commands are checked in tests/recorders/test_cli.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_files import pair_run_path, recording_path

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from lens_cli.main import entry_point; entry_point()"]


def _argv(command: str) -> list[str]:
    """The command on a run whose output holds text beyond ASCII."""
    refund = str(recording_path("agent-refund-multi-tools-error"))
    pair = [str(pair_run_path("skillgraph-route-diverges", side)) for side in "ab"]
    return {"info": ["info", str(recording_path("hostile-strings-agent"))],
            "causes": ["causes", refund],
            "compare": ["compare", *pair],
            "route": ["route", pair[0]]}[command]


@pytest.mark.parametrize("command", ["info", "causes", "compare", "route"])
def test_json_is_printed_in_utf8_not_escaped(command):
    env = dict(os.environ, PYTHONIOENCODING="ascii", PYTHONPATH=str(REPO))
    done = subprocess.run(CLI + _argv(command), capture_output=True, env=env, cwd=REPO,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode("utf-8")
    json.loads(text)  # whole, valid JSON
    assert any(ord(c) > 127 for c in text), "the run's non-ASCII text is printed as it is"
    # Only what JSON must escape is escaped: control characters and lone surrogate halves.
    escaped = [int(code, 16) for code in re.findall(r"(?<!\\)\\u([0-9a-fA-F]{4})", text)]
    assert all(code < 0x20 or 0xD800 <= code <= 0xDFFF for code in escaped), escaped

"""``lens.run.open_run`` leaves the process as it found it."""

from __future__ import annotations

import gc
import sys

from corpus_files import read_bytes, recording_path
from lens.run import open_run


def test_opening_leaves_the_collector_and_the_limit_as_found():
    state = gc.isenabled(), sys.getrecursionlimit(), gc.get_freeze_count()
    run = open_run(read_bytes(recording_path("large-agent-300-tool-calls")))
    assert run.root_steps("lens") and run.evidence.calls
    assert (gc.isenabled(), sys.getrecursionlimit(), gc.get_freeze_count()) == state
    gc.disable()
    try:
        open_run(read_bytes(recording_path("llmcall-single"))).root_steps("reference")
        assert not gc.isenabled()  # a caller's choice stays
    finally:
        gc.enable()

"""What ``lens.run.open_run`` builds on open, and what it leaves for first use."""

from __future__ import annotations

import gc
import sys
import threading

from corpus_files import read_bytes, recording_path
from lens.run import open_run
from recorders.evidence import build_evidence_index


def test_the_evidence_index_is_built_on_first_read_and_then_kept():
    run = open_run(read_bytes(recording_path("agent-refund-multi-tools-error")))
    assert not run.has_evidence() and not run.has_views("lens")
    index = run.evidence
    assert run.has_evidence() and run.evidence is index
    fresh = build_evidence_index(run.recording)
    assert len(index.calls) == len(fresh.calls) > 0
    assert index.calls == fresh.calls


def test_sessions_asking_at_once_share_one_index():
    run = open_run(read_bytes(recording_path("large-loop-of-parallel")))
    seen: list = []
    threads = [threading.Thread(target=lambda: seen.append(run.evidence)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(seen) == 4 and all(s is seen[0] for s in seen)


def test_opening_leaves_the_collector_and_the_limit_as_found():
    state = gc.isenabled(), sys.getrecursionlimit(), gc.get_freeze_count()
    run = open_run(read_bytes(recording_path("large-agent-300-tool-calls")))
    run.root_steps("lens")
    assert run.evidence.calls
    assert (gc.isenabled(), sys.getrecursionlimit(), gc.get_freeze_count()) == state

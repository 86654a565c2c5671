"""The app's collector policy: a large open run and its views are frozen out
of the collector's walks, and a dropped run's cycles are freed later."""

from __future__ import annotations

import gc
import sys
import types
import weakref

from corpus_files import read_bytes, recording_path
from lens.run import open_run
from lens_ui import collector


class _Node:
    """A reference cycle, as the views over a recording may hold."""

    def __init__(self) -> None:
        self.me = self


def _collected(obj: object) -> bool:
    """Whether the collector's generations hold ``obj`` (frozen objects are not in them)."""
    return any(o is obj for o in gc.get_objects())


def test_views_built_over_a_large_recording_are_kept_out_of_collections():
    views = [{"step": [n]} for n in range(100)]
    assert _collected(views)
    collector.keep_built(collector.MIN_CHARS)
    assert not _collected(views)
    small = [{"step": [n]} for n in range(100)]
    collector.keep_built(collector.MIN_CHARS - 1)  # small inputs are left alone
    assert _collected(small)


def test_a_dropped_runs_cycles_are_freed_at_the_next_large_open():
    kept = _Node()
    gone = weakref.ref(kept)
    collector.keep_built(collector.MIN_CHARS)
    del kept
    gc.collect()
    assert gone() is not None  # frozen: no collection reaches it
    collector.released()  # the cache dropped the run
    collector.keep_built(collector.MIN_CHARS)  # the next large run opens
    assert gone() is None


def test_a_large_open_is_frozen_and_leaves_the_collector_on():
    data = read_bytes(recording_path("large-agent-300-tool-calls"))
    frozen = gc.get_freeze_count()
    run = collector.open_kept(lambda: open_run(data), lambda r: r.recording.source_chars)
    assert gc.isenabled()
    assert gc.get_freeze_count() > frozen
    assert not _collected(run.recording.typed_events)


def test_a_small_open_is_not_frozen():
    data = read_bytes(recording_path("llmcall-single"))
    run = collector.open_kept(lambda: open_run(data), lambda r: r.recording.source_chars)
    assert gc.isenabled()
    assert _collected(run.recording.typed_events)


def test_what_a_new_module_leaves_alive_is_frozen_once(monkeypatch):
    monkeypatch.setattr(collector, "_modules_frozen", len(sys.modules))
    loaded = types.ModuleType("lens_test_loaded_module")
    loaded.table = [{"row": [n]} for n in range(100)]
    monkeypatch.setitem(sys.modules, loaded.__name__, loaded)
    assert _collected(loaded.table)
    collector.settle_loaded_code()
    assert not _collected(loaded.table)  # later full collections skip it
    later = [{"row": [n]} for n in range(100)]
    collector.settle_loaded_code()  # no module since: nothing frozen
    assert _collected(later)


def test_settling_is_off_with_the_policy(monkeypatch):
    monkeypatch.setattr(collector, "ENABLED", False)
    monkeypatch.setattr(collector, "_modules_frozen", 0)
    alive = [{"row": [n]} for n in range(100)]
    collector.settle_loaded_code()
    assert _collected(alive)

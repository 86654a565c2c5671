"""Keep a large open run out of Python's cyclic garbage collector (app policy).

A parsed JSON document is a tree of dicts, lists and scalars: it holds no
reference cycles, so the cyclic collector can never free any of it (reference
counting does, when the run is dropped). Yet the collector walks every tracked
object on each full collection, and a growing heap triggers full collections:
with a 77 MB run open, about 250 ms on most slider moves of every session in
the server, and opening it spent more time in the collector than in the parser.

:func:`open_kept` wraps the app's open of a run: it collects the young
generations (so existing garbage is not frozen), pauses the collector while
the run is parsed and its views built, and, for a run of at least
:data:`MIN_CHARS` characters, moves every object the collector tracks into its
permanent generation (``gc.freeze``), where later collections skip it. Views
built later over the same run (a projection chosen afterwards) are frozen by
:func:`keep_built`.

This is the app's decision, not the library's: ``recorders`` and ``lens``
never freeze anything, and only pause the collector for the length of a parse.

:func:`settle_loaded_code` does the same for what a page's imports leave
alive (Streamlit, pandas, pyarrow, DuckDB, this app: about 130,000 objects
that live as long as the process). Left in the collector, every full
collection walked them: on the Archive page one fell due on nearly every
filter change and held the server for 70-100 ms (measured with
``gc.callbacks``), with no run open at all.

What this owns: when the app freezes and unfreezes. What it does not: the
collector's thresholds, or anything about the objects themselves.

The price of ``gc.freeze``: it is process-wide. An object that is alive when
a large run is opened and later becomes part of unreachable cyclic garbage is
not collected while frozen. A cache that drops a kept run calls
:func:`released`; the next freeze then unfreezes everything, collects (one
full collection, at the next large open) and freezes what is still alive, so
a dropped run's cycles do not pile up. Set :data:`ENABLED` to False to opt out.
"""

from __future__ import annotations

import gc
import sys
import threading
from typing import Callable, TypeVar

from recorders.deep_parse import collector_paused

ENABLED = True
MIN_CHARS = 1 << 20  # 1 MiB of JSON text

Built = TypeVar("Built")

_lock = threading.Lock()
_released = False  # a kept run was dropped since the last freeze
_modules_frozen = 0  # how many modules were loaded at the last settle_loaded_code


def open_kept(build: Callable[[], Built], chars_of: Callable[[Built], int]) -> Built:
    """``build()`` (an open: parse and views) with the collector paused; if what
    it built stands for at least :data:`MIN_CHARS` characters of recording,
    freeze it before the collector runs again. Errors pass through unfrozen."""
    if not ENABLED:
        return build()
    gc.collect(1)  # garbage that already exists is not frozen
    with collector_paused():
        built = build()
        if chars_of(built) >= MIN_CHARS:
            _freeze()
    return built


def keep_built(chars: int) -> None:
    """After building views that will be kept over ``chars`` characters of
    recording: freeze them, as the open was (nothing for small inputs)."""
    if not (ENABLED and chars >= MIN_CHARS):
        return
    gc.collect(1)  # garbage made while building is not frozen
    _freeze()


def _freeze() -> None:
    """Freeze what is alive; if a kept run was dropped since (:func:`released`),
    first unfreeze and collect fully, so its cyclic garbage is freed rather
    than frozen for good."""
    global _released
    with _lock:
        dropped, _released = _released, False
    if dropped:
        gc.unfreeze()
        gc.collect()
    gc.freeze()


def released(*_: object) -> None:
    """A kept run was dropped (a cache's ``on_release``): let the next freeze
    free what of it the collector must."""
    global _released
    with _lock:
        _released = True


def settle_loaded_code() -> None:
    """Freeze what is alive if modules were loaded since the last call.

    Called at the top of every page run: it costs a length check unless a
    module arrived since (a page's first run in this process, a lazy
    import), and then a young collection and a freeze."""
    global _modules_frozen
    if not ENABLED or len(sys.modules) <= _modules_frozen:
        return
    with _lock:
        loaded = len(sys.modules)
        if loaded <= _modules_frozen:
            return  # another session's run got here first
        _modules_frozen = loaded
    gc.collect(1)  # garbage that already exists is not frozen
    _freeze()

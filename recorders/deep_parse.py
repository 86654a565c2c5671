"""Parse deeply nested JSON without a lasting change to the process.

Python's JSON parser counts nesting against the interpreter's recursion limit,
and the large corpus recording nests 1,213 levels deep. While a document is
parsed, :func:`parsing` raises the limit to what the loader allows and pauses
the cyclic garbage collector (a parsed document holds no reference cycles, so
walking it while it grows is wasted work). When the last parse in the process
ends, both are put back exactly as the first one found them.

What this owns: the recursion limit and the collector's on/off state, for the
length of a parse. What it does not: freezing objects out of the collector
(an application's policy, see ``lens_ui.collector``), or the limit outside a
parse.

Concurrent parses (Streamlit runs each session's script in its own thread)
are counted under one lock, so one thread finishing cannot lower the limit
under another that is still deep in a document.
"""

from __future__ import annotations

import gc
import sys
import threading
from contextlib import contextmanager
from typing import Iterator

# The large corpus recording nests 1,213 levels deep (an executionTree chain).
# Python's parser counts nesting against the recursion limit, so parsing runs
# with at least this limit; deeper files are refused with a clear message.
MAX_NESTING_DEPTH = 10_000
PARSE_RECURSION_LIMIT = MAX_NESTING_DEPTH + 100

_lock = threading.Lock()
_active = 0
_saved_limit = 0
_raised_to: int | None = None  # the limit this module set, if it set one
_saved_enabled = False


@contextmanager
def parsing(recursion_limit: int) -> Iterator[None]:
    """The block runs with at least ``recursion_limit`` and the collector paused;
    the last block out restores what the first one in found."""
    global _active, _saved_limit, _raised_to, _saved_enabled
    with _lock:
        if _active == 0:
            _saved_limit = sys.getrecursionlimit()
            _raised_to = None
            _saved_enabled = gc.isenabled()
            gc.disable()
        if sys.getrecursionlimit() < recursion_limit:
            sys.setrecursionlimit(recursion_limit)
            _raised_to = recursion_limit
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0:
                # Put back what was found, unless another thread of the caller's
                # set a limit of its own meanwhile: that one is theirs to keep.
                if _raised_to is not None and sys.getrecursionlimit() == _raised_to:
                    sys.setrecursionlimit(_saved_limit)
                if _saved_enabled:
                    gc.enable()


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the block (the recursion limit left alone); counted
    with :func:`parsing`, so nesting either inside the other is safe."""
    with parsing(0):
        yield

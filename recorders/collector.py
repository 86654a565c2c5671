"""Keep a large parsed recording out of Python's cyclic garbage collector.

A parsed JSON document is a tree of dicts, lists and scalars: it holds no
reference cycles, so the cyclic collector can never free any of it (reference
counting does, when the recording is dropped). Yet the collector walks every
tracked object on each full collection, and a growing heap triggers full
collections: parsing a large file, and building the views over it, used to
spend more time in the collector than in the parser (a 77 MB recording: about
7 s of 12 s opening it, and 1–2 s for any later full collection).

:func:`parse_to_keep` stops the collector while a document is parsed (the
parser makes no cycles, so nothing is missed), then moves every object the
collector tracks into its permanent generation (``gc.freeze``), where later
collections skip it. ``recorders.loading`` uses it for inputs of at least
:data:`MIN_CHARS` characters only; small files are left alone.

What this owns: when the collector is paused and what is frozen. What it does
not: the collector's thresholds, or anything about the objects themselves.

The price of ``gc.freeze``: it is process-wide. An object that is alive when
a large file is opened and later becomes part of unreachable cyclic garbage is
never collected. The young generations are collected first, so garbage that
already exists is not frozen; set :data:`ENABLED` to False to opt out (the
parse is then paused only).
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

ENABLED = True
MIN_CHARS = 1 << 20  # 1 MiB of JSON text

_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextmanager
def parse_to_keep(chars: int) -> Iterator[None]:
    """Around parsing ``chars`` characters of JSON whose result will be kept.

    For large inputs: collect the young generations (so existing garbage is
    not frozen), pause the collector, and freeze once the block has parsed
    without an error. Smaller inputs are parsed as they would be anyway.
    """
    if not (ENABLED and chars >= MIN_CHARS):
        yield
        return
    gc.collect(1)
    with paused():
        yield
        gc.freeze()  # still paused: no collection walks the new objects first


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block; nested and concurrent uses are counted,
    and the last one out restores the state the first one found."""
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()

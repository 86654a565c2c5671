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

The views built over a large recording (projections, indexes) are as large
and as long-lived: left in the collector's care, every later full collection
walks them (with a 77 MB recording open, about 250 ms, on most slider moves of
every session in the server). :func:`keep_built` freezes them too, once built.

What this owns: when the collector is paused and what is frozen. What it does
not: the collector's thresholds, or anything about the objects themselves.

The price of ``gc.freeze``: it is process-wide. An object that is alive when
a large file is opened and later becomes part of unreachable cyclic garbage is
not collected while frozen. The young generations are collected first, so
garbage that already exists is not frozen. A cache that drops a kept run calls
:func:`released`; the next :func:`keep_built` then unfreezes everything,
collects (one full collection, at the next large open) and freezes what is
still alive, so a dropped run's cycles do not pile up. Set :data:`ENABLED` to
False to opt out (the parse is then paused only).
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
_released = False  # a kept run was dropped since the last freeze


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


def keep_built(chars: int) -> None:
    """After building views that will be kept over ``chars`` characters of
    recording: freeze them, as the parse was (nothing for small inputs).

    If a kept run was dropped since (:func:`released`), first unfreeze and
    collect fully, so that run's cyclic garbage is freed rather than frozen
    for good.
    """
    global _released
    if not (ENABLED and chars >= MIN_CHARS):
        return
    with _lock:
        dropped, _released = _released, False
    if dropped:
        gc.unfreeze()
        gc.collect()
    else:
        gc.collect(1)  # garbage made while building is not frozen
    gc.freeze()


def released(*_: object) -> None:
    """A kept run was dropped (a cache's ``on_release``): let the next
    :func:`keep_built` free what of it the collector must."""
    global _released
    with _lock:
        _released = True

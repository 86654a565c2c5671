"""The trivial apps' second state: their collector frozen, as Lens's is.

Each full collection walks every object the collector tracks, and Streamlit's
own heap is over 100,000 of them: in the trivial apps nearly every rerun runs
one, 35-70 ms of a rerun's time on a 2-core machine (seen with
``gc.callbacks``). Lens freezes what its imports left alive
(``lens_ui/collector.py``), so the browser benchmarks also time each trivial
app with its collector frozen the same way, beside it as it ships. The apps
import this as a sibling module (Streamlit puts a script's folder on the path).
"""

from __future__ import annotations

import gc
import os

FREEZE_ENV = "LENS_BENCH_FREEZE_COLLECTOR"


def freeze_if_asked() -> None:
    """With :data:`FREEZE_ENV` set, freeze what is alive, once per process."""
    if os.environ.get(FREEZE_ENV) and not gc.get_freeze_count():
        gc.collect()
        gc.freeze()

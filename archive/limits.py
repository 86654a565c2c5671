"""How much one archive file may cost to read, from the settings the server uses.

- ``LENS_MAX_EXPANDED_MB`` (default 200, the app's default upload limit): the
  most a run file may hold, plain or once gzip is undone. The indexer refuses
  a larger file while streaming it, keeping nothing of it.
- ``LENS_MEMORY_BUDGET_MB`` (default 4096): a file whose indexing would need
  more than this (its expanded size times :data:`INDEXING_PER_BYTE`) is not
  read, so one file never takes the process past its budget.

A value that is not a positive number is ignored with a warning in the log,
and the default applies (the same rule as ``lens_ui/server_limits.py``, which
reads the same names through :func:`setting`).
"""

from __future__ import annotations

import logging
import os
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Callable

from archive.errors import ArchiveError

MAX_EXPANDED_ENV = "LENS_MAX_EXPANDED_MB"
MEMORY_BUDGET_ENV = "LENS_MEMORY_BUDGET_MB"
DEFAULT_MAX_EXPANDED_MB = 200.0
DEFAULT_MEMORY_BUDGET_MB = 4096.0
MB = 1024 * 1024

# Peak memory of indexing one file (archive.rows.index_file), per byte of its
# JSON: tracemalloc over the 106 recordings of the corpus, the families, the
# samples and the archive sample gave at most 3.04 (files under 0.1 MB, where
# fixed costs dominate; 0.7-1.5 over 5 MB), rounded up. The open run's 7x
# (lens_ui/run_store.py) also builds both projections; the indexer, rows only.
INDEXING_PER_BYTE = 4.0

_log = logging.getLogger(__name__)

# What a server hands the indexer so a file's parse holds part of its memory
# budget: called with the bytes the parse may need, it admits the work for the
# length of the ``with`` block, or raises NoRoomNow.
MemoryGate = Callable[[int], AbstractContextManager]


class NoRoomNow(ArchiveError):
    """The memory a file's indexing needs is held by other work now; the file is
    not read in this pass and is read again on the next."""


@dataclass(frozen=True)
class FileLimits:
    """What one file may cost: its bytes (plain or expanded), and the memory
    its indexing may need."""

    max_expanded_bytes: int
    memory_budget_bytes: int

    @property
    def max_indexed_bytes(self) -> int:
        """The largest expanded file whose indexing fits the budget, and the limit."""
        return min(self.max_expanded_bytes, int(self.memory_budget_bytes / INDEXING_PER_BYTE))

    def refusal(self, what: str) -> str:
        """Why ``what`` is refused past :attr:`max_indexed_bytes`: the limit that binds."""
        if self.max_indexed_bytes < self.max_expanded_bytes:
            return (f"{what} more than {self.max_indexed_bytes / MB:,.0f} MiB: indexing it "
                    f"would need more than the memory budget "
                    f"({self.memory_budget_bytes / MB:,.0f} MB, {MEMORY_BUDGET_ENV}); not read")
        return (f"{what} more than {self.max_expanded_bytes / MB:,.0f} MiB, the limit "
                f"({MAX_EXPANDED_ENV}); not read")


def file_limits() -> FileLimits:
    """The limits in force, read from the environment now."""
    return FileLimits(
        max_expanded_bytes=int(setting(MAX_EXPANDED_ENV, DEFAULT_MAX_EXPANDED_MB) * MB),
        memory_budget_bytes=int(setting(MEMORY_BUDGET_ENV, DEFAULT_MEMORY_BUDGET_MB) * MB))


def setting(name: str, default: float) -> float:
    """A positive number from the environment variable ``name``, else ``default``."""
    text = os.environ.get(name)
    if text is None or not text.strip():
        return default
    value = positive_number(text)
    if value is None:
        _log.warning("%s=%r is not a positive number; using %s", name, text, default)
        return default
    return value


def positive_number(text: str) -> float | None:
    """``text`` as a positive, finite number, or None: the rule every limit's
    setting is read by (the server ignores a bad one, the CLI refuses it)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 < value < float("inf") else None

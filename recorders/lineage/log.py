"""The commit log, indexed once for every lineage query over it.

Owns: checking the shape the queries rely on, and the one pass that builds
per key the commits that wrote it, every trace entry touching it, the commits
whose step read it, and the position of each step's (last) commit. Every
query then runs off these sorted lists: O(commits + trace entries + reads)
to build, once per recording, however many keys are asked about.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from recorders.lineage.js_semantics import MISSING
from recorders.lineage.errors import NoCommitLog
from recorders.lineage.reads import StepReads

DELIM = "\u001f"  # footprintjs joins nested path segments with the unit separator


def normalise_key(key: str | list | tuple) -> str:
    """A key as the commit log names it: a path (list of segments) is joined
    with the log's separator; a string is taken as it is."""
    if isinstance(key, str):
        return key
    return DELIM.join(_segment_text(part) for part in key)


def _segment_text(part: Any) -> str:
    if isinstance(part, bool):
        return "true" if part else "false"
    if isinstance(part, float) and part.is_integer():
        return str(int(part))
    return str(part)


class CommitLog:
    """``snapshot.commitLog`` and its indices (see the module doc)."""

    def __init__(self, bundles: list, reads: StepReads) -> None:
        self.bundles = bundles
        self.reads = reads
        self.writes_by_key: dict[str, list[int]] = {}  # commit positions, one per commit
        self.touches_by_key: dict[str, list[tuple[int, dict]]] = {}  # every trace entry
        self.reads_by_key: dict[str, list[int]] = {}
        self.last_position: dict[Any, int] = {}  # step id -> its LAST commit (as causalChain)
        self.paths: list[list[str]] = []  # per commit, its trace paths in order
        for position, bundle in enumerate(bundles):
            paths = []
            for entry in bundle["trace"]:
                path = entry["path"]
                paths.append(path)
                self.touches_by_key.setdefault(path, []).append((position, entry))
                written = self.writes_by_key.setdefault(path, [])
                if not written or written[-1] != position:
                    written.append(position)
            self.paths.append(paths)
            step = bundle.get("runtimeStageId", MISSING)
            self.last_position[step_key(step)] = position
            for key in dict.fromkeys(reads.of(step)):
                self.reads_by_key.setdefault(key, []).append(position)
        self.known_keys = {*self.writes_by_key, *self.reads_by_key}

    def __len__(self) -> int:
        return len(self.bundles)

    def written_keys(self) -> list[str]:
        """Every key the log writes, in the order it is first written."""
        return list(self.writes_by_key)

    def has_recorded_reads(self) -> bool:
        return bool(self.reads_by_key)

    def last_writer_before(self, key: str, before: int) -> int | None:
        """The position of the last commit before ``before`` that wrote ``key``."""
        return last_before(self.writes_by_key.get(key), before)

    def last_entry(self, position: int, path: str) -> dict | None:
        """A commit's last trace entry on ``path``: it decides the verb and,
        with per-write provenance, the widest read prefix."""
        trace = self.bundles[position]["trace"]
        for entry in reversed(trace):
            if entry["path"] == path:
                return entry
        return None

    def first_entry(self, position: int, path: str) -> dict | None:
        for entry in self.bundles[position]["trace"]:
            if entry["path"] == path:
                return entry
        return None


def step_key(value: Any) -> Any:
    """A step id as a dictionary key (ids are strings in every real log)."""
    if isinstance(value, (str, int, float, bool, type(None))) or value is MISSING:
        return value
    return ("unhashable", id(value))


def last_before(positions: list[int] | None, before: int | None) -> int | None:
    """The largest of the ascending ``positions`` below ``before`` (all, when None)."""
    if not positions:
        return None
    end = len(positions) if before is None else bisect_left(positions, before)
    return positions[end - 1] if end > 0 else None


def first_after(positions: list[int] | None, after: int) -> int | None:
    if not positions:
        return None
    at = bisect_left(positions, after + 1)
    return positions[at] if at < len(positions) else None


def in_range(positions: list[int] | None, low: int, high: int | None) -> list[int]:
    """The ascending ``positions`` in ``[low, high]`` (to the end when ``high`` is None)."""
    if not positions:
        return []
    start = bisect_left(positions, low)
    end = len(positions) if high is None else bisect_left(positions, high + 1)
    return positions[start:end]


def check_commit_log(bundles: Any, where: str = "snapshot.commitLog") -> list:
    """``bundles`` when every commit is an object with a ``trace`` of entries
    naming a string ``path``; NoCommitLog naming the first that is not."""
    if not isinstance(bundles, list):
        raise NoCommitLog(f"{where}: expected a list of commits, found {type(bundles).__name__}")
    for position, bundle in enumerate(bundles):
        if not isinstance(bundle, dict) or not isinstance(bundle.get("trace"), list):
            raise NoCommitLog(f"{where}[{position}]: expected a commit with a trace list")
        for number, entry in enumerate(bundle["trace"]):
            if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
                raise NoCommitLog(f"{where}[{position}].trace[{number}]: expected an entry "
                                  "with a string path")
    return bundles

"""One recording's lineage: every query, for one key or for all of them.

Owns: building the commit-log index once from a snapshot and answering, per
key, ``{"backward", "forward", "timeline", "births"}`` (births only when the
key holds an array at the end of the log) -- the wire shape of
``footprint-lens slice``.
"""

from __future__ import annotations

from typing import Any

from recorders.lineage.backward import slice_for_key
from recorders.lineage.births import array_provenance
from recorders.lineage.errors import NoCommitLog
from recorders.lineage.forward import forward_slice_for_key
from recorders.lineage.log import CommitLog, check_commit_log, normalise_key
from recorders.lineage.reads import reads_from_tree
from recorders.lineage.timeline import key_timeline


class Lineage:
    """The queries over one snapshot's commit log and execution tree."""

    def __init__(self, snapshot: Any, where: str = "snapshot") -> None:
        if not isinstance(snapshot, dict):
            raise NoCommitLog(f"the file has no {where}, so no commit log to trace values through")
        if "commitLog" not in snapshot:
            raise NoCommitLog(f"the {where} has no commitLog, so there is nothing to trace "
                              "values through")
        bundles = check_commit_log(snapshot["commitLog"], f"{where}.commitLog")
        self.log = CommitLog(bundles, reads_from_tree(snapshot.get("executionTree")))

    def keys(self) -> list[str]:
        """Every key the commit log writes, nested paths joined as the log joins them."""
        return self.log.written_keys()

    def backward(self, key: str | list) -> dict[str, Any]:
        return slice_for_key(self.log, normalise_key(key))

    def forward(self, key: str | list) -> dict[str, Any]:
        return forward_slice_for_key(self.log, normalise_key(key))

    def timeline(self, key: str | list) -> dict[str, Any]:
        return key_timeline(self.log, normalise_key(key))

    def births(self, key: str | list) -> dict[str, Any]:
        return array_provenance(self.log, normalise_key(key))

    def of_key(self, key: str | list) -> dict[str, Any]:
        entry = {"backward": self.backward(key), "forward": self.forward(key),
                 "timeline": self.timeline(key)}
        births = self.births(key)
        if "births" in births:
            entry["births"] = births
        return entry

    def report(self, keys: list[str] | None = None) -> dict[str, dict[str, Any]]:
        """``{key: of_key(key)}`` for ``keys``, by default every written key."""
        return {key: self.of_key(key) for key in (self.keys() if keys is None else keys)}

"""Data lineage from a recording's commit log: where a value came from.

A pure port of the behaviour of footprintjs 9.24.0's slicing library
(``sliceForKey``/``sliceToJSON``, ``forwardSliceForKey``/``forwardSliceToJSON``,
``keyTimeline``, ``arrayProvenance``), equal as JSON to what it serialises
(tests/lineage pins its output for every visible recording). No UI imports.

- :class:`Lineage` (lineage.py): the queries over one snapshot;
- :func:`snapshot_of_path` (load.py): the snapshot, through the loader;
- :class:`NoCommitLog`: a file with nothing to trace through.
"""

from recorders.lineage.errors import NoCommitLog
from recorders.lineage.lineage import Lineage
from recorders.lineage.load import snapshot_of, snapshot_of_path
from recorders.lineage.log import DELIM, normalise_key

__all__ = ["DELIM", "Lineage", "NoCommitLog", "normalise_key", "snapshot_of",
           "snapshot_of_path"]

"""Data lineage from a recording's commit log: where a value came from.

A pure port of the behaviour of footprintjs 9.24.0's slicing library
(``sliceForKey``/``sliceToJSON``, ``forwardSliceForKey``/``forwardSliceToJSON``,
``keyTimeline``, ``arrayProvenance``), equal as JSON to what it serialises
(tests/lineage pins its output for every visible recording). No UI imports.

- :class:`Lineage` (lineage.py): the queries over one snapshot;
- :func:`snapshot_of_path` (load.py): the snapshot, through the loader;
- :class:`NoCommitLog`: a file with nothing to trace through;
- :func:`deep_equal`, :func:`own_get` (js_semantics.py): the engine's value
  equality and own-property path read, for callers matching values to keys.
"""

from recorders.lineage.errors import NoCommitLog
from recorders.lineage.js_semantics import deep_equal, own_get
from recorders.lineage.lineage import Lineage
from recorders.lineage.load import snapshot_of, snapshot_of_path
from recorders.lineage.log import DELIM, normalise_key

__all__ = ["DELIM", "Lineage", "NoCommitLog", "deep_equal", "normalise_key", "own_get",
           "snapshot_of", "snapshot_of_path"]

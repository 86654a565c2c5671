"""#37 item 5: ``footprint-lens slice`` over the largest corpus recordings,
every key, in at most 100 ms.

Side by side in the same rounds, per recording: the lineage of every key the
commit log writes (``Lineage(snapshot).report()``, what ``slice FILE`` prints,
from the parsed snapshot), and the whole command's work from the file's bytes
(parse, interpret, lineage). The V8 anchor, Node's read and ``JSON.parse`` of
the same plain file, is measured in the same run for scale. Target: the
lineage of all keys ≤ 100 ms.
"""

from __future__ import annotations

import json
import sys

from benchmarks.inputs import LARGE, corpus_bytes, corpus_path
from benchmarks.timing import median, ms, side_by_side
from benchmarks.v8_anchor import MISSING, node_path, v8_read_and_parse
from recorders.lineage import Lineage, snapshot_of

TARGET_MS = 100.0


def measure_slice(repeat: int) -> dict:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    results = {}
    for name in LARGE:
        data = corpus_bytes(name)
        snapshot = snapshot_of(data)
        lineage = Lineage(snapshot)
        keys = len(lineage.keys())
        commits = len(snapshot.get("commitLog") or [])
        times = side_by_side({"all_keys": lambda: Lineage(snapshot).report(),
                              "from_bytes": lambda: Lineage(snapshot_of(data)).report()},
                             repeat)
        anchor = None
        if node_path() is not None:
            path = corpus_path(name)
            anchor = ms(median([v8_read_and_parse(path) for _ in range(repeat)]))
        all_keys = ms(median(times["all_keys"]))
        results[name] = {
            "bytes": len(data), "commits": commits, "keys": keys, "repeat": repeat,
            "all_keys_ms": all_keys, "from_bytes_ms": ms(median(times["from_bytes"])),
            "v8_read_parse_ms": anchor if anchor is not None else MISSING,
            "target_ms": TARGET_MS, "met": all_keys <= TARGET_MS,
        }
    return results


if __name__ == "__main__":
    print(json.dumps(measure_slice(int(sys.argv[1]) if len(sys.argv) > 1 else 7), indent=2))

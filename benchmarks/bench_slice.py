"""#37: ``footprint-lens slice`` over the largest corpus recordings, every key,
in at most 100 ms; and the app's "Where from?" panel opening in at most 1 s.

Side by side in the same rounds, per recording: the lineage of every key the
commit log writes (``Lineage(snapshot).report()``, what ``slice FILE`` prints,
from the parsed snapshot), and the whole command's work from the file's bytes
(parse, interpret, lineage). The V8 anchor, Node's read and ``JSON.parse`` of
the same plain file, is measured in the same run for scale. Target: the
lineage of all keys ≤ 100 ms.

The panel (``panel`` in the output, ``--panel`` alone): what the app does when
Where from? is opened on a run already open (the run's events, projection and
event placement are built when it opens, so they are not counted): the
lineage from the file's bytes, the stage places, the key to start on, its
view, and the timeline chart built and serialised as Streamlit sends it
(``first_open``); the same for another key once those are kept with the run
(``another_key``); and the served context's value index (``value_index``,
built once per run when a slot is first shown). Target: first open ≤ 1 s.
"""

from __future__ import annotations

import json
import sys

from benchmarks.inputs import LARGE, corpus_bytes, corpus_path
from benchmarks.timing import median, ms, side_by_side
from benchmarks.v8_anchor import MISSING, node_path, v8_read_and_parse
from lens.event_places import EventPlaces
from lens.key_timeline_figure import key_chart, key_timeline_figure
from lens.lineage_view import StagePlaces, key_for_step, lineage_of, where_from
from lens.run import DEFAULT_PROFILE, open_run
from lens.value_keys import ValueIndex
from recorders.lineage import Lineage, snapshot_of

TARGET_MS = 100.0
PANEL_TARGET_MS = 1000.0


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


def _panel(data: bytes, run, places: EventPlaces, key: str | None = None,
           kept: tuple | None = None) -> str:
    """One opening of the panel on the last step (or on ``key``); ``kept``:
    the lineage and stage places already kept with the run."""
    lineage, stage_places = kept or (lineage_of(data), StagePlaces(run, DEFAULT_PROFILE, places))
    steps = run.root_steps(DEFAULT_PROFILE)
    chosen = key or key_for_step(lineage, steps[-1].anchor.runtime_stage_id, True,
                                 run.facts.final_answer)
    view = where_from(lineage.lineage, stage_places, chosen)
    chart = key_chart(view, lineage.lineage, ("__root__",), len(steps), len(steps) - 1)
    return key_timeline_figure(chart).to_json()


def measure_panel(repeat: int, names: tuple[str, ...] = LARGE[:1]) -> dict:
    results = {}
    for name in names:
        data = corpus_bytes(name)
        run = open_run(data)
        places = EventPlaces.for_run(run, DEFAULT_PROFILE)
        kept = (lineage_of(data), StagePlaces(run, DEFAULT_PROFILE, places))
        keys = kept[0].lineage.keys()
        # The key with the most writes: the largest chart and timeline.
        busiest = max(keys, key=lambda k: len(kept[0].lineage.log.writes_by_key[k]))
        times = side_by_side({
            "first_open": lambda: _panel(data, run, places),
            "another_key": lambda: _panel(data, run, places, busiest, kept),
            "value_index": lambda: ValueIndex(kept[0].lineage),
        }, repeat)
        first = ms(median(times["first_open"]))
        anchor = None
        if node_path() is not None:  # for scale on a shared machine: Node's read and parse
            anchor = ms(median([v8_read_and_parse(corpus_path(name)) for _ in range(repeat)]))
        results[name] = {
            "bytes": len(data), "repeat": repeat, "busiest_key_writes":
                len(kept[0].lineage.log.writes_by_key[busiest]),
            "first_open_ms": first, "another_key_ms": ms(median(times["another_key"])),
            "value_index_ms": ms(median(times["value_index"])),
            "v8_read_parse_ms": anchor if anchor is not None else MISSING,
            "target_ms": PANEL_TARGET_MS, "met": first <= PANEL_TARGET_MS,
        }
    return results


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if not a.startswith("--")]
    rounds = int(arguments[0]) if arguments else 7
    report = {} if "--panel" in sys.argv else {"slice": measure_slice(rounds)}
    report["panel"] = measure_panel(rounds)
    print(json.dumps(report, indent=2))

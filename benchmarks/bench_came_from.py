"""#37 item 4: what naming the stages an answer came from adds to the first screen.

    python -m benchmarks.bench_came_from [--repeat N]

The first screen's model (``lens.first_screen``) from a file's bytes, as the
app builds it on open: the run opened, its likely causes, the top ones placed.
Side by side in the same rounds, alternated, per recording:

- ``without``: the first screen with no ``came_from_of`` (before #37 item 4);
- ``with``: the same asking ``came_from`` of the shown causes, as the app does:
  the commit log is read (the file parsed again), its value index and stage
  places built, only when a shown cause rests on an answer;
- ``forced``: the lineage work alone (``lineage_of`` from the bytes, the value
  index, the stage places, ``came_from``) for the run's last final answer, as
  if its top cause rested on it: the most the line can cost on that file;
  and its parts alone, ``lineage_of`` (the file parsed again), ``value_index``
  and ``stage_places`` (the app keeps all three with the run, so Where from?
  and the served context's entries then cost nothing more).

Recordings: the largest corpus recording and the largest family recording
(both have a snapshot commit log), and a family whose top cause rests on the
answer (ops-analyst: the answer is not grounded).
"""

from __future__ import annotations

import argparse
import json

from benchmarks.inputs import corpus_bytes
from benchmarks.machine import machine
from benchmarks.timing import median, ms, side_by_side
from tests.corpus_files import read_bytes
from tests.family_files import family_recording

RECORDINGS = (("corpus", "large-agent-300-tool-calls"),
              ("family", "chargeback-procedure-skip-and-approval"),
              ("family", "ops-analyst-code-sessions-teardown-failed"))


def _bytes(kind: str, name: str) -> bytes:
    return corpus_bytes(name) if kind == "corpus" else read_bytes(family_recording(name))


def _first_screen(data: bytes, with_came_from: bool):
    from lens.cause_lineage import came_from, quotes_answer
    from lens.evidence.causes import likely_causes
    from lens.first_screen import first_screen, run_ending
    from lens.lineage_view import StagePlaces, lineage_of
    from lens.run import DEFAULT_PROFILE, open_run
    from lens.scopes import ROOT
    from lens.value_keys import ValueIndex

    run = open_run(data)
    route = run.projection(DEFAULT_PROFILE).route
    causes = likely_causes(run.evidence, run.step_map(DEFAULT_PROFILE, ROOT),
                           hops=route.get_hops(), trips=route.get_trips(),
                           gaps=run.recording.gaps)
    kept: dict = {}

    def came_from_of(cause):
        if not quotes_answer(cause):
            return None
        if not kept:  # once per run, as the app keeps them with the run
            lineage = lineage_of(data)
            kept["lineage"] = lineage
            kept["values"] = None if lineage is None else ValueIndex(lineage.lineage)
            kept["places"] = None if lineage is None else StagePlaces(run, DEFAULT_PROFILE)
        return came_from(cause, run.evidence, kept["lineage"], kept["values"], kept["places"])

    return first_screen(run_ending(run), causes,
                        lambda step: run.place(DEFAULT_PROFILE, ROOT, step),
                        run.recording.complete, len(run.recording.gaps),
                        came_from_of if with_came_from else None), run


def _forced(data: bytes, run) -> object:
    from lens.cause_lineage import came_from
    from lens.evidence.cause_record import WARNING, LikelyCause
    from lens.lineage_view import StagePlaces, lineage_of
    from lens.run import DEFAULT_PROFILE
    from lens.value_keys import ValueIndex

    answers = [call.id for call in run.evidence.calls if call.is_final_answer]
    cause = LikelyCause("benchmark", WARNING, "", "", None, None, answer_call=answers[-1])
    lineage = lineage_of(data)
    return came_from(cause, run.evidence, lineage, ValueIndex(lineage.lineage),
                     StagePlaces(run, DEFAULT_PROFILE))


def measure(repeat: int) -> dict:
    results = {}
    for kind, name in RECORDINGS:
        data = _bytes(kind, name)
        from lens.lineage_view import StagePlaces, lineage_of
        from lens.value_keys import ValueIndex

        screen, run = _first_screen(data, True)
        lineage = lineage_of(data)
        times = side_by_side({"without": lambda: _first_screen(data, False),
                              "with": lambda: _first_screen(data, True),
                              "forced": lambda: _forced(data, run),
                              "lineage_of": lambda: lineage_of(data),
                              "value_index": lambda: ValueIndex(lineage.lineage),
                              "stage_places": lambda: StagePlaces(run)}, repeat)
        results[name] = {
            "bytes": len(data), "repeat": repeat,
            "line_shown": any(cause.came_from is not None for cause in screen.causes),
            "without_ms": ms(median(times["without"])), "with_ms": ms(median(times["with"])),
            "forced_ms": ms(median(times["forced"])),
            "parts_ms": {part: ms(median(times[part]))
                         for part in ("lineage_of", "value_index", "stage_places")},
        }
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    print(json.dumps({"machine": machine(), "came_from": measure(args.repeat)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

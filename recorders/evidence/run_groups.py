"""Which typed run ids are one run, and so how many runs a typed stream holds.

agentfootprint stamps every typed event with ``meta.runId``, but an id is not
always a run of its own:

- ``consumer-scope`` is the application's own door (``runner.emit``, and the
  ``pause.*`` events): never a run.
- ``runner.resume(...)`` mints a new id for the same run: an id that first
  appears after a ``pause.resume`` continues the run that paused.
- an id whose first event sits inside a composition (``compositionPath`` of
  more than one part) is an inner runner's, run by the composition of the run
  before it.

Anything else that brings a new id (``runner.run`` called again) is a new run,
as in ``multirun-agent-two-runs``. :func:`run_groups` gives each run's ids in
the order they appear; the boundary log, and so the steps, describe the last
(every part of it: in the recordings, the boundary log of a file of several
runs holds the last one only, while a resumed run's holds each part, opened by
a ``run.entry`` of its own).

Owns: that grouping, in one pass over the events. Does not own: splitting a
file into the runs the loader hands out (``recorders/loading.py``), or what a
run's facts are (``lens/run_facts.py``).
"""

from __future__ import annotations

from typing import Any, Iterable

from recorders.catalogue import PAUSE_RESUME
from recorders.evidence.records import CONSUMER_SCOPE


def run_groups(typed_events: Iterable[Any]) -> tuple[tuple[str, ...], ...]:
    """Each run's run ids, runs and ids in order of first appearance."""
    return run_grouping(typed_events)[0]


def resumed_run_ids(typed_events: Iterable[Any]) -> frozenset[str]:
    """The run ids that joined their run because a ``pause.resume`` came
    before them: each names the part of a run after a person answered."""
    return run_grouping(typed_events)[1]


def parts_of_run(typed_events: Iterable[Any], run_id: Any) -> tuple[str, ...]:
    """The run ids of the parts of the run that ``run_id`` is a part of, when
    it was paused and resumed (every id of its run, in order); else
    ``(run_id,)`` alone (a composition's inner runner stays its own id)."""
    groups, by_resume = run_grouping(typed_events)
    for group in groups:
        if run_id in group:
            return group if any(r in by_resume for r in group) else (run_id,)
    return (run_id,) if isinstance(run_id, str) else ()


def resumes_of_last_run(typed_events: Iterable[Any]) -> int:
    """How many times the last run (the one the boundary log holds) was
    resumed: each resume opens one more part, with a ``run.entry`` of its own
    in the boundary log, of the same run."""
    groups, by_resume = run_grouping(typed_events)
    return sum(1 for r in groups[-1] if r in by_resume) if groups else 0


def run_grouping(typed_events: Iterable[Any]) -> tuple[tuple[tuple[str, ...], ...], frozenset[str]]:
    """The one pass: (each run's ids, as :func:`run_groups`; the ids that a
    resume joined to a run, as :func:`resumed_run_ids`), for a caller that
    needs both."""
    groups: list[list[str]] = []
    seen: set[str] = set()
    by_resume: set[str] = set()
    resumed = False  # a pause.resume since the last event of a run
    for event in typed_events:
        if not isinstance(event, dict):
            continue
        if event.get("type") == PAUSE_RESUME:
            resumed = True
        meta = event.get("meta")
        run_id = meta.get("runId") if isinstance(meta, dict) else None
        if not isinstance(run_id, str) or run_id == CONSUMER_SCOPE:
            continue
        if run_id in seen:
            resumed = False
            continue
        seen.add(run_id)
        if groups and (resumed or _inside_a_composition(meta)):
            groups[-1].append(run_id)
            if resumed:
                by_resume.add(run_id)
        else:
            groups.append([run_id])
        resumed = False
    return tuple(tuple(group) for group in groups), frozenset(by_resume)


def _inside_a_composition(meta: dict) -> bool:
    path = meta.get("compositionPath")
    return isinstance(path, list) and len(path) > 1

"""``footprint-lens info FILE``: what the loader found, and the run's facts.

The loader's report (:func:`recorders.cli.info_report`, which ``python -m
recorders info`` prints as it is) gains what Lens knows of the run once it is
open (:class:`lens.run_facts.RunFacts`): ``runId``, ``runsInFile`` (the
distinct runs the file holds, a composition's inner runners and a resumed run
not counted again), ``agent`` and ``outcome``:
``{ended, kind, sentence, answer, step}``, where ``step`` is ``{path, index}``
as the likely causes name theirs (``footprint-lens causes``), or null.

Owns: those keys and their wire shape. Does not own: the loader's report,
the facts (:mod:`lens.run_facts`), or bad input (:func:`recorders.cli.guarded`).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from recorders.profiles import DEFAULT_PROFILE

if TYPE_CHECKING:
    from lens.evidence.outcome import RunOutcome
    from lens.run import OpenRun

NAME = "info"
# Said for a file with no run written in it yet (an event stream before its first flush).
NOTHING_WRITTEN_SENTENCE = "Nothing of the run is written in the file yet."


def run(args: argparse.Namespace) -> dict[str, Any]:
    # Imported here, so that ``footprint-lens``'s other commands start without them.
    from recorders import cli as recorder_cli
    from recorders.loading import load_path_file
    from lens.run import OpenRun
    from lens.run_facts import runs_held

    loaded = load_path_file(args.file)
    if not loaded.runs and args.run is None:
        report = recorder_cli.empty_file_report(loaded)
        report["outcome"] = {"ended": "unfinished", "kind": None,
                             "sentence": NOTHING_WRITTEN_SENTENCE, "answer": None, "step": None}
        return report
    recording = recorder_cli.chosen_run(loaded, args.run)
    report = recorder_cli.info_report(recording, loaded)
    open_run = OpenRun(recording, runs_in_file=runs_held(loaded.runs))
    facts = open_run.facts
    report["runId"] = facts.run_id
    report["runsInFile"] = facts.runs_in_file
    report["agent"] = facts.agent
    report["outcome"] = outcome_to_wire(facts.outcome, open_run)
    return report


def outcome_to_wire(outcome: RunOutcome, run: OpenRun) -> dict[str, Any]:
    """The outcome as JSON; its step is placed in the default profile's root
    steps, which ``outcome.nav`` indexes (:attr:`lens.run.OpenRun.facts`)."""
    return {"ended": outcome.ended, "kind": outcome.kind, "sentence": outcome.sentence,
            "answer": outcome.answer, "step": step_to_wire(run, outcome)}


def step_to_wire(run: OpenRun, outcome: RunOutcome) -> dict[str, Any] | None:
    from lens.scopes import ROOT

    nav = outcome.nav
    if nav is None or nav.step is None:
        return None
    place = run.place(DEFAULT_PROFILE, ROOT, nav.step)
    return None if place is None else {"path": list(place.path), "index": place.index}

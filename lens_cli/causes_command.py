"""``footprint-lens causes FILE``: the run's likely causes as JSON, most likely first.

Each cause is ``{kind, severity, subject, headline, why, detail?, events, step}``
(``subject``: what it is about, as recorded, or null):
``events`` are typed indices (positions in the recording's ``events``) the
cause rests on; ``step`` is ``{path, index}``, the scope (its subflow path
from ``__root__``) and the position in that scope's steps that shows it, as
the app's drill and step links name a step, or null when no step shows it,
and then ``no_step`` says why in words (the part of a resumed run before its
pause has no steps, say).
A cause that rests on an answer (the answer is not grounded, it repeats a
contradicted memory) also has ``came_from``: the stages whose writes made
that answer, from the snapshot's commit log, in run order, each
``{stage, runtime_stage_id, step}`` (``step`` as above, or null), with
``came_from_key`` (the state key traced, or null) and ``came_from_note``
(what the recording cannot say, or null; the list is empty when it cannot
say at all). The commit log is read only when such a cause is listed.

Owns: the command's arguments and its wire shape. Does not own: finding or
ranking the causes (:mod:`lens.evidence.causes`), placing steps
(:mod:`lens.step_places`), or reading the file (the loader; bad input is
reported by :func:`recorders.cli.guarded`).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from recorders.profiles import DEFAULT_PROFILE, PROFILES

if TYPE_CHECKING:
    from lens.evidence.causes import LikelyCause
    from lens.run import OpenRun

NAME = "causes"
HELP = "the run's likely causes as JSON, most likely first"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a recording or envelope (.json or .json.gz)")
    parser.add_argument("--profile", choices=PROFILES, default=DEFAULT_PROFILE,
                        help="the projection whose steps the causes link to")


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    # Imported here, so that ``footprint-lens``'s other commands start without them.
    from recorders.loading import load_path, read_path
    from lens.cause_lineage import CameFromOfFile, quotes_answer
    from lens.evidence.causes import likely_causes
    from lens.run import OpenRun
    from lens.scopes import ROOT

    run_ = OpenRun(load_path(args.file))
    route = run_.projection(args.profile).route
    causes = likely_causes(run_.evidence, run_.step_map(args.profile, ROOT),
                           hops=route.get_hops(), trips=route.get_trips(),
                           gaps=run_.recording.gaps)
    wires = [cause_to_wire(cause, run_, args.profile, ROOT) for cause in causes]
    if any(quotes_answer(cause) for cause in causes):
        # The loader keeps no commit log: the file is read again, only now.
        came_from_of = CameFromOfFile(run_, read_path(args.file), args.profile)
        for cause, wire in zip(causes, wires):
            came = came_from_of(cause)
            if came is not None:
                wire.update(came_from_to_wire(came))
    return wires


def came_from_to_wire(came: Any) -> dict[str, Any]:
    """A cause's ``came_from``, ``came_from_key`` and ``came_from_note``."""
    return {"came_from": [{"stage": stage.stage_name, "runtime_stage_id": stage.runtime_stage_id,
                           "step": None if stage.place is None else
                           {"path": list(stage.place.path), "index": stage.place.index}}
                          for stage in came.stages],
            "came_from_key": came.key, "came_from_note": came.note}


def cause_to_wire(cause: LikelyCause, run: OpenRun, profile: str,
                  scope: tuple[str, ...]) -> dict[str, Any]:
    """One cause as JSON; ``scope`` is the scope whose step list its link indexes."""
    wire: dict[str, Any] = {"kind": cause.kind, "severity": cause.severity,
                            "subject": cause.subject, "headline": cause.headline,
                            "why": cause.why}
    if cause.detail is not None:
        wire["detail"] = cause.detail.full
    wire["events"] = list(cause.events)
    place = None
    if cause.nav is not None and cause.nav.step is not None:
        place = run.place(profile, scope, cause.nav.step)
    wire["step"] = None if place is None else {"path": list(place.path), "index": place.index}
    if place is None:
        nav = cause.nav
        wire["no_step"] = (nav.why_no_step if nav is not None and nav.why_no_step
                           else "no step shows it")
    return wire

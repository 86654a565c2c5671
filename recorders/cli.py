"""The recorders' commands: ``info``, ``steps`` and ``route`` over one file.

``python -m recorders`` runs exactly these; ``footprint-lens`` (``lens_cli/main.py``)
offers them beside its own. JSON goes to stdout in the reference wire format.
Bad input exits with status 2 and one line on stderr naming the problem;
never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Sequence

from recorders.audit import chain_record_counts
from recorders.errors import RecordingError
from recorders.profiles import DEFAULT_PROFILE, PROFILES
from recorders.values import decode_path

if TYPE_CHECKING:
    from recorders.loading import LoadedFile, Recording

EXIT_BAD_INPUT = 2


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line with status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


class UsageError(Exception):
    """A command line that asks for something impossible; one line, status 2."""


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``steps``, ``route`` and ``info`` to a parser's subcommands."""
    steps = commands.add_parser("steps", help="RunSteps as {rootKind, steps}")
    steps.add_argument("file")
    steps.add_argument("--drill", default=None,
                       help="subflow path to scope to, its ids joined with '/', e.g. "
                            "__root__/a/b; a '/' inside an id is written %%2F and a '%%' "
                            "%%25, as in the app's drill= links (__root__/a%%2Fb is the "
                            "subflow called 'a/b')")
    steps.add_argument("--raw", action="store_true",
                       help="every stored step, before the leaf/composition filter")
    steps.add_argument("--per-event", action="store_true",
                       help="ingest one boundary event at a time (no fork coalescing)")
    steps.add_argument("--profile", choices=PROFILES, default=DEFAULT_PROFILE)

    route = commands.add_parser("route", help="skill route as {path, hops, rejections, trips}")
    route.add_argument("file")
    route.add_argument("--profile", choices=PROFILES, default=DEFAULT_PROFILE)

    info = commands.add_parser("info", help="what the loader found in the file")
    info.add_argument("file")
    for command in (steps, route, info):
        command.add_argument("--run", type=int, default=None, metavar="N",
                             help="the Nth run of a file that holds several (an event "
                                  "stream, a bug report); the first by default")


COMMANDS = ("steps", "route", "info")


def run_command(args: argparse.Namespace) -> Any:
    """The JSON output of one of :data:`COMMANDS` (raises RecordingError, UsageError)."""
    # Imported here: the other commands of ``footprint-lens`` (e.g. ``archive``)
    # start without the loader and the projections.
    from recorders.loading import load_path_file

    loaded = load_path_file(args.file)
    if args.command == "info" and not loaded.runs and args.run is None:
        return empty_file_report(loaded)  # a stream with nothing written yet: not an error
    recording = chosen_run(loaded, getattr(args, "run", None))
    if args.command == "steps":
        return _steps(recording, args)
    if args.command == "route":
        return _route(recording, args.profile)
    return info_report(recording, loaded)


def chosen_run(loaded: LoadedFile, number: int | None) -> Recording:
    """Run ``number`` (from 1) of the file, or its first (with a gap saying
    there are more). UsageError for a number the file does not hold."""
    from recorders.loading import first_run

    if number is None:
        return first_run(loaded)
    count = len(loaded.runs)
    if not 1 <= number <= count:
        held = f"holds {count} run{'s' if count != 1 else ''}" if count else "holds no run yet"
        raise UsageError(f"--run {number}: the file {held}")
    return loaded.runs[number - 1]


def main(argv: Sequence[str] | None = None, prog: str = "python -m recorders") -> int:
    parser = ArgumentParser(prog=prog, description="Project an agentfootprint recording.")
    add_commands(parser.add_subparsers(dest="command", required=True))
    return guarded(lambda: run_command(parser.parse_args(argv)))


def guarded(work: Callable[[], Any]) -> int:
    """Run a command and print its JSON; bad input is one line on stderr and
    status 2, never a traceback. A command that prints its own output returns
    an int, which becomes the exit status."""
    try:
        output = work()
    except (RecordingError, UsageError) as exc:
        print(one_line(str(exc)), file=sys.stderr)
        return EXIT_BAD_INPUT
    except RecursionError:
        print("the recording is nested too deeply to process", file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(output, int) and not isinstance(output, bool):
        return output
    write_json(output)
    return 0


def write_json(output: Any) -> None:
    """``output`` as indented JSON on stdout, in UTF-8 (``→``, not ``\\u2192``)."""
    write_utf8(json.dumps(output, indent=2, ensure_ascii=False) + "\n")


def write_utf8(text: str) -> bool:
    """``text`` on stdout as UTF-8 whatever the terminal's locale says; a lone
    surrogate a recording carried is written as its JSON escape (``\\ud800``),
    so the bytes stay valid UTF-8 and valid JSON. False when the reader went
    away, which is no error."""
    data = text.encode("utf-8", "backslashreplace")
    try:
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:  # a text-only stream (a test's StringIO)
            sys.stdout.write(data.decode("utf-8"))
        else:
            sys.stdout.flush()  # what was printed before goes first
            buffer.write(data)
            buffer.flush()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader (e.g. `head`) went away; that is not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return False
    return True


def _steps(recording: Recording, args: argparse.Namespace) -> dict[str, Any]:
    if args.per_event and args.profile != "reference":
        raise UsageError("--per-event replays the reference recorder; add --profile reference")
    from recorders.projections import build_projection

    projection = build_projection(recording, args.profile, per_event=args.per_event)
    if args.raw:
        steps = projection.steps.raw_steps()
    else:
        drill = [s for s in decode_path(args.drill) if s] if args.drill else None
        steps = projection.get_steps(drill)
    output: dict[str, Any] = {"rootKind": projection.root_kind,
                              "steps": [s.to_wire() for s in steps]}
    notes = list(projection.notes)
    if not recording.has_boundary_log:
        # Whatever the file's kind (a recording without BoundaryEvents, an event
        # stream, a bug report's recording): say why there are no steps.
        notes += [gap.message for gap in recording.gaps if gap.code == "no-boundary-log"]
    if notes:
        output["notes"] = notes
    return output


def _route(recording: Recording, profile: str) -> dict[str, Any]:
    from recorders.projections import build_projection

    projection = build_projection(recording, profile)
    output = projection.route.to_wire()
    if projection.notes:
        output["notes"] = list(projection.notes)
    return output


def info_report(recording: Recording, loaded: LoadedFile | None = None) -> dict[str, Any]:
    """What the loader found, for people and scripts alike; ``loaded``, the
    file it came from, adds how many runs it holds, what it says as a whole and
    a bug report's fields."""
    producer = recording.producer or {}
    typed_counts = recording.typed_counts
    chain_facts: dict[str, Any] = {}
    if recording.audit is not None:
        # The chain's genesis record is the bundle's, not a framework event:
        # said under its own key, so nothing is dropped from the counts.
        typed_counts, chain_records = chain_record_counts(typed_counts)
        if chain_records:
            chain_facts["auditChainRecordsByType"] = chain_records
    file_facts: dict[str, Any] = {}
    if loaded is not None:
        file_facts["runsInFile"] = len(loaded.runs)
        if loaded.notes:
            file_facts["fileNotes"] = list(loaded.notes)
        if loaded.report is not None:
            file_facts["report"] = loaded.report
    return {
        "sourceKind": recording.source_kind,
        **file_facts,
        "format": recording.envelope_format,
        "producer": {
            "agentfootprintVersion": producer.get("agentfootprintVersion"),
            "footprintjsVersion": producer.get("footprintjsVersion"),
        },
        "run": recording.run_info,
        "typedEvents": sum(typed_counts.values()),
        "typedEventsByType": typed_counts,
        **chain_facts,
        "boundaryEvents": len(recording.boundary_events),
        "boundaryEventsByType": recording.boundary_counts,
        "boundaryMode": recording.boundary_mode,
        "typedRunIds": recording.typed_run_ids,
        "engineRunId": recording.snapshot_run_id,
        "complete": recording.complete,
        "lean": recording.is_lean,
        "droppedEvents": recording.dropped_events,
        "unknownTypes": {**recording.unknown_typed_types, **recording.unknown_boundary_types},
        "structurePresent": recording.structure is not None,
        "gaps": [{"code": g.code, "message": g.message} for g in recording.gaps],
        **({"audit": recording.audit.to_wire()} if recording.audit is not None else {}),
    }


def empty_file_report(loaded: LoadedFile) -> dict[str, Any]:
    """``info`` of a file with no run in it yet (an event stream before its
    first flush): its kind, no events, and what that means."""
    return {"sourceKind": loaded.kind, "runsInFile": 0, "fileNotes": list(loaded.notes),
            "typedEvents": 0, "boundaryEvents": 0, "gaps": []}


def one_line(message: str) -> str:
    return " ".join(message.split()) or "the recording could not be read"

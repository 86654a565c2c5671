"""``footprint-lens``: Lens for terminals and CI.

Subcommands:

- ``info``, ``steps``, ``route``: one recording, as ``python -m recorders``
  prints them (:mod:`recorders.cli`); ``info`` adds the run's facts and how it
  ended (:mod:`lens_cli.info_command`).
- ``causes FILE``: the run's likely causes as JSON, most likely first
  (:mod:`lens_cli.causes_command`).
- ``compare A B``: where two runs part and what the model was served
  differently (:mod:`lens_cli.compare_command`).
- ``archive index|runs|sql``: index a folder of saved runs and query it
  (:mod:`archive.commands`).
- ``export recording|…``: a run written for someone else, redacted on request
  (:mod:`lens_cli.export_command`).
- ``follow FILE``: a run while it is written, one JSON line per change
  (:mod:`lens_cli.follow_command`).
- ``slice FILE [KEY]``: where each state value came from and what it fed,
  from the snapshot's commit log (:mod:`lens_cli.slice_command`).
- ``view [FILE|DIR]``: the app, started from the installed package
  (:mod:`lens_cli.view_command`).

Each further command registers itself in :data:`COMMANDS` with a function
that adds its arguments and one that runs it. Output is JSON on stdout unless
a command says otherwise; bad input exits with status 2 and one line on
stderr naming the file and the problem, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from recorders import cli as recorder_cli
from lens_cli import (causes_command, compare_command, export_command, follow_command,
                      info_command, slice_command, view_command)
from archive import commands as archive_commands

PROG = "footprint-lens"


@dataclass(frozen=True)
class Command:
    """One subcommand: how it reads its arguments, and what it does."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], Any]  # JSON-able output, or an exit status


COMMANDS: list[Command] = [
    Command(causes_command.NAME, causes_command.HELP, causes_command.add_arguments,
            causes_command.run),
    Command("compare", "where two runs part, and what the model was served differently",
            compare_command.add_arguments, compare_command.run),
    Command(archive_commands.NAME, archive_commands.HELP, archive_commands.add_arguments,
            archive_commands.run),
    Command(export_command.NAME, export_command.HELP, export_command.add_arguments,
            export_command.run),
    Command(follow_command.NAME, follow_command.HELP, follow_command.add_arguments,
            follow_command.run),
    Command(slice_command.NAME, slice_command.HELP, slice_command.add_arguments,
            slice_command.run),
    Command(view_command.NAME, view_command.HELP, view_command.add_arguments,
            view_command.run),
]


def parser() -> argparse.ArgumentParser:
    top = recorder_cli.ArgumentParser(
        prog=PROG, description="Lens: scrub, compare and index recordings of agentfootprint runs.")
    commands = top.add_subparsers(dest="command", required=True)
    recorder_cli.add_commands(commands)
    for command in COMMANDS:
        command.add_arguments(commands.add_parser(command.name, help=command.help))
    return top


def main(argv: Sequence[str] | None = None) -> int:
    def work() -> Any:
        args = parser().parse_args(argv)
        if args.command == info_command.NAME:  # the loader's report and the run's facts
            return info_command.run(args)
        if args.command in recorder_cli.COMMANDS:
            return recorder_cli.run_command(args)
        return next(c for c in COMMANDS if c.name == args.command).run(args)

    return recorder_cli.guarded(work)


def entry_point() -> None:
    """The console script."""
    sys.exit(main())

"""``footprint-lens export KIND FILE -o OUT``: a run written for someone else.

Kinds (:data:`EXPORTS`, one row each):

- ``recording``: the recording in its input's own format
  (:mod:`lens.share.recording_export`); without ``--redact`` a faithful copy.
- ``html``: one self-contained page of the run (:mod:`lens.export_html`).
- ``otlp``: the run as OpenTelemetry spans (:mod:`lens.export_otlp`).

Every kind takes the same redaction options (:func:`add_redaction_arguments`):
``--redact`` masks keys and tokens, e-mail addresses, card numbers and phone
numbers; ``--redact-pattern REGEX`` (repeatable) and ``--redact-patterns FILE``
(one regex per line, ``#`` comments) mask what the user names, and alone mask
only that. What was masked is said on stderr as counts by kind, never the
values. The output is the file named by ``-o``; nothing is printed on stdout.
A bad pattern or a bad input exits with status 2 and one line on stderr.

Adding a kind: write a module with ``add_arguments(parser)`` (its own options
beyond FILE, ``-o`` and the redaction ones; may do nothing) and
``run(args, redactor) -> int`` (``redactor`` is None without redaction
options; 0 on success), and add one :class:`ExportKind` row to
:data:`EXPORTS`. Keep heavy imports inside ``run``: every ``footprint-lens``
command builds this parser.
"""

from __future__ import annotations

import argparse
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from recorders.cli import UsageError

if TYPE_CHECKING:
    from lens.share.redaction import Redactor

NAME = "export"
HELP = "write a run for someone else (recording, html, otlp), redacted on request"


@dataclass(frozen=True)
class ExportKind:
    """One ``export`` subcommand, implemented by ``module``
    (``add_arguments(parser)`` and ``run(args, redactor)``)."""

    name: str
    help: str
    module: str


EXPORTS: list[ExportKind] = [
    ExportKind("recording", "the recording in its own format (recording, envelope, gzipped "
               "or not, …), redacted on request; opens with the same steps",
               "lens.share.recording_export"),
    ExportKind("html", "one self-contained HTML page of the run that opens from disk with "
               "no server and no network", "lens.export_html"),
    ExportKind("otlp", "the run as OpenTelemetry spans (OTLP/JSON, GenAI conventions) for a "
               "tracing tool; contents only with --content", "lens.export_otlp"),
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    kinds = parser.add_subparsers(dest="export_kind", required=True)
    for kind in EXPORTS:
        sub = kinds.add_parser(kind.name, help=kind.help)
        sub.add_argument("file", help="the run: any file Lens opens (a recording or envelope, "
                                      "gzipped or not, an event stream, a Trace, a bug report…)")
        sub.add_argument("-o", "--output", required=True, metavar="OUT",
                         help="the file to write (replaced if it exists)")
        add_redaction_arguments(sub)
        importlib.import_module(kind.module).add_arguments(sub)


def add_redaction_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--redact", action="store_true",
                        help="mask API keys and tokens, e-mail addresses, card numbers and "
                             "phone numbers (the same mask for the same value)")
    parser.add_argument("--redact-pattern", action="append", default=[], metavar="REGEX",
                        help="also mask what this Python regular expression matches "
                             "(repeatable; alone, masks only the patterns given)")
    parser.add_argument("--redact-patterns", metavar="FILE",
                        help="a file of such patterns, one a line; blank lines and lines "
                             "starting with # are skipped")


def redactor_from_args(args: argparse.Namespace) -> Redactor | None:
    """The redactor the options ask for, or None when they ask for none
    (UsageError for an invalid pattern or an unreadable pattern file)."""
    from lens.share.redaction import Redactor, RedactionError, patterns_of

    try:
        patterns = patterns_of(args.redact_pattern, args.redact_patterns)
        if not args.redact and not patterns:
            return None
        return Redactor(patterns=patterns, builtin=args.redact)
    except RedactionError as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> Any:
    from lens.share.redaction import RedactionError

    kind = next(k for k in EXPORTS if k.name == args.export_kind)
    redactor = redactor_from_args(args)
    try:
        return importlib.import_module(kind.module).run(args, redactor)
    except RedactionError as exc:  # e.g. a pattern over its time budget
        raise UsageError(str(exc)) from None

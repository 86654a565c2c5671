"""``footprint-lens export otlp FILE -o OUT.json``: the run as OpenTelemetry spans.

Writes one OTLP/JSON document (``{"resourceSpans": [...]}``, the body an
OTLP/HTTP collector takes as JSON) built by :func:`lens.share.otlp.otlp_document`.
Message and tool contents are left out unless ``--content`` asks for them, as
the GenAI conventions make them opt-in. With redaction options the recording
is redacted first, as ``export recording`` writes it (every value the spans
are built from is then masked already), and every text of the document goes
through the redactor once more (names the recording keeps as they are, such
as tool names, are masked there when a pattern of the user's matches them).
Lines on stderr say what was written and what was masked (counts, no values).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lens.share.redaction import Redactor

HELP = ("the run as OpenTelemetry spans (OTLP/JSON, GenAI conventions) for a tracing tool: "
        "agents, model calls, tool calls and the framework's verdicts")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--content", action="store_true",
                        help="include message and tool contents (prompts, outputs, tool "
                             "arguments and results); left out by default")


def run(args: argparse.Namespace, redactor: Redactor | None) -> int:
    # Imported here, so that ``footprint-lens``'s other commands start without them.
    from recorders.loading import read_path
    from lens.run import open_run
    from lens.share.otlp import otlp_document
    from lens.share.recording_export import export_recording, write_atomically

    data = read_path(args.file)
    report = None
    if redactor is not None:
        exported = export_recording(data, redactor)
        data, report = exported.data, exported.report
    document = otlp_document(open_run(data), content=args.content, redactor=redactor)
    out = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    write_atomically(args.output, out)
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    print(f"wrote {args.output} ({len(spans):,} spans, {len(out):,} bytes"
          f"{', with contents' if args.content else ''})", file=sys.stderr)
    if report is not None:
        print(report.summary(), file=sys.stderr)
    return 0

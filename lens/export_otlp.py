"""``footprint-lens export otlp FILE -o OUT.json``: the run as OpenTelemetry spans.

Writes one OTLP/JSON document (``{"resourceSpans": [...]}``, the body an
OTLP/HTTP collector takes as JSON) built by :func:`lens.share.otlp.otlp_document`.
Message and tool contents are left out unless ``--content`` asks for them, as
the GenAI conventions make them opt-in; with redaction options every text of
the document is masked. One line on stderr says what was written.
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
    from recorders.loading import load_path
    from lens.run import OpenRun
    from lens.share.otlp import otlp_document
    from lens.share.recording_export import write_atomically

    document = otlp_document(OpenRun(load_path(args.file)), content=args.content,
                             redactor=redactor)
    data = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    write_atomically(args.output, data)
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    print(f"wrote {args.output} ({len(spans):,} spans, {len(data):,} bytes"
          f"{', with contents' if args.content else ''})", file=sys.stderr)
    return 0

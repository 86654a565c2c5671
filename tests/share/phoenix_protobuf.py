"""OTLP/JSON files to ``ExportTraceServiceRequest`` protobuf files, for Phoenix.

Run by the Phoenix venv's python (.ci/phoenix_venv installs opentelemetry-proto
there), never imported by the tests, so the project's own environment needs no
protobuf: ``python phoenix_protobuf.py IN.json OUT.pb [IN.json OUT.pb ...]``.
Phoenix takes OTLP/HTTP as protobuf only. OTLP/JSON writes ids as hex, where
protobuf's JSON mapping expects base64 for bytes: the ids are turned into bytes
first; any other field that is not OTLP makes the parse fail, naming it.
"""

import base64
import json
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def ids_as_bytes(value):
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ID_FIELDS and isinstance(item, str):
                value[key] = base64.b64encode(bytes.fromhex(item)).decode("ascii")
            else:
                ids_as_bytes(item)
    elif isinstance(value, list):
        for item in value:
            ids_as_bytes(item)
    return value


def main(paths):
    if not paths or len(paths) % 2:
        sys.exit("usage: phoenix_protobuf.py IN.json OUT.pb [IN.json OUT.pb ...]")
    for source, target in zip(paths[::2], paths[1::2]):
        with open(source, encoding="utf-8") as handle:
            document = ids_as_bytes(json.load(handle))
        request = json_format.ParseDict(document, ExportTraceServiceRequest())
        with open(target, "wb") as handle:
            handle.write(request.SerializeToString())


if __name__ == "__main__":
    main(sys.argv[1:])

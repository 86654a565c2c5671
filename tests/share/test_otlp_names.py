"""The OTLP export's attribute names have one home, ``lens/share/otlp_names.py``.

Every key the export writes, on any recording and with contents, is one of its
constants (or the explaining-field pattern it declares), and no other module
spells a tracing convention's name of its own, so a key cannot drift from the
vocabulary a reader of the export would look it up in.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from corpus_files import read_bytes
from lens.run import open_run
from lens.share import otlp_names
from lens.share.otlp import otlp_document
from recorded_calls import every_recording

REPO = Path(__file__).resolve().parents[2]
NAMED_KEYS = {value for name, value in vars(otlp_names).items()
              if name.isupper() and isinstance(value, str)}
EXPLAINING_FIELD = re.compile(
    re.escape(otlp_names.AGENTFOOTPRINT_EXPLAINING_FIELD)
    .replace(r"\{domain\}", "[a-z_]+").replace(r"\{field\}", "[a-z0-9_]+"))
# Name spaces of the conventions the export writes in; the home spells them.
CONVENTION_PREFIXES = ("gen_ai.", "openinference.")


def _keys(document: dict) -> set[str]:
    (resource,) = document["resourceSpans"]
    keys = {item["key"] for item in resource["resource"]["attributes"]}
    for span in resource["scopeSpans"][0]["spans"]:
        keys |= {item["key"] for item in span["attributes"]}
        for event in span.get("events", ()):
            keys |= {item["key"] for item in event["attributes"]}
    return keys


def test_every_key_the_export_writes_is_named_in_otlp_names():
    written: set[str] = set()
    for path in every_recording():
        written |= _keys(otlp_document(open_run(read_bytes(path)), content=True))
    unnamed = sorted(key for key in written
                     if key not in NAMED_KEYS and not EXPLAINING_FIELD.fullmatch(key))
    assert unnamed == []
    # The corpus exercises the conventions the module groups, not just a few keys.
    assert {otlp_names.GEN_AI_TOOL_CALL_ID, otlp_names.OPENINFERENCE_SPAN_KIND,
            otlp_names.SERVICE_NAME, otlp_names.AGENTFOOTPRINT_SCOPE_NAME} <= written


def test_no_other_module_spells_a_conventions_attribute_name():
    home = REPO / "lens" / "share" / "otlp_names.py"
    spelled = []
    for layer in ("lens", "lens_cli", "benchmarks"):
        for path in sorted((REPO / layer).rglob("*.py")):
            if path == home:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            spelled += [f"{path.relative_to(REPO)}:{node.lineno}: {node.value!r}"
                        for node in ast.walk(tree)
                        if isinstance(node, ast.Constant) and isinstance(node.value, str)
                        and node.value.startswith(CONVENTION_PREFIXES)]
    assert spelled == []

"""The file-kind registry (recorders/read/): one record per kind, asked in
order, and the kinds' modules below the loader (no import circle).

Also: a BoundaryRecorder replay's state (``commits`` and/or
``subflowResults``) with no boundary event log is refused by what it is."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from recorders.errors import RecordingError
from recorders.loading import load_file
from recorders.read import names
from recorders.read.not_runs import NotARun
from recorders.read.registry import (KINDS, READ_KINDS, bytes_kind, claimed_kind, document_kind,
                                     kind_label, kind_named, kind_words)

ROOT = Path(__file__).resolve().parents[2]
KIND_NAMES = {value for key, value in vars(names).items()
              if key.isupper() and isinstance(value, str)}


def test_every_kind_has_one_record_under_its_name():
    assert [kind.name for kind in KINDS] == list(dict.fromkeys(k.name for k in KINDS))
    assert {kind.name for kind in KINDS} == KIND_NAMES
    for kind in KINDS:
        assert kind_named(kind.name) is kind
        assert (kind.sniff is None) == (kind.read is None)
        assert (kind.sniff_bytes is None) == (kind.read_bytes is None)


def test_every_kind_is_described_for_a_person_in_its_own_record():
    labels, words = [kind.label for kind in KINDS], [kind.words for kind in KINDS]
    assert all(labels) and all(words)
    assert len(set(labels)) == len(set(words)) == len(KINDS)  # no two kinds said alike
    for kind in KINDS:
        assert kind_label(kind.name) == kind.label and kind_words(kind.name) == kind.words
        # A sentence's words: an article first; and no token wider than a sidebar line.
        assert kind.words.split()[0] in ("a", "an"), kind.words
        assert max(map(len, kind.words.split())) <= 28, kind.words
        assert kind.words in READ_KINDS  # the refusal names every kind by its words


def test_the_header_and_the_no_steps_sentence_take_the_kinds_words_from_the_registry():
    from lens.run import open_run
    from lens.summary import run_facts

    trace = ROOT / "tests/data/formats/trace/agent-tool/trace.json"
    run = open_run(trace.read_bytes())
    assert dict(run_facts(run.recording, run.evidence))["format"] == kind_named(names.TRACE).label
    header = (ROOT / "lens_ui" / "header.py").read_text()
    assert "kind_words(file.kind)" in header


# ─── No per-kind table outside recorders/read ─────────────────────────

# The layers above recorders/read that might keep a word, a set or a switch table per kind.
OUTSIDE_THE_KINDS = ("lens", "lens_ui", "lens_cli", "archive", "benchmarks", "recorders")
KIND_CONSTANTS = {key for key, value in vars(names).items() if key.isupper()}


def _kind_references(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names a module binds to recorders.read.names (``names``) and to its
    kind constants (``TRACE``), from its imports."""
    modules, constants = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "recorders.read":
            modules |= {a.asname or a.name for a in node.names if a.name == "names"}
        elif isinstance(node, ast.ImportFrom) and node.module == "recorders.read.names":
            constants |= {a.asname or a.name for a in node.names if a.name in KIND_CONSTANTS}
        elif isinstance(node, ast.Import):
            modules |= {a.asname for a in node.names
                        if a.name == "recorders.read.names" and a.asname}
    return modules, constants


def per_kind_tables(path: Path) -> list[str]:
    """Literals keyed by, or listing, the kinds: a dict with a kind as a key,
    or a set/list/tuple holding two kinds or more."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules, constants = _kind_references(tree)

    def is_kind(node: ast.AST | None) -> bool:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return node.value.id in modules and node.attr in KIND_CONSTANTS
        return isinstance(node, ast.Name) and node.id in constants

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            table = any(is_kind(key) for key in node.keys)
        elif isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            table = sum(1 for element in node.elts if is_kind(element)) >= 2
        else:
            continue
        if table:
            found.append((node.lineno, f"{path.relative_to(ROOT)}:{node.lineno}"))
    return [where for _, where in sorted(found)]


def test_no_module_outside_recorders_read_keeps_a_table_per_kind():
    kinds_home = ROOT / "recorders" / "read"
    found = [hit for layer in OUTSIDE_THE_KINDS for path in sorted((ROOT / layer).rglob("*.py"))
             if kinds_home not in path.parents for hit in per_kind_tables(path)]
    assert found == []


def test_the_table_check_finds_the_tables_it_looks_for():
    planted = ROOT / "tests" / "data" / "planted_kind_tables.py"
    assert per_kind_tables(planted) == [f"tests/data/planted_kind_tables.py:{line}"
                                        for line in (6, 7, 8)]


@pytest.mark.parametrize("document, kind", [
    ({"snapshot": {}, "events": []}, names.RECORDING),
    ({"format": "agentfootprint.recording.v1", "recording": {}}, names.ENVELOPE),
    ({"format": "agentfootprint.recording.packed.v1", "recording": {}, "values": []},
     names.PACKED),
    ([], names.BOUNDARY_LIST),
    ({"type": "agentfootprint.stream.llm_start", "payload": {}, "meta": {}}, names.EVENT_STREAM),
    ({"version": 1, "events": [], "redaction": "none"}, names.TRACE),
    ({"format": 1, "meta": {}, "payload": {}}, names.ARTIFACT_RECORDING),
], ids=lambda value: value if isinstance(value, str) else "")
def test_a_document_is_read_by_the_first_kind_that_claims_it(document, kind):
    assert document_kind(document).name == kind


def test_a_trace_is_not_taken_for_the_recording_its_events_look_like():
    # A Trace has "events" too: its record is asked before the recording's.
    order = [kind.name for kind in KINDS]
    assert order.index(names.TRACE) < order.index(names.RECORDING)
    assert order.index(names.AUDIT_BUNDLE) < order.index(names.ENVELOPE)
    assert order.index(names.PACKED) < order.index(names.ENVELOPE)


def test_bytes_kinds_are_sniffed_before_any_parse():
    assert bytes_kind(b"PK\x03\x04rest").name == names.BUG_REPORT
    line = json.dumps({"type": "agentfootprint.stream.llm_start", "payload": {}, "meta": {}})
    assert bytes_kind((line + "\n" + line + "\n").encode()).name == names.EVENT_STREAM
    assert bytes_kind(b'{"snapshot": {}, "events": []}') is None


@pytest.mark.parametrize("document, says", [
    ({"format": "agentfootprint.recording.v9", "recording": {}}, True),
    ({"header": {"format": "agentfootprint.audit/7"}, "records": []}, True),
    ([{"type": "run.entry"}], True),
    ({"version": 2, "events": [], "redaction": "none"}, True),
    ({"format": 3, "payload": {}}, True),
    ({"events": "nope"}, True),
    ({"name": "lens", "version": 1}, False),
    ({"format": "geojson"}, False),
    ([], False),
    ([1, 2], False),
    ("text", False),
], ids=repr)
def test_a_document_says_it_is_a_kind_by_the_registrys_records(document, says):
    # What the archive asks of a file the loader refused: report it, or pass it over.
    assert (claimed_kind(document) is not None) == says


def test_a_document_no_kind_reads_is_refused_naming_every_kind():
    with pytest.raises(RecordingError, match="expected one of the files Lens reads: .*; "
                                             "found an object with a, b"):
        document_kind({"a": 1, "b": 2})
    with pytest.raises(RecordingError, match="found a number"):
        document_kind(3)


# ─── A replay's state without events ───────────────────────────────────


@pytest.mark.parametrize("document, held", [
    ({"commits": [{"stageId": "seed", "updates": {"x": 1}}], "subflowResults": {}},
     "commits and subflowResults"),
    ({"commits": []}, "commits"),
    ({"subflowResults": {"sf-1": {"result": 2}}, "runId": "r-1"}, "subflowResults"),
], ids=["both", "commits", "subflow-results"])
def test_a_replays_state_without_events_is_refused_saying_what_it_is(document, held):
    with pytest.raises(NotARun) as refused:
        load_file(json.dumps(document).encode())
    message = str(refused.value)
    assert message.startswith(f"this holds a run's {held} (the state a BoundaryRecorder "
                              "replay reads) but no boundary event log")
    assert "open the run's recording, envelope, event stream, Trace or bug report" in message


def test_a_recording_beside_a_replays_state_still_opens():
    # With its events, the file is a recording: the state keys do not make it a refusal.
    loaded = load_file(json.dumps({"commits": [], "snapshot": {}, "events": []}).encode())
    assert loaded.kind == names.RECORDING


# ─── No import circle ──────────────────────────────────────────────────


def _imported(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    return modules


@pytest.mark.parametrize("path", sorted((ROOT / "recorders" / "read").glob("*.py"))
                         + [ROOT / "recorders" / name for name in
                            ("validation.py", "audit.py", "bug_report.py")],
                         ids=lambda path: f"{path.parent.name}/{path.name}")
def test_the_kinds_and_what_they_use_never_import_the_loader(path):
    assert "recorders.loading" not in _imported(path)

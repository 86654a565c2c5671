"""The event names have one home each, and the layers above the recorders use it.

The boundary log's names live in ``recorders/boundary_names.py``, the typed
stream's in ``recorders/catalogue.py``. A module that spells one of them as a
string of its own can drift from the home (a rename, a typo that silently
matches nothing), so the layers that read the recorders must not.
"""

from __future__ import annotations

import ast
from pathlib import Path

from recorders import boundary_names, catalogue
from recorders.event_types import KNOWN_BOUNDARY_TYPES

REPO = Path(__file__).resolve().parents[2]
# Every layer that reads the recorders' events, and the benchmarks that write them.
LAYERS_ABOVE_THE_RECORDERS = ("archive", "lens", "lens_cli", "lens_ui", "benchmarks")

# The BoundaryRecorder's DomainEvent types, spelled out here as the outside check.
BOUNDARY_RECORDER_TYPES = {
    "run.entry", "run.exit", "subflow.entry", "subflow.exit", "fork.branch",
    "decision.branch", "loop.iteration", "llm.start", "llm.end", "tool.start", "tool.end",
    "context.injected", "composition.start", "composition.end",
}


def test_the_boundary_names_are_the_boundary_recorders_types():
    assert boundary_names.ALL_NAMES == BOUNDARY_RECORDER_TYPES
    assert KNOWN_BOUNDARY_TYPES == BOUNDARY_RECORDER_TYPES
    assert boundary_names.RUN_ENTRY == "run.entry"
    assert boundary_names.LLM_START == "llm.start"
    # The two streams' model-call names differ: the constants must not be mixed up.
    assert boundary_names.LLM_START != catalogue.LLM_START


def _spelled_names(path: Path, names: frozenset[str]) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [f"{path.relative_to(REPO)}:{node.lineno}: {node.value!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value in names]


def test_no_layer_above_the_recorders_spells_an_event_name_of_its_own():
    names = boundary_names.ALL_NAMES | catalogue.ALL_NAMES
    spelled = [found for layer in LAYERS_ABOVE_THE_RECORDERS
               for path in sorted((REPO / layer).rglob("*.py"))
               for found in _spelled_names(path, names)]
    assert spelled == []


def test_inside_the_recorders_only_the_two_homes_spell_an_event_name():
    homes = {REPO / "recorders" / "boundary_names.py", REPO / "recorders" / "catalogue.py"}
    names = boundary_names.ALL_NAMES | catalogue.ALL_NAMES
    spelled = [found for path in sorted((REPO / "recorders").rglob("*.py"))
               if path not in homes for found in _spelled_names(path, names)]
    assert spelled == []

"""The boundary log's event names have one home, ``recorders/boundary_names.py``."""

from __future__ import annotations

from recorders import boundary_names, catalogue
from recorders.event_types import KNOWN_BOUNDARY_TYPES

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

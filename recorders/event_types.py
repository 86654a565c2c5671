"""Event type names this version knows, so anything else is counted as unknown.

Typed names are the agentfootprint 9.62 event registry, as the catalogue
(:mod:`recorders.catalogue`) declares them; boundary names are the
BoundaryRecorder's DomainEvent types. A name outside these sets is kept and
reported, never dropped.
"""

from recorders.catalogue import ALL_NAMES

# One source of truth: the catalogue declares every typed type (recorders/catalogue.py).
KNOWN_TYPED_TYPES: frozenset[str] = ALL_NAMES

KNOWN_BOUNDARY_TYPES: frozenset[str] = frozenset({
    "run.entry",
    "run.exit",
    "subflow.entry",
    "subflow.exit",
    "fork.branch",
    "decision.branch",
    "loop.iteration",
    "llm.start",
    "llm.end",
    "tool.start",
    "tool.end",
    "context.injected",
    "composition.start",
    "composition.end",
})

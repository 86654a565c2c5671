"""Event type names this version knows, so anything else is counted as unknown.

Typed names are the agentfootprint 9.62 event registry, as the catalogue
(:mod:`recorders.catalogue`) declares them; boundary names are the
BoundaryRecorder's DomainEvent types, as :mod:`recorders.boundary_names`
declares them. A name outside these sets is kept and reported, never dropped.
"""

from recorders import boundary_names, catalogue

# One source of truth each: the catalogue declares every typed type, and
# boundary_names every boundary type.
KNOWN_TYPED_TYPES: frozenset[str] = catalogue.ALL_NAMES

KNOWN_BOUNDARY_TYPES: frozenset[str] = boundary_names.ALL_NAMES

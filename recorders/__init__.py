"""Read, validate and replay recordings of agentfootprint runs; no UI.

The library surface::

    from recorders import load_path, build_projection
    recording = load_path("run.json.gz")          # or load_recording(bytes)
    steps = build_projection(recording, "lens").get_steps()

Everything else in this package is reachable by its module, but these names
are the ones other code (``lens``, the command line, notebooks) should use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Each public name and the module it lives in, imported on first use: a caller
# that needs one small part (a command line that only queries an archive)
# does not pay for the loader, the projections and the evidence index.
_HOMES = {
    "RecordingError": "recorders.errors",
    "EvidenceIndex": "recorders.evidence",
    "build_evidence_index": "recorders.evidence",
    "Gap": "recorders.gaps",
    "Recording": "recorders.loading",
    "load_path": "recorders.loading",
    "load_recording": "recorders.loading",
    "DEFAULT_PROFILE": "recorders.profiles",
    "PROFILES": "recorders.profiles",
    "Projection": "recorders.projections",
    "build_projection": "recorders.projections",
    "RunStep": "recorders.run_step",
}

if TYPE_CHECKING:
    from recorders.errors import RecordingError
    from recorders.evidence import EvidenceIndex, build_evidence_index
    from recorders.gaps import Gap
    from recorders.loading import Recording, load_path, load_recording
    from recorders.projections import DEFAULT_PROFILE, PROFILES, Projection, build_projection
    from recorders.run_step import RunStep


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'recorders' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_PROFILE",
    "EvidenceIndex",
    "Gap",
    "PROFILES",
    "Projection",
    "Recording",
    "RecordingError",
    "RunStep",
    "build_evidence_index",
    "build_projection",
    "load_path",
    "load_recording",
]

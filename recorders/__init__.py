"""Read, validate and replay recordings of agentfootprint runs; no UI.

The library surface::

    from recorders import load_path, build_projection
    recording = load_path("run.json.gz")          # or load_recording(bytes)
    steps = build_projection(recording, "lens").get_steps()

Everything else in this package is reachable by its module, but these names
are the ones other code (``lens``, the command line, notebooks) should use.
"""

from recorders.errors import RecordingError
from recorders.evidence import EvidenceIndex, build_evidence_index
from recorders.gaps import Gap
from recorders.loading import Recording, load_path, load_recording
from recorders.projections import DEFAULT_PROFILE, PROFILES, Projection, build_projection
from recorders.run_step import RunStep

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

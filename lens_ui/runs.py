"""Opening a run: bytes → Recording → projections, each built once and cached.

Everything is keyed by the sha256 of the file's bytes, computed once per
upload (or once per sample file) and carried in the session. The caches are
``st.cache_resource`` (shared, never copied): a Recording of a 16 MB file is
large, and the slider must only index into what was built.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from recorders import collector
from recorders.evidence import EvidenceIndex, build_evidence_index, recording_id
from recorders.loading import Recording, load_recording
from recorders.projections import PROFILES, Projection, build_projection
from recorders.run_step import RunStep
from lens.arrows import ArrowDiagram, build_arrow_diagram
from lens.scopes import ScopeIndex
from lens.step_evidence import StepEvidence
from lens.step_places import ScopedSteps, StepPlaces
from lens_ui.samples import sample_catalog

SAMPLE, UPLOAD = "sample", "upload"


@dataclass(frozen=True)
class RunChoice:
    """Which run is open: a sample by name, or an upload by digest."""

    kind: str  # SAMPLE | UPLOAD
    name: str  # the sample's name, or the uploaded file's name (untrusted)
    digest: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.name if self.kind == SAMPLE else self.digest}"

    @property
    def link_name(self) -> str | None:
        """What ``?run=`` may carry: samples only, an upload has no shareable name."""
        return self.name if self.kind == SAMPLE else None


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class LoadedRun:
    """An open run: its recording and evidence, and its projections on demand.

    ``evidence`` is the per-step event index behind the step detail;
    ``evidence_index`` (issue 5) is what each model call was served, said and
    asked for, behind the served-context, backtrack and search panels. Both are
    built once per recording, with the parse.
    """

    choice: RunChoice
    recording: Recording
    evidence: StepEvidence
    evidence_index: EvidenceIndex
    recording_id: str

    def _views(self, profile: str) -> tuple[Projection, ScopeIndex, StepPlaces]:
        return _projected(self.choice.digest, profile, self.recording)

    def projection(self, profile: str) -> Projection:
        return self._views(profile)[0]

    def scopes(self, profile: str) -> ScopeIndex:
        return self._views(profile)[1]

    def diagram(self, profile: str, path: tuple[str, ...]) -> ArrowDiagram:
        scopes = self.scopes(profile)
        scope = scopes.get(path) or scopes.root()
        return _diagram(self.choice.digest, profile, scope.path, scope.steps, scopes)

    def scoped_steps(self, profile: str, path: tuple[str, ...]) -> ScopedSteps:
        """The step list evidence links reach from scope ``path``: its own steps
        first, then every other scope's (see :mod:`lens.step_places`)."""
        return self._views(profile)[2].for_scope(tuple(path))

    def step_counts(self) -> dict[str, int]:
        """Steps at the root under each profile, for the reference switch."""
        return {profile: len(self.scopes(profile).root().steps) for profile in PROFILES}


def open_run(choice: RunChoice, data: bytes) -> LoadedRun:
    """Parse (or fetch from cache) and index a run. Raises RecordingError for a bad file."""
    recording, evidence, index, name = _parsed(choice.digest, data)
    return LoadedRun(choice, recording, evidence, index, name)


def sample_choice(name: str) -> tuple[RunChoice, bytes]:
    """The allow-listed sample ``name`` (a KeyError for any other name)."""
    path = sample_catalog()[name]
    digest, data = _sample_bytes(str(path))
    return RunChoice(SAMPLE, name, digest), data


def upload_choice(name: str, data: bytes) -> RunChoice:
    return RunChoice(UPLOAD, name, digest_of(data))


# ─── caches ────────────────────────────────────────────────────────────


@st.cache_resource(max_entries=32, show_spinner=False)
def _sample_bytes(path: str) -> tuple[str, bytes]:
    data = Path(path).read_bytes()
    return digest_of(data), data


# What these build lives as long as the cache keeps it: for a large file, out of
# the collector's walks (recorders/collector.py), and handed back when dropped.
@st.cache_resource(max_entries=4, show_spinner="Reading the recording…",
                   on_release=collector.released)
def _parsed(digest: str, _data: bytes) -> tuple[Recording, StepEvidence, EvidenceIndex, str]:
    recording = load_recording(_data)
    built = (recording, StepEvidence.build(recording), build_evidence_index(recording),
             recording_id(recording))
    collector.keep_built(recording.source_chars)
    return built


@st.cache_resource(max_entries=8, show_spinner="Projecting the run into steps…",
                   on_release=collector.released)
def _projected(digest: str, profile: str,
               _recording: Recording) -> tuple[Projection, ScopeIndex, StepPlaces]:
    projection = build_projection(_recording, profile)
    scopes = ScopeIndex.build(projection, projection.steps.raw_steps())
    built = projection, scopes, StepPlaces(scopes)
    collector.keep_built(_recording.source_chars)
    return built



@st.cache_resource(max_entries=64, show_spinner=False)
def _diagram(digest: str, profile: str, path: tuple[str, ...], _steps: tuple[RunStep, ...],
             _scopes: ScopeIndex) -> ArrowDiagram:
    return build_arrow_diagram(_steps, path, _scopes)

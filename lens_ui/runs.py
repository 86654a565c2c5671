"""Open runs for the app: :func:`lens.run.open_run` behind shared caches.

Everything is keyed by the sha256 of the file's bytes, computed once per
upload (or once per sample file) and carried in the session. The caches are
``st.cache_resource`` (shared, never copied): an open run of a 16 MB file is
large, and the slider must only index into what was built. The run itself is
``lens.run.OpenRun``; what depends on the scope on screen (its step list and
diagram) is kept here per (digest, profile, scope), so a slider move only
looks things up.

The collector policy (``lens_ui/collector.py``) is applied here, where runs
are kept: a large open run and its views are frozen once built.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from recorders.projections import PROFILES, Projection
from lens.arrows import ArrowDiagram
from lens.run import OpenRun, ProfileViews, open_run as open_run_bytes
from lens.scopes import ScopeIndex
from lens.step_places import ScopedSteps
from lens_ui import collector
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


@dataclass(frozen=True)
class LoadedRun:
    """The open run as the pages see it: which run was chosen, and the run.

    A thin handle: every view is the shared :class:`lens.run.OpenRun`'s, and
    what depends on the scope on screen comes from this module's caches.
    """

    choice: RunChoice
    run: OpenRun

    @property
    def recording(self):
        return self.run.recording

    @property
    def evidence_index(self):
        """Built when a view first reads it (not on open), then kept out of the
        collector's walks as the open run is."""
        if self.run.has_evidence():
            return self.run.evidence
        with st.spinner("Indexing the evidence…"):
            index = self.run.evidence
        collector.keep_built(self.run.recording.source_chars)
        return index

    @property
    def evidence(self):
        return self.run.step_evidence

    @property
    def recording_id(self) -> str:
        return self.run.run_id

    def projection(self, profile: str) -> Projection:
        return _views(self.choice.digest, profile, self.run).projection

    def scopes(self, profile: str) -> ScopeIndex:
        return _views(self.choice.digest, profile, self.run).scopes

    def diagram(self, profile: str, path: tuple[str, ...]) -> ArrowDiagram:
        scope = self.run.scope(profile, path)
        return _diagram(self.choice.digest, profile, scope.path, self.run)

    def scoped_steps(self, profile: str, path: tuple[str, ...]) -> ScopedSteps:
        """The step list evidence links reach from scope ``path``: its own steps
        first, then every other scope's (see :mod:`lens.step_places`)."""
        scope = self.run.scope(profile, path)
        return _scoped_steps(self.choice.digest, profile, scope.path, self.run)

    def step_counts(self) -> dict[str, int]:
        """Steps at the root under each profile, for the reference switch."""
        return {profile: len(self.scopes(profile).root().steps) for profile in PROFILES}


def open_run(choice: RunChoice, data: bytes) -> LoadedRun:
    """Open (or fetch from cache) a run. Raises RecordingError for a bad file."""
    return LoadedRun(choice, _opened(choice.digest, data))


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
# the collector's walks (lens_ui/collector.py), and handed back when dropped.
@st.cache_resource(max_entries=4, show_spinner="Reading the recording…",
                   on_release=collector.released)
def _opened(digest: str, _data: bytes) -> OpenRun:
    return collector.open_kept(lambda: _open_with_default_views(_data),
                               lambda run: run.recording.source_chars)


def _open_with_default_views(data: bytes) -> OpenRun:
    run = open_run_bytes(data)
    run.views()  # the page shows the default profile at once
    return run


def _views(digest: str, profile: str, run: OpenRun) -> ProfileViews:
    """``profile``'s views of the run, built once (and then kept out of the
    collector's walks, as the open was)."""
    if run.has_views(profile):
        return run.views(profile)
    with st.spinner("Projecting the run into steps…"):
        views = run.views(profile)
    collector.keep_built(run.recording.source_chars)
    return views


@st.cache_resource(max_entries=64, show_spinner=False)
def _scoped_steps(digest: str, profile: str, path: tuple[str, ...],
                  _run: OpenRun) -> ScopedSteps:
    return _run.scoped_steps(profile, path)


@st.cache_resource(max_entries=64, show_spinner=False)
def _diagram(digest: str, profile: str, path: tuple[str, ...], _run: OpenRun) -> ArrowDiagram:
    return _run.diagram(profile, path)

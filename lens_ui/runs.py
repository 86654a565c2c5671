"""Open runs for the app: :func:`lens.run.open_run` behind the server's store.

Everything is keyed by the sha256 of the file's bytes, computed once per
upload (or once per sample file) and carried in the session. Open runs and
uploaded bytes live in one :class:`lens_ui.run_store.ServerStore` for the
whole server, within its memory budget (``lens_ui/server_limits.py``): an
open run is shared, never copied, and the slider only indexes into what was
built. What depends on the scope on screen (its step list, the map of model
calls onto it, and its diagram) is kept with the run, so a slider move only
looks things up, and goes when the run goes.

The collector policy (``lens_ui/collector.py``) is applied here, where runs
are kept: a large open run and its views are frozen once built.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from recorders.evidence import EvidenceIndex, StepMap
from recorders.loading import Recording, gunzip
from recorders.precheck import precheck
from recorders.projections import PROFILES, Projection
from lens.arrows import ArrowDiagram
from lens.run import OpenRun, ProfileViews, open_run as open_run_bytes
from lens.scopes import ScopeIndex
from lens.step_places import ScopedSteps
from lens_ui import collector
from lens_ui.run_store import ServerStore
from lens_ui.samples import sample_catalog
from lens_ui.server_limits import server_limits

SAMPLE, UPLOAD = "sample", "upload"
ARCHIVE = "archive"  # a run file of a configured archive folder (lens_ui/archive_source.py)
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class RunChoice:
    """Which run is open: a sample by name, an upload by digest, or an archive
    file by ``<folder label>/<path in the folder>``."""

    kind: str  # SAMPLE | UPLOAD | ARCHIVE
    name: str  # the sample's name, the uploaded file's name (untrusted), or the archive path
    digest: str
    # How an upload is told apart in the Runs list (app text and clipped,
    # one-line recording text); not part of its identity.
    label: str = field(default="", compare=False)

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.name if self.kind in (SAMPLE, ARCHIVE) else self.digest}"

    @property
    def link_name(self) -> str | None:
        """What ``?run=`` carries: a sample's name."""
        return self.name if self.kind == SAMPLE else None

    @property
    def link_upload(self) -> str | None:
        """What ``?upload=`` carries: an upload's digest."""
        return self.digest if self.kind == UPLOAD else None

    @property
    def link_archive(self) -> str | None:
        """What ``?archive=`` carries: ``<folder label>/<path in the folder>``."""
        return self.name if self.kind == ARCHIVE else None


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
    def recording(self) -> Recording:
        return self.run.recording

    @property
    def evidence(self) -> EvidenceIndex:
        return self.run.evidence

    @property
    def run_id(self) -> str:
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

    def step_map(self, profile: str, path: tuple[str, ...]) -> StepMap:
        """Where each model and tool call sits in :meth:`scoped_steps` of ``path``."""
        scope = self.run.scope(profile, path)
        return _step_map(self.choice.digest, profile, scope.path, self.run)

    def derived(self, key: tuple, build: Callable[[], Any], *, per_json_byte: float,
                with_runs: tuple[str, ...] = ()) -> Any:
        """A value a page derives from this run (and from the runs of digests
        ``with_runs``), kept in the server's store with the run: counted
        against the budget as ``per_json_byte`` × the runs' JSON size, and
        dropped when any of those runs is."""
        return server_store().memo(self.choice.digest, key, build,
                                   per_json_byte=per_json_byte, with_runs=with_runs)

    def step_counts(self) -> dict[str, int]:
        """Steps at the root under each profile, for the reference switch."""
        return {profile: len(self.scopes(profile).root().steps) for profile in PROFILES}


def open_run(choice: RunChoice, data: bytes) -> LoadedRun:
    """Open (or fetch from the store) a run. Raises RecordingError for a bad
    file, and ``OverBudget`` when the server cannot hold it now.

    What can be refused cheaply (too large expanded, broken gzip, not JSON,
    more than the whole budget) is refused here, before the file queues
    behind other sessions' opens."""
    loaded = open_run_reading(choice, lambda: data)
    assert loaded is not None  # the bytes are at hand: never gone
    return loaded


class _Gone(Exception):
    """The file's bytes could not be had when the store needed them."""


def open_run_reading(choice: RunChoice, fetch: Callable[[], bytes | None]) -> LoadedRun | None:
    """:func:`open_run` with the bytes read only when the store does not hold
    the run (``fetch``: the file's bytes, or None when they are gone or changed);
    None when they are needed and gone. Nothing read is kept beyond the open."""
    store, limit = server_store(), server_limits().max_expanded_bytes
    data = None
    if not store.holds_run(choice.digest):
        data = fetch()
        if data is None:
            return None
        store.refuse_if_never_fits(precheck(data, limit))

    def read() -> bytes:
        raw = data if data is not None else fetch()  # dropped since it was checked
        if raw is None:
            raise _Gone
        return gunzip(raw, limit) if raw.startswith(_GZIP_MAGIC) else raw
    try:
        run = store.open(choice.digest, read=read, build=_open_kept)
    except _Gone:
        return None
    return LoadedRun(choice, run)


def sample_choice(name: str) -> tuple[RunChoice, bytes]:
    """The allow-listed sample ``name`` (a KeyError for any other name)."""
    path = sample_catalog()[name]
    digest, data = _sample_bytes(str(path))
    return RunChoice(SAMPLE, name, digest), data


def upload_choice(name: str, data: bytes) -> RunChoice:
    return RunChoice(UPLOAD, name, digest_of(data))


_SESSION_KEY = "lens.session_key"


def session_id() -> str:
    """This browser session's key in the server's store: Streamlit's session
    id (what tells whether the session is still there) and a token of the
    session's own (so two sessions never share a key, even in a test harness
    that reuses ids)."""
    key = st.session_state.get(_SESSION_KEY)
    if key is None:
        context = get_script_run_ctx()
        runtime_id = context.session_id if context is not None else "local"
        key = st.session_state[_SESSION_KEY] = f"{runtime_id} {secrets.token_hex(8)}"
    return key


# ─── the store and small caches ────────────────────────────────────────


@st.cache_resource(show_spinner=False)
def server_store() -> ServerStore[OpenRun]:
    limits = server_limits()
    return ServerStore(limits.memory_budget_bytes, _session_is_live, limits.upload_grace_s,
                       on_release=collector.released, grace_ticker=True)


def _session_is_live(session: str) -> bool:
    # Called by the store's grace ticker thread too: Runtime.is_active_session is
    # documented safe on any thread (a dict lookup).
    if not runtime.exists():
        return True
    return runtime.get_instance().is_active_session(session.rpartition(" ")[0])


@st.cache_resource(max_entries=32, show_spinner=False)
def _sample_bytes(path: str) -> tuple[str, bytes]:
    data = Path(path).read_bytes()
    return digest_of(data), data


# What this builds lives as long as the store keeps it: for a large file, out of
# the collector's walks (lens_ui/collector.py), and handed back when dropped.
def _open_kept(data: bytes) -> OpenRun:
    with st.spinner("Reading the recording…"):
        return collector.open_kept(lambda: _open_with_default_views(data),
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


# What a scope's kept views cost per byte of the run's JSON: the largest
# measured with tracemalloc at the root of the two large corpus runs and the
# 20x copy (0.004-0.032), rounded up. A nested scope holds fewer steps than the
# root, so these are upper bounds for it.
SCOPED_STEPS_PER_JSON_BYTE = 0.03
STEP_MAP_PER_JSON_BYTE = 0.02
DIAGRAM_PER_JSON_BYTE = 0.04


def _scoped_steps(digest: str, profile: str, path: tuple[str, ...],
                  run: OpenRun) -> ScopedSteps:
    return server_store().memo(digest, ("scoped", profile, path),
                               lambda: run.scoped_steps(profile, path),
                               per_json_byte=SCOPED_STEPS_PER_JSON_BYTE)


def _step_map(digest: str, profile: str, path: tuple[str, ...], run: OpenRun) -> StepMap:
    return server_store().memo(
        digest, ("step_map", profile, path),
        lambda: StepMap(run.evidence, _scoped_steps(digest, profile, path, run).steps),
        per_json_byte=STEP_MAP_PER_JSON_BYTE)


def _diagram(digest: str, profile: str, path: tuple[str, ...], run: OpenRun) -> ArrowDiagram:
    return server_store().memo(digest, ("diagram", profile, path),
                               lambda: run.diagram(profile, path),
                               per_json_byte=DIAGRAM_PER_JSON_BYTE)

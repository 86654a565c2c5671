"""An open run: what a page, a command or a notebook needs, without widgets.

:func:`open_run` reads a file's bytes once and builds what every view of the
run reads on open: the validated :class:`Recording`, its evidence index (what
each model call was served, said and asked for) and the run's id. Each
profile's projection (lens or reference) is built the first time it is asked
for, once, with its scopes and the table that places any step of any scope;
a page that never shows the reference projection never pays for it.

What this owns: what is built from one file, and the mapping between a
position in a scope's step list and (scope path, index). What it does not:
caching across sessions or files (the app's ``lens_ui/runs.py`` keeps open
runs by digest), the garbage collector's policy (``lens_ui/collector.py``;
here it is only paused while a run's views are built), or widgets.

Everything an :class:`OpenRun` holds is built once and then only read, so one
open run can be shared by every session that shows it. What depends on the
scope on screen (:meth:`OpenRun.scoped_steps`, :meth:`OpenRun.step_map`,
:meth:`OpenRun.diagram`) is kept in the :class:`RunCache` the run was opened
with: by default none (:class:`KeepNothing`: built on each call, for a
command or a notebook that asks once); the app hands in its server store's,
so a slider move only looks things up, within the store's memory budget.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager, nullcontext
from time import perf_counter
from dataclasses import dataclass
from typing import Callable, Protocol, TypeVar

from recorders.deep_parse import collector_paused
from recorders.evidence import EvidenceIndex, StepMap, build_evidence_index, run_id
from recorders.loading import Recording, load_recording
from recorders.projections import DEFAULT_PROFILE, PROFILES, Projection, build_projection
from recorders.run_step import RunStep
from lens.arrows import ArrowDiagram, build_arrow_diagram
from lens.run_facts import RunFacts, run_facts
from lens.scopes import ROOT, Scope, ScopeIndex
from lens.step_detail import pass_output
from lens.step_places import ScopedSteps, StepPlace, StepPlaces
from lens.text import clipped_json

# A pass's output is shown in its node's hover: more than this is read in the step detail.
PASS_OUTPUT_CHARS = 400
# What a scope's kept views cost per byte of the run's JSON (a cache's budget
# reads them): the largest measured with tracemalloc at the root of the two
# large corpus runs and the 20x copy (0.004-0.032), rounded up. A nested scope
# holds fewer steps than the root, so these are upper bounds for it.
SCOPED_STEPS_PER_JSON_BYTE = 0.03
STEP_MAP_PER_JSON_BYTE = 0.02
DIAGRAM_PER_JSON_BYTE = 0.04

__all__ = ["OpenRun", "ProfileViews", "RunCache", "KeepNothing", "open_run", "PROFILES",
           "DEFAULT_PROFILE"]

Built = TypeVar("Built")


class RunCache(Protocol):
    """Where an open run keeps what it builds for one scope on screen, and what
    surrounds the first build of a profile's views. The caller's: the app
    hands in one over its server store (``lens_ui/runs.py``); this module
    never decides how long anything is kept."""

    def keep(self, key: tuple, build: Callable[[], Built], *, per_json_byte: float) -> Built:
        """What ``build()`` gives, or what an earlier call with ``key`` kept.
        ``per_json_byte``: an upper bound of its size per byte of the run's JSON."""
        ...

    def building_views(self, profile: str) -> AbstractContextManager[object]:
        """Around the first build of ``profile``'s views (the app shows a spinner)."""
        ...


class KeepNothing:
    """The cache of a run opened without one: builds on every call, keeps
    nothing, and shows nothing while a profile is built."""

    def keep(self, key: tuple, build: Callable[[], Built], *, per_json_byte: float) -> Built:
        return build()

    def building_views(self, profile: str) -> AbstractContextManager[object]:
        return nullcontext()


@dataclass(frozen=True)
class ProfileViews:
    """One profile's projection of the run, its scopes, and where each step lives."""

    projection: Projection
    scopes: ScopeIndex
    places: StepPlaces


class OpenRun:
    """A loaded recording and everything built over it; see the module doc."""

    # Stateless, so one serves every run opened without a cache.
    _cache: RunCache = KeepNothing()

    def __init__(self, recording: Recording, timings: dict[str, float] | None = None,
                 runs_in_file: int | None = None, cache: RunCache | None = None) -> None:
        if cache is not None:
            self._cache = cache
        started = perf_counter()
        # Building allocates enough to set off collections that walk the whole
        # recording, to free nothing: the collector is paused for the build
        # only, as for the parse (recorders/deep_parse.py), and runs after.
        with collector_paused():
            evidence = build_evidence_index(recording)
            self._hold(recording, evidence, run_id(recording), runs_in_file)
        if timings is not None:
            timings["evidence"] = timings.get("evidence", 0.0) + perf_counter() - started

    @classmethod
    def from_parts(cls, recording: Recording, evidence: EvidenceIndex,
                   runs_in_file: int | None = None,
                   cache: RunCache | None = None) -> OpenRun:
        """An open run over an evidence index built elsewhere: a follower grows
        the index event by event (``lens/follow.py``) instead of building it on
        open. ``evidence`` must be the index of exactly ``recording``."""
        opened = cls.__new__(cls)
        if cache is not None:
            opened._cache = cache
        opened._hold(recording, evidence, run_id(recording), runs_in_file)
        return opened

    def _hold(self, recording: Recording, evidence: EvidenceIndex, the_run_id: str,
              runs_in_file: int | None) -> None:
        """What every open run holds, however its evidence was built."""
        self.recording = recording
        self.evidence: EvidenceIndex = evidence
        self.run_id: str = the_run_id
        self._runs_in_file = runs_in_file
        self._facts: RunFacts | None = None
        self._views: dict[str, ProfileViews] = {}
        self._building = threading.Lock()

    @property
    def facts(self) -> RunFacts:
        """The run's id, its file's count of runs, its agent, first message,
        start and outcome (:mod:`lens.run_facts`), built on first use with the
        default profile's views, whose root steps the outcome's ``nav`` indexes."""
        if self._facts is None:
            step_map = self.step_map(DEFAULT_PROFILE, ROOT)
            with self._building, collector_paused():
                if self._facts is None:
                    self._facts = run_facts(self.recording, self.evidence, step_map,
                                            self._runs_in_file)
        return self._facts

    # ── per profile, built once ──────────────────────────────────────

    def views(self, profile: str = DEFAULT_PROFILE) -> ProfileViews:
        """``profile``'s projection, scopes and step places (built on first use).

        Raises ``ValueError`` for a profile that is not one of :data:`PROFILES`.
        """
        built = self._views.get(profile)
        if built is None:
            if profile not in PROFILES:  # refused before the cache shows a build
                raise ValueError(f"unknown profile {profile!r}; choose one of "
                                 f"{', '.join(PROFILES)}")
            # two sessions asking at once build it once
            with self._cache.building_views(profile), self._building:
                built = self._views.get(profile)
                if built is None:
                    with collector_paused():
                        built = self._views[profile] = _build_views(self.recording, profile)
        return built

    def has_views(self, profile: str) -> bool:
        """Whether ``profile`` was built already (asking for it costs nothing then)."""
        return profile in self._views

    def projection(self, profile: str = DEFAULT_PROFILE) -> Projection:
        return self.views(profile).projection

    def scopes(self, profile: str = DEFAULT_PROFILE) -> ScopeIndex:
        return self.views(profile).scopes

    def scope(self, profile: str, path: tuple[str, ...]) -> Scope:
        """The scope at ``path``, or the root when ``path`` names no scope."""
        scopes = self.scopes(profile)
        return scopes.get(path) or scopes.root()

    def root_steps(self, profile: str = DEFAULT_PROFILE) -> tuple[RunStep, ...]:
        return self.scopes(profile).root().steps

    def step_count(self, profile: str = DEFAULT_PROFILE) -> int:
        """Steps at the root under ``profile``."""
        return len(self.root_steps(profile))

    def step_counts(self) -> dict[str, int]:
        """Steps at the root under every profile (builds each one)."""
        return {profile: self.step_count(profile) for profile in PROFILES}

    def built_step_counts(self) -> dict[str, int]:
        """Steps at the root under each profile built so far (builds none)."""
        return {profile: self.step_count(profile) for profile in PROFILES
                if self.has_views(profile)}

    # ── per scope on screen, kept in the run's cache ────────────────

    def scoped_steps(self, profile: str, path: tuple[str, ...]) -> ScopedSteps:
        """The step list links reach from scope ``path`` (the root when
        ``path`` names no scope): its own steps first, then every other
        scope's (see :mod:`lens.step_places`)."""
        path = self.scope(profile, tuple(path)).path
        return self._cache.keep(("scoped", profile, path),
                                lambda: self.views(profile).places.for_scope(path),
                                per_json_byte=SCOPED_STEPS_PER_JSON_BYTE)

    def place(self, profile: str, path: tuple[str, ...], position: int) -> StepPlace | None:
        """Position ``position`` of :meth:`scoped_steps` as (scope path, index, count)."""
        return self.scoped_steps(profile, path).place(position)

    def step_map(self, profile: str, path: tuple[str, ...]) -> StepMap:
        """Where each model and tool call sits in :meth:`scoped_steps` of ``path``."""
        path = self.scope(profile, tuple(path)).path
        return self._cache.keep(
            ("step_map", profile, path),
            lambda: StepMap(self.evidence, self.scoped_steps(profile, path).steps),
            per_json_byte=STEP_MAP_PER_JSON_BYTE)

    def diagram(self, profile: str, path: tuple[str, ...]) -> ArrowDiagram:
        """The actor-arrow diagram of the scope at ``path`` (the root if none)."""
        scope = self.scope(profile, tuple(path))
        return self._cache.keep(
            ("diagram", profile, scope.path),
            lambda: build_arrow_diagram(scope.steps, scope.path, self.scopes(profile),
                                        self.recording.structure,
                                        pass_output=self._pass_output, evidence=self.evidence),
            per_json_byte=DIAGRAM_PER_JSON_BYTE)

    def _pass_output(self, step: RunStep) -> str | None:
        output = pass_output(step, self.evidence)
        if output is None:
            return None
        return output if isinstance(output, str) else clipped_json(output, PASS_OUTPUT_CHARS)


def open_run(data: bytes, timings: dict[str, float] | None = None) -> OpenRun:
    """Load ``data`` (a recording or envelope, plain or gzipped) and build what is
    read on open. Raises :class:`recorders.errors.RecordingError` for a bad file.

    ``timings``, when given, gets the seconds spent loading (``load``) and
    building the evidence index (``evidence``): where an open's time went."""
    started = perf_counter()
    recording = load_recording(data)
    if timings is not None:
        timings["load"] = timings.get("load", 0.0) + perf_counter() - started
    return OpenRun(recording, timings)


def _build_views(recording: Recording, profile: str) -> ProfileViews:
    projection = build_projection(recording, profile)
    scopes = ScopeIndex.build(projection, projection.steps.raw_steps())
    return ProfileViews(projection, scopes, StepPlaces(scopes))

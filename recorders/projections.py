"""One entry point for the app: a recording's steps and route under a profile.

Profiles: ``reference`` (the JS recorders' replay, faults included) and
``lens`` (the corrected projection). Both return a :class:`Projection`, so the
views never care which one they show.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from recorders.lens_projection import lens_notes, lens_route, lens_run_steps, nested_skill_graphs
from recorders.loading import Recording
from recorders.profiles import DEFAULT_PROFILE, PROFILES  # defined apart; named here too
from recorders.reference import reference_route, reference_run_steps
from recorders.route_recorder import RouteRecorder
from recorders.run_step import RunStep



class StepSource(Protocol):
    @property
    def root_kind(self) -> str | None: ...

    def raw_steps(self) -> list[RunStep]: ...

    def get_steps(self, drill_path: tuple[str, ...] | list[str] | None = None) -> list[RunStep]: ...


@dataclass
class Projection:
    """Steps and route of one recording under one profile, built once."""

    profile: str
    steps: StepSource
    route: RouteRecorder
    notes: list[str] = field(default_factory=list)  # what this projection cannot show
    # skill-graph agents in compositions whose route the file does not carry (scope paths)
    nested_skill_graphs: tuple[str, ...] = ()

    @property
    def root_kind(self) -> str | None:
        return self.steps.root_kind

    def get_steps(self, drill_path: tuple[str, ...] | list[str] | None = None) -> list[RunStep]:
        return self.steps.get_steps(drill_path)


def build_projection(recording: Recording, profile: str = DEFAULT_PROFILE,
                     per_event: bool = False) -> Projection:
    if profile == "reference":
        return Projection("reference", reference_run_steps(recording, per_event=per_event),
                          reference_route(recording))
    if profile == "lens":
        steps = lens_run_steps(recording)
        return Projection("lens", steps, lens_route(recording), lens_notes(recording, steps),
                          nested_skill_graphs(recording, steps))
    raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")

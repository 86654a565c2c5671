"""The reference projection: the JS recorders' replay path, reproduced exactly."""

from __future__ import annotations

from recorders.loading import Recording
from recorders.route_recorder import RouteRecorder, replay_route
from recorders.run_step_recorder import RunStepRecorder


def reference_run_steps(recording: Recording, per_event: bool = False) -> RunStepRecorder:
    """Replay the boundary log as ``buildRunSteps`` does (or one event at a time)."""
    recorder = RunStepRecorder()
    if per_event:
        for event in recording.boundary_events:
            recorder.ingest_domain_event(event)
    else:
        recorder.ingest_domain_events(recording.boundary_events)
    return recorder


def reference_route(recording: Recording) -> RouteRecorder:
    """Replay the typed stream through a default RouteRecorder."""
    return replay_route(recording.typed_events)

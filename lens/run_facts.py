"""The run's facts, computed once: who it is, how many runs its file holds, how it ended.

Every page, the command line (``info``, ``causes``), the archive's rows and
the exported page name the run and its ending from one :class:`RunFacts`
(``OpenRun.facts``), so none of them can disagree with another.

A run is what :func:`recorders.evidence.run_groups` says it is: a
composition's inner runners and a resumed run keep the run's identity, the
application's own ``consumer-scope`` is no run, and ``runner.run`` called
again is a second run. The facts describe the run the steps show (the last
of its file's recording), as the boundary log does.

:func:`run_identity` reads what a run says about itself (its id, its agent or
root composition, the first thing the user asked, when it started) without
building anything, for a list of a file's runs to pick from
(:mod:`lens.file_runs`); :func:`run_facts` adds the outcome, which needs the
evidence index. Recording text is kept as recorded; views clip it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from recorders.catalogue import AGENT_RUN_CONFIGURED, AGENT_TURN_START, COMPOSITION_ENTER
from recorders.evidence import EvidenceIndex, StepMap, recorded_run_id, run_groups
from recorders.evidence.records import CONSUMER_SCOPE
from recorders.loading import Recording
from recorders.values import is_number
from lens.evidence.outcome import RunOutcome, run_outcome

if TYPE_CHECKING:
    from lens.evidence.nav import Nav

_LOOKED_AT = 200  # the root names itself, and the user speaks, among the first events
# Where the root says who it is: (its id, its name for people), each by field.
_ROOT_NAMES = {
    COMPOSITION_ENTER: (("id", "name"), ("name", "id")),
    AGENT_RUN_CONFIGURED: (("agentId",), ("agentId",)),
}
_ID, _NAME = 0, 1


@dataclass(frozen=True)
class RunIdentity:
    """What a run says about itself; each None when not recorded."""

    run_id: str | None
    agent: str | None  # the configured agent's id, else the root composition's id
    agent_name: str | None  # what people call it: the root composition's name, else ``agent``
    first_message: str | None
    started_ms: float | None  # wall-clock milliseconds of its first event


@dataclass(frozen=True)
class RunFacts:
    """The facts of one open run (see the module doc)."""

    run_id: str | None
    runs_in_file: int  # distinct runs the file holds (0: none written yet)
    run_ids: tuple[str, ...]  # the typed run ids of this run (a resume adds one)
    agent: str | None
    agent_name: str | None
    first_message: str | None
    started_ms: float | None
    outcome: RunOutcome

    @property
    def final_answer(self) -> str | None:
        """The whole answer the run returned (None: none, or not recorded)."""
        return self.outcome.answer

    @property
    def nav(self) -> "Nav | None":
        return self.outcome.nav


def run_facts(recording: Recording, index: EvidenceIndex, step_map: StepMap | None = None,
              runs_in_file: int | None = None) -> RunFacts:
    """The facts of ``recording``'s shown run; ``runs_in_file`` is how many
    runs its file holds (:func:`runs_held`), else this recording's own count.
    The outcome's step indexes ``step_map``'s steps when given."""
    groups = run_groups(recording.typed_events)
    shown = groups[-1] if groups else ()
    identity = run_identity(recording, shown)
    return RunFacts(identity.run_id, runs_held([recording]) if runs_in_file is None
                    else runs_in_file, shown, identity.agent, identity.agent_name,
                    identity.first_message,
                    identity.started_ms, run_outcome(index, recording, step_map, shown))


def run_identity(recording: Recording, run_ids: Sequence[str] | None = None) -> RunIdentity:
    """What the run of ``run_ids`` (by default the recording's shown run)
    says about itself."""
    if run_ids is None:
        groups = run_groups(recording.typed_events)
        run_ids = groups[-1] if groups else ()
    events = _events_of(recording.typed_events, frozenset(run_ids))
    agent = _root_name(recording, events, _ID)
    return RunIdentity(recorded_run_id(recording), agent,
                       _root_name(recording, events, _NAME) or agent,
                       _first_user_message(events), _started_ms(events))


def runs_held(recordings: Iterable[Recording]) -> int:
    """How many distinct runs the loaded runs of a file hold together: a
    recording's typed stream may hold several; one with no typed run id (a
    boundary log, a trace) is one run when it holds anything at all."""
    count = 0
    for recording in recordings:
        groups = run_groups(recording.typed_events)
        if groups:
            count += len(groups)
        elif not _only_consumer_events(recording):
            count += 1
    return count


def root_name(recording: Recording) -> str | None:
    """The name of the run's outermost composition or agent, when recorded."""
    return run_identity(recording).agent_name


def _events_of(events: list, run_ids: frozenset[str]) -> list:
    """The first events of the run of ``run_ids`` (every event when empty)."""
    if not run_ids:
        return events[:_LOOKED_AT]
    mine = []
    for event in events:
        meta = event.get("meta") if isinstance(event, dict) else None
        if isinstance(meta, dict) and meta.get("runId") in run_ids:
            mine.append(event)
            if len(mine) == _LOOKED_AT:
                break
    return mine


def _root_name(recording: Recording, events: list, which: int) -> str | None:
    """The root's id (``which`` = ``_ID``) or its name for people (``_NAME``):
    the envelope's configured agent, else the first root event that names it,
    else the agent its first event runs under."""
    configuration = recording.configuration
    if isinstance(configuration, dict) and _said(configuration.get("agentId")):
        return configuration["agentId"]
    for event in events:
        named = _ROOT_NAMES.get(event.get("type")) if isinstance(event, dict) else None
        payload = event.get("payload") if named else None
        if isinstance(payload, dict) and _at_root(event):
            for name in named[which]:
                if _said(payload.get(name)):
                    return payload[name]
    for event in events[:1]:  # else the agent its first event runs under
        meta = event.get("meta") if isinstance(event, dict) else None
        path = meta.get("compositionPath") if isinstance(meta, dict) else None
        if isinstance(path, list) and path and _said(path[0]):
            return path[0].partition(":")[2] or path[0]
    return None


def _at_root(event: dict) -> bool:
    meta = event.get("meta")
    path = meta.get("compositionPath") if isinstance(meta, dict) else None
    return not isinstance(path, list) or len(path) <= 1


def _first_user_message(events: list) -> str | None:
    for event in events:
        if isinstance(event, dict) and event.get("type") == AGENT_TURN_START:
            payload = event.get("payload")
            prompt = payload.get("userPrompt") if isinstance(payload, dict) else None
            if _said(prompt):
                return prompt
    return None


def _started_ms(events: list) -> float | None:
    for event in events:
        meta = event.get("meta") if isinstance(event, dict) else None
        wall = meta.get("wallClockMs") if isinstance(meta, dict) else None
        if is_number(wall) and 0 <= wall < 1e14:  # a time gmtime can show
            return float(wall)
    return None


def _only_consumer_events(recording: Recording) -> bool:
    """Whether the recording holds nothing but the application's own events
    (or nothing at all): no run of the agent."""
    if recording.boundary_events:
        return False
    return all(isinstance(e, dict) and isinstance(e.get("meta"), dict)
               and e["meta"].get("runId") == CONSUMER_SCOPE for e in recording.typed_events)


def _said(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())

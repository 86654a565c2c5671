"""What the "Where from?" panel shows for one state key: no widgets.

Owns: turning :class:`recorders.lineage.Lineage`'s JSON for one key into rows
a page draws -- the chain of stages whose writes produced the key's value
(the backward slice, nearest first), the key's timeline (writes and reads in
commit order), what the value fed afterwards (the forward slice) -- each
stage placed on a Lens step, plus the notes on what the recording cannot say.
Also which key to show by default: a key the step's stage wrote, or the key
holding the run's final answer (found by value equality, never by name).

A stage is placed where the run's events carrying its ``runtimeStageId`` are
shown, by the one placement rule of :mod:`lens.event_places`: at the latest
step any of its typed events is shown at (a stage commits at its end, after
all it did, so no event of it is shown after its step, and a tool-calls stage
is at or after the model call that asked for its tools); else at its last
boundary event, and for a subflow the boundary event before its exit (the
last thing it ran).

Built per run once by the caller (:func:`lineage_of`, :class:`StagePlaces`):
a key's view (:func:`where_from`) is then a walk over one key's slices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from recorders import boundary_names
from recorders.evidence import EvidenceIndex
from recorders.run_step import RunStep
from recorders.values import is_number, number_or_none
from recorders.lineage import DELIM, Lineage, NoCommitLog, deep_equal, own_get, snapshot_of
from lens.event_places import BOUNDARY, EventPlaces
from lens.run import DEFAULT_PROFILE, OpenRun
from lens.step_places import StepPlace

LINK_KEYS_SHOWN = 4
NO_COMMIT_LOG = ("Lineage needs the snapshot's commit log, and this recording has none "
                 "(an event stream, or a trace without its snapshot).")


@dataclass(frozen=True)
class RunLineage:
    """A run's lineage and its snapshot's final shared state (for values)."""

    lineage: Lineage
    shared_state: Any


def lineage_of(data: bytes) -> RunLineage | None:
    """The run's lineage from its file's bytes; None when it has no commit log."""
    try:
        snapshot = snapshot_of(data)
        return RunLineage(Lineage(snapshot), snapshot.get("sharedState"))
    except NoCommitLog:
        return None


class StagePlaces:
    """``runtimeStageId`` -> the step its events are shown at (built once per run and profile)."""

    def __init__(self, run: OpenRun, profile: str = DEFAULT_PROFILE,
                 places: EventPlaces | None = None) -> None:
        self._places = places or EventPlaces.for_run(run, profile)
        self._typed: dict[str, list[int]] = {}
        self._boundary: dict[str, int] = {}
        # A stage's step, once found: placing an event by its time walks the
        # run's steps, and the panel, open as the user steps, asks again per move.
        self._found: dict[str, StepPlace | None] = {}
        for index, event in enumerate(run.recording.typed_events):
            meta = event.get("meta") if isinstance(event, dict) else None
            rid = meta.get("runtimeStageId") if isinstance(meta, dict) else None
            if isinstance(rid, str):
                self._typed.setdefault(rid, []).append(index)
        for index, event in enumerate(run.recording.boundary_events):
            rid = event.get("runtimeStageId") if isinstance(event, dict) else None
            if isinstance(rid, str):
                # A subflow commits when it exits, after all it ran: the event
                # before its exit is the last thing inside it.
                inside = event.get("type") == boundary_names.SUBFLOW_EXIT and index > 0
                self._boundary[rid] = index - 1 if inside else index

    def step_of(self, runtime_stage_id: Any) -> StepPlace | None:
        if not isinstance(runtime_stage_id, str):
            return None
        if runtime_stage_id not in self._found:
            self._found[runtime_stage_id] = self._place(runtime_stage_id)
        return self._found[runtime_stage_id]

    def _place(self, runtime_stage_id: str) -> StepPlace | None:
        # Not its last typed event's step alone: an earlier event can be shown
        # at a later step (a finding it fired, placed at the call composed after it).
        placed = self._places.latest_typed(self._typed.get(runtime_stage_id, ()))
        if placed is None and runtime_stage_id in self._boundary:
            placed = self._places.step_of(BOUNDARY, self._boundary[runtime_stage_id])
        return None if placed is None else placed.place


@dataclass(frozen=True)
class StageRow:
    """One stage of a chain, a timeline or a forward slice, and its step."""

    runtime_stage_id: str | None
    stage_name: str | None
    place: StepPlace | None
    what: str  # app words: "wrote answer", "read", "set", ...
    commit: int | None = None
    depth: int = 0


@dataclass(frozen=True)
class WhereFrom:
    key: str
    chain: tuple[StageRow, ...]     # the backward slice, nearest first
    timeline: tuple[StageRow, ...]  # writes and reads in commit order
    fed: tuple[StageRow, ...]       # what the value fed afterwards (written keys)
    notes: tuple[str, ...]          # what the recording cannot say


def key_label(key: str) -> str:
    """A nested key as a path a reader recognises (``a/b``); recording text."""
    return key.replace(DELIM, "/")


def where_from(lineage: Lineage, places: StagePlaces, key: str) -> WhereFrom:
    back = lineage.backward(key)
    forward = lineage.forward(key)
    timeline = lineage.timeline(key)
    notes: list[str] = []
    chain: list[StageRow] = []
    if back.get("missing") == "never-written":
        notes.append("No stage wrote this key: its value came from the initial state, the run's "
                     "input or a closure, outside the commit log.")
    # Each stage is named with the keys through which it fed the chain: the
    # writer, the key itself; an earlier stage, what a later one read from it.
    linking: dict[Any, dict[str, None]] = {back.get("writerId"): {key: None}}
    for edge in back.get("edges", []):
        linking.setdefault(edge["to"], {})[edge["key"]] = None
    for rid, node in (back.get("nodes") or {}).items():
        keys = list(linking.get(rid, {}))
        written = ", ".join(key_label(k) for k in keys[:LINK_KEYS_SHOWN])
        if len(keys) > LINK_KEYS_SHOWN:
            written += f" (+{len(keys) - LINK_KEYS_SHOWN} more)"
        chain.append(StageRow(rid, node.get("stageName"), places.step_of(rid),
                              f"wrote {written}", depth=node.get("depth", 0)))
    if back.get("truncated"):
        notes.append("The chain is cut short (depth or size limit): more stages fed it.")
    moments = []
    for moment in timeline.get("moments", []):
        rid = moment.get("runtimeStageId")
        what = moment.get("verb", "write") if moment["kind"] == "write" else "read"
        moments.append(StageRow(rid, moment.get("stageName"), places.step_of(rid), what,
                                commit=moment.get("commitIdx")))
    fed: list[StageRow] = []
    for node in (forward.get("nodes") or [])[1:]:
        rid = node.get("runtimeStageId")
        fed.append(StageRow(rid, node.get("stageName"), places.step_of(rid),
                            f"wrote {key_label(node['key'])}", commit=node.get("commitIdx"),
                            depth=node.get("depth", 0)))
    coverage = back.get("readsCoverage") or {}
    steps, with_reads = coverage.get("steps", 0), coverage.get("stepsWithReads", 0)
    if with_reads == 0:
        notes.append("Reads were not recorded in this run: the chain stops at the key's writer, "
                     "and \"nothing read this value\" cannot be told from the recording.")
    elif with_reads < steps:
        notes.append(f"Reads were recorded for {with_reads} of {steps} stages: a stage without "
                     "recorded reads cannot be traced further back.")
    codes = {note.get("code") for note in forward.get("notes", []) + timeline.get("notes", [])}
    if "conservative-fed-edges" in codes:
        notes.append("What it fed is conservative: the run recorded no per-write read "
                     "provenance, so a stage that read this key and wrote another may not have "
                     "used it.")
    if "pre-run-origin" in codes:
        notes.append("Some reads saw a value from before any write: the initial state or the "
                     "run's input.")
    if any(row.place is None for row in (*chain, *moments, *fed)):
        notes.append("Some stages have no step: no event of the run carries their "
                     "runtimeStageId, so no step can show them.")
    return WhereFrom(key, tuple(chain), tuple(moments), tuple(fed), tuple(notes))


def keys_written_at(lineage: Lineage, runtime_stage_id: Any) -> list[str]:
    """The keys the stage ``runtime_stage_id`` wrote, in commit order."""
    found: dict[str, None] = {}
    log = lineage.log
    for position, bundle in enumerate(log.bundles):
        if bundle.get("runtimeStageId") == runtime_stage_id:
            found.update(dict.fromkeys(log.paths[position]))
    return list(found)


def default_key(lineage: Lineage, runtime_stage_id: Any) -> str | None:
    """A key the step's stage wrote (its last), None when it wrote none."""
    written = keys_written_at(lineage, runtime_stage_id)
    return written[-1] if written else None


def _values_of(snapshot_state: Any, bundles: Sequence[dict], positions: Sequence[int],
               key: str) -> list[Any]:
    segments = key.split(DELIM)
    values = []
    value = own_get(snapshot_state, segments) if isinstance(snapshot_state, dict) else None
    if value is not None:
        values.append(value)
    for position in positions:
        for part in ("overwrite", "updates"):
            written = bundles[position].get(part)
            if isinstance(written, dict):
                if key in written:
                    values.append(written[key])
                found = own_get(written, segments)
                if found is not None:
                    values.append(found)
    return values


def key_for_step(run_lineage: RunLineage, runtime_stage_id: Any, final_step: bool,
                 final_answer: Any) -> str | None:
    """The key the panel opens on: on the final step the answer's key; else a
    key the step's stage wrote; else the answer's key; else the first written."""
    lineage = run_lineage.lineage
    answer = answer_key(lineage, final_answer, run_lineage.shared_state)
    if final_step and answer is not None:
        return answer
    here = default_key(lineage, runtime_stage_id)
    if here is not None:
        return here
    keys = lineage.keys()
    return answer if answer is not None else (keys[0] if keys else None)


def answer_key(lineage: Lineage, final_answer: Any, shared_state: Any = None) -> str | None:
    """The key that holds the run's final answer: of the keys whose recorded
    value (in the final shared state or a commit's written values) equals
    ``final_answer``, the one written last; None when none does."""
    if final_answer is None:
        return None
    log = lineage.log
    best: tuple[int, str] | None = None
    for key, positions in log.writes_by_key.items():
        values = _values_of(shared_state, log.bundles, positions, key)
        if any(deep_equal(value, final_answer) for value in values):
            if best is None or positions[-1] > best[0]:
                best = (positions[-1], key)
    return None if best is None else best[1]


def snapshot_note(runs_in_file: int, run_id: str | None,
                  snapshot_run_id: str | None) -> str | None:
    """For a file holding several runs, which run the commit log describes:
    the engine writes one snapshot, at the end of the last run, and the steps
    show that run too (:mod:`lens.placement`). None for a file of one run.
    The ids are recording text."""
    if runs_in_file <= 1:
        return None
    engine = f" (engine run {snapshot_run_id})" if snapshot_run_id else ""
    shown = f"run {run_id}" if run_id else "the last run"
    return (f"This file holds {runs_in_file} runs and one snapshot: the commit log traced here "
            f"is the last run's, {shown}{engine}, the run the steps show. The earlier runs' "
            "writes and reads are not in it.")


# A step of the part of a resumed run before its pause: the snapshot was written
# after the resume, so its one commit log is the resumed part's.
BEFORE_THE_RESUME_NOTE = ("This step comes before the run's pause: the file's one commit log is "
                          "the part after the resume's, so none of this step's writes and reads "
                          "are in it. The key traced here is as that part wrote it.")


def resumed_at_ms(index: EvidenceIndex) -> float | None:
    """When the part of the shown run after its last resume began (its first
    typed event's wall clock); None when the run was never paused and resumed."""
    if len(index.shown_run_ids) < 2:
        return None
    for event in index.stages.typed_events:
        meta = event.get("meta") if isinstance(event, dict) else None
        if isinstance(meta, dict) and meta.get("runId") == index.shown_run:
            return number_or_none(meta.get("wallClockMs"))
    return None


def pause_note(index: EvidenceIndex, steps: Sequence[RunStep], position: int) -> str | None:
    """For a step of the part of a paused and resumed run before its pause
    (timed before the resumed part began), that the commit log traced does
    not hold it; None otherwise."""
    resumed = resumed_at_ms(index)
    if resumed is None or not 0 <= position < len(steps):
        return None
    ts = steps[position].ts_ms
    return BEFORE_THE_RESUME_NOTE if is_number(ts) and ts < resumed else None

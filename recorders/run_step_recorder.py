"""RunStepRecorder: the reference slider-step projection, built event by event.

A faithful port of agentfootprint's RunStepRecorder. Flow hooks (run start
and end, subflow entry and exit, fork, decision, loop) and the typed model
call events each do O(1) work and may append one step; :meth:`get_steps`
reads what was built. Replaying a saved boundary log
(:meth:`ingest_domain_event`, :meth:`ingest_domain_events`) runs the same
step logic as the hooks, with each step timed by the ``ts`` of the event
being ingested so replays are deterministic; it reads what a hook would be
told straight from the event instead of building a TraversalContext for it.

This is the *reference* projection: its known faults are kept on purpose,
because matching the JS output exactly proves the port. The lens projection
corrects them.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from recorders import boundary_names
from recorders.run_id_observer import RunIdObserver
from recorders.run_step import (
    ACTOR_USER,
    DECIDE,
    FORK,
    ITERATION,
    MERGE,
    REACT,
    SEQUENTIAL,
    Anchor,
    RunStep,
    Transition,
    renumber,
)
from recorders.catalogue import LLM_END, LLM_START
from recorders.sequence_store import SequenceStore
from recorders.values import ROOT_PATH, ROOT_SUBFLOW_ID, is_number, js_number_text
from recorders.trackers.actor_arrows import LLM_TO_USER, TOOL_TO_LLM, ActorArrowClassifier
from recorders.trackers.answer_buffer import CandidateAnswerBuffer
from recorders.trackers.fork_tracker import ForkTracker
from recorders.trackers.root_inferrer import LEAF_PRIMITIVES, RootInferrer
from recorders.trackers.sibling_tracker import SequenceSiblingTracker

# Decider stages the reference treats as Agent-internal (their outcome shows
# as actor arrows instead). Matched on the stage id's last segment.
AGENT_INTERNAL_STAGES = frozenset({"route", "tool-calls", "final", "merge"})

REPLAY_RUN_ID = "replay"


@dataclass(frozen=True, slots=True)
class TraversalContext:
    """What the engine tells a flow hook about where it fired."""

    run_id: str | None = None
    stage_id: str = ""
    runtime_stage_id: str = ""
    subflow_path: str | None = None  # "a/b" without the root segment
    depth: int = 0


class BoundaryFrame(NamedTuple):
    """An open subflow on the recorder's boundary stack (one per subflow entry)."""

    subflow_id: str
    subflow_path: tuple[str, ...]
    primitive_kind: str | None
    depth: int


def parse_primitive_kind(description: str | None) -> str | None:
    """``"Agent: triage bot"`` → ``"Agent"``; None when there is no prefix."""
    if not description:
        return None
    colon = description.find(":")
    if colon < 0:
        return None
    prefix = description[:colon].strip()
    return prefix or None


def last_segment(subflow_id: str) -> str:
    return subflow_id.rsplit("/", 1)[-1]


def path_from_context(subflow_path: str | None) -> tuple[str, ...]:
    segments = [s for s in subflow_path.split("/") if s] if subflow_path else []
    return (ROOT_SUBFLOW_ID, *segments)


def _wall_clock_ms() -> int:
    return int(time.time() * 1000)


class RunStepRecorder:
    """Reference RunStep recorder composed of single-purpose trackers.

    Owns: the step store, the boundary stack of open subflows, whether the
    first ``asks`` fired, and the step clock. Delegates fork bookkeeping,
    sibling handoffs, the pending answer, root inference and actor-arrow
    classification to its trackers, and run-boundary detection to a
    RunIdObserver that clears everything when the engine run id changes.
    """

    def __init__(self, clock: Callable[[], float] = _wall_clock_ms) -> None:
        self._clock = clock
        self._store: SequenceStore[RunStep] = SequenceStore()
        self._boundary_stack: list[BoundaryFrame] = []
        self._forks = ForkTracker()
        self._siblings = SequenceSiblingTracker()
        self._answers: CandidateAnswerBuffer[BoundaryFrame] = CandidateAnswerBuffer()
        self._root = RootInferrer()
        self._arrows = ActorArrowClassifier()
        self._asks_emitted = False
        self._run_ids = RunIdObserver(self._reset_for_new_run)
        # A logged subflowPath -> the path its flow hook would see; a log
        # repeats few paths, so each is worked out once.
        self._hook_paths: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._merge_arrows: dict[tuple[str, ...], tuple[Transition, ...]] = {}  # _merge_transitions
        # The slider steps under each path prefix for one root verdict, built
        # on the first read after a step is stored (see get_steps).
        self._slider_index: tuple[bool, dict[tuple[str, ...], list[RunStep]]] | None = None

    # ── state ────────────────────────────────────────────────────────

    @property
    def root_kind(self) -> str | None:
        return self._root.kind

    def is_leaf_root(self) -> bool:
        return self._root.is_leaf_root()

    def clear(self) -> None:
        self._reset_for_new_run()
        self._run_ids.reset()

    def _reset_for_new_run(self) -> None:
        self._store.clear()
        self._slider_index = None
        self._boundary_stack = []
        self._forks.clear()
        self._siblings.clear()
        self._answers.clear()
        self._root.clear()
        self._arrows.clear()
        self._asks_emitted = False

    def _push(self, kind: str, transitions: tuple[Transition, ...], anchor: Anchor,
              label: str, ts_ms: float, meta: dict[str, Any] | None = None) -> None:
        step = RunStep(len(self._store), kind, transitions, anchor, label, ts_ms, meta)
        self._store.push(step, anchor.runtime_stage_id)
        self._slider_index = None

    # ── flow hooks ───────────────────────────────────────────────────
    # Each hook notes the run id, then runs the step logic below with what
    # the context says and the clock's time; a replay runs the same logic
    # with what the logged event says.

    def on_run_start(self, ctx: TraversalContext) -> None:
        self._run_ids.observe(ctx.run_id)

    def on_run_end(self, ctx: TraversalContext) -> None:
        self._run_ids.observe(ctx.run_id)
        self._run_ended()

    def on_subflow_entry(self, subflow_id: str, ctx: TraversalContext,
                         description: str | None = None) -> None:
        if not subflow_id:
            return
        self._run_ids.observe(ctx.run_id)
        self._subflow_entered(subflow_id, path_from_context(ctx.subflow_path),
                              ctx.runtime_stage_id, description, self._clock())

    def on_subflow_exit(self, subflow_id: str, ctx: TraversalContext) -> None:
        self._run_ids.observe(ctx.run_id)
        self._subflow_exited(ctx.runtime_stage_id, self._clock())

    def on_fork(self, parent: str, children: list[str], ctx: TraversalContext) -> None:
        self._run_ids.observe(ctx.run_id)
        self._forked(parent, children, path_from_context(ctx.subflow_path),
                     ctx.runtime_stage_id, self._clock())

    def on_decision(self, chosen: str, ctx: TraversalContext, rationale: str | None = None) -> None:
        self._run_ids.observe(ctx.run_id)
        if last_segment(ctx.stage_id) in AGENT_INTERNAL_STAGES:
            return
        self._decided(chosen, rationale, path_from_context(ctx.subflow_path),
                      ctx.runtime_stage_id, self._clock())

    def on_loop(self, target: str, iteration: float, ctx: TraversalContext) -> None:
        self._run_ids.observe(ctx.run_id)
        self._looped(target, iteration, path_from_context(ctx.subflow_path),
                     ctx.runtime_stage_id, self._clock())

    # ── step logic, shared by the hooks and the replay ───────────────

    def _run_ended(self) -> None:
        candidate = self._answers.flush()
        if candidate is None:
            return
        frame = candidate.frame
        self._push(
            SEQUENTIAL,
            (Transition(frame.subflow_id, ACTOR_USER, "next", "answers"),),
            Anchor(candidate.runtime_stage_id, frame.subflow_path),
            "answers",
            candidate.ts_ms,
        )

    def _subflow_entered(self, subflow_id: str, subflow_path: tuple[str, ...],
                         runtime_stage_id: str, description: str | None, ts: float) -> None:
        depth = len(subflow_path) - 1
        primitive_kind = parse_primitive_kind(description)
        self._root.observe_subflow_entry(depth, primitive_kind)
        frame = BoundaryFrame(subflow_id, subflow_path, primitive_kind, depth)
        if self._forks.is_fork_child(subflow_id):
            # A branch of a tracked fork: its exit feeds the merge, no handoff.
            self._boundary_stack.append(frame)
            return
        if primitive_kind in LEAF_PRIMITIVES:
            anchor = Anchor(runtime_stage_id, subflow_path)
            previous = self._siblings.peek_previous(depth)
            if previous is not None:
                self._push(SEQUENTIAL, (Transition(previous, subflow_id, "next", "forwards"),),
                           anchor, "forwards", ts)
            elif not self._asks_emitted:
                self._push(SEQUENTIAL, (Transition(ACTOR_USER, subflow_id, "next", "asks"),),
                           anchor, "asks", ts)
                self._asks_emitted = True
        self._boundary_stack.append(frame)

    def _subflow_exited(self, runtime_stage_id: str, ts: float) -> None:
        # The exit is paired with the top of the stack, not matched by id:
        # a reference fault kept here on purpose (see the lens projection).
        if not self._boundary_stack:
            return
        frame = self._boundary_stack.pop()
        merge = self._forks.record_child_exit(frame.subflow_id)
        if merge is not None:
            count = len(merge.branches)
            self._push(
                MERGE,
                self._merge_transitions(merge.branches),
                Anchor(runtime_stage_id, frame.subflow_path),
                f"merge ({count})",
                ts,
                {"kind": "merge", "mergedCount": count},
            )
            return
        if self._forks.is_fork_child(frame.subflow_id):
            return
        if frame.primitive_kind in LEAF_PRIMITIVES:
            self._siblings.record_exit(frame.depth, frame.subflow_id)
            self._answers.set(frame, ts, runtime_stage_id)

    def _merge_transitions(self, branches: tuple[str, ...]) -> tuple[Transition, ...]:
        """Each branch handing back to the user; built once per branch list, as
        a fork that repeats (a loop's body) merges the same branches each pass."""
        transitions = self._merge_arrows.get(branches)
        if transitions is None:
            transitions = self._merge_arrows[branches] = tuple(
                Transition(b, ACTOR_USER, "next", last_segment(b)) for b in branches)
        return transitions

    def _forked(self, parent: str, children: list[str], subflow_path: tuple[str, ...],
                runtime_stage_id: str, ts: float) -> None:
        if not self._forks.register_fork(parent, runtime_stage_id, children):
            return
        self._root.observe_fork(len(subflow_path) - 1)
        self._push(
            FORK,
            tuple(Transition(ACTOR_USER, child, "fork-branch", child) for child in children),
            Anchor(runtime_stage_id, subflow_path),
            f"fork ({len(children)})",
            ts,
            {"kind": "fork", "parentSubflowId": parent},
        )

    def _decided(self, chosen: str, rationale: str | None, subflow_path: tuple[str, ...],
                 runtime_stage_id: str, ts: float) -> None:
        self._root.observe_decision(len(subflow_path) - 1)
        meta: dict[str, Any] = {"kind": "decide", "chosen": chosen}
        if rationale:
            meta["rationale"] = rationale
        self._push(
            DECIDE,
            (Transition(runtime_stage_id, chosen, "decision-branch", chosen),),
            Anchor(runtime_stage_id, subflow_path),
            f"routes to {chosen}",
            ts,
            meta,
        )

    def _looped(self, target: str, iteration: float, subflow_path: tuple[str, ...],
                runtime_stage_id: str, ts: float) -> None:
        self._root.observe_loop(len(subflow_path) - 1)
        label = f"iter {js_number_text(iteration)}"
        self._push(
            ITERATION,
            (Transition(target, target, "loop-iteration", label),),
            Anchor(runtime_stage_id, subflow_path),
            label,
            ts,
            {"kind": "iteration", "index": iteration, "target": target},
        )

    # ── typed model-call events ──────────────────────────────────────

    def ingest_typed_event(self, event: dict) -> None:
        """Emit a react step for ``stream.llm_start`` / ``stream.llm_end``.

        The typed ``meta.runId`` is a different id namespace from the engine's
        run id, so it is deliberately not observed here.
        """
        kind = event.get("type")
        if kind == LLM_START:
            meta = event["meta"]
            self.on_llm_start(meta.get("runtimeStageId") or "", meta.get("subflowPath") or (),
                              meta["wallClockMs"])
        elif kind == LLM_END:
            meta = event["meta"]
            self.on_llm_end(meta.get("runtimeStageId") or "", meta.get("subflowPath") or (),
                            meta["wallClockMs"], event["payload"]["toolCallCount"])

    def on_llm_start(self, runtime_stage_id: str, inner_path: Iterable[str], ts_ms: float) -> None:
        arrow = self._arrows.classify_start()
        llm_stage = f"stage:llm:{runtime_stage_id}"
        source = f"stage:tool:{runtime_stage_id}" if arrow == TOOL_TO_LLM else ACTOR_USER
        self._push(REACT, (Transition(source, llm_stage, "actor-arrow", arrow),),
                   Anchor(runtime_stage_id, (ROOT_SUBFLOW_ID, *inner_path)), arrow, ts_ms,
                   {"kind": "react", "actorArrow": arrow})

    def on_llm_end(self, runtime_stage_id: str, inner_path: Iterable[str], ts_ms: float,
                   tool_call_count: float) -> None:
        arrow = self._arrows.classify_end(tool_call_count)
        llm_stage = f"stage:llm:{runtime_stage_id}"
        target = ACTOR_USER if arrow == LLM_TO_USER else f"stage:tool:{runtime_stage_id}"
        self._push(REACT, (Transition(llm_stage, target, "actor-arrow", arrow),),
                   Anchor(runtime_stage_id, (ROOT_SUBFLOW_ID, *inner_path)), arrow, ts_ms,
                   {"kind": "react", "actorArrow": arrow})

    # ── replay of a saved boundary log ───────────────────────────────

    def ingest_domain_event(self, event: dict) -> None:
        """Feed one boundary event as if its hook had fired live.

        A ``fork.branch`` on its own becomes a one-child fork, as in the
        reference; use :meth:`ingest_domain_events` to keep bursts together.
        tool.*, context.*, composition.* and unknown types add no step.
        """
        replay = _REPLAY.get(event.get("type"))
        if replay is not None:
            replay(self, event)

    def ingest_domain_events(self, events: list[dict]) -> None:
        """Replay a whole boundary log with each fork burst as one fork.

        A burst is the ``fork.branch`` events sharing ``parentSubflowId`` and
        ``ts`` up to the first later event with a greater ``ts``; it becomes
        one fork at the first branch's position, as ``buildRunSteps`` does.
        """
        replays = _REPLAY
        for item in coalesce_fork_bursts(events):
            if isinstance(item, ForkBurst):
                first = item.first
                self._run_ids.observe(REPLAY_RUN_ID)
                # The reference replays a burst with no subflow path: the root's.
                self._forked(first["parentSubflowId"], item.children, ROOT_PATH,
                             first["runtimeStageId"], first["ts"])
            else:
                replay = replays.get(item.get("type"))
                if replay is not None:
                    replay(self, item)

    def _hook_path(self, logged_path: list[str]) -> tuple[str, ...]:
        """The subflow path a hook is told for a logged one: the segments below
        the root, empty ones dropped. Each segment is kept whole: a subflow id
        may hold "/", and splitting it would make ``step-reviewers/style``
        the nested ``style`` of ``step-reviewers``."""
        key = tuple(logged_path)
        path = self._hook_paths.get(key)
        if path is None:
            path = self._hook_paths[key] = (ROOT_SUBFLOW_ID,
                                            *(s for s in logged_path[1:] if s))
        return path

    def _replay_run_entry(self, event: dict) -> None:
        self._run_ids.observe(REPLAY_RUN_ID)

    def _replay_run_exit(self, event: dict) -> None:
        self._run_ids.observe(REPLAY_RUN_ID)
        self._run_ended()

    def _replay_subflow_entry(self, event: dict) -> None:
        subflow_id = event["subflowId"]
        if not subflow_id:
            return
        self._run_ids.observe(REPLAY_RUN_ID)
        self._subflow_entered(subflow_id, self._hook_path(event["subflowPath"]),
                              event["runtimeStageId"], event.get("description") or None,
                              event["ts"])

    def _replay_subflow_exit(self, event: dict) -> None:
        self._run_ids.observe(REPLAY_RUN_ID)
        self._subflow_exited(event["runtimeStageId"], event["ts"])

    def _replay_fork(self, event: dict) -> None:
        self._run_ids.observe(REPLAY_RUN_ID)
        self._forked(event["parentSubflowId"], [event["childName"]],
                     self._hook_path(event["subflowPath"]), event["runtimeStageId"],
                     event["ts"])

    def _replay_decision(self, event: dict) -> None:
        self._run_ids.observe(REPLAY_RUN_ID)
        logged_path = event["subflowPath"]
        # The hook's stage id is the last segment of the logged path.
        if last_segment("/".join(logged_path) or ROOT_SUBFLOW_ID) in AGENT_INTERNAL_STAGES:
            return
        self._decided(event["chosen"], event.get("rationale") or None,
                      self._hook_path(logged_path), event["runtimeStageId"],
                      event["ts"])

    def _replay_loop(self, event: dict) -> None:
        self._run_ids.observe(REPLAY_RUN_ID)
        self._looped(event["target"], event["iteration"], self._hook_path(event["subflowPath"]),
                     event["runtimeStageId"], event["ts"])

    def _replay_llm_start(self, event: dict) -> None:
        self.on_llm_start(event["runtimeStageId"], event["subflowPath"][1:], event["ts"])

    def _replay_llm_end(self, event: dict) -> None:
        self.on_llm_end(event["runtimeStageId"], event["subflowPath"][1:], event["ts"],
                        event["toolCallCount"])

    # ── query ────────────────────────────────────────────────────────

    def raw_steps(self) -> list[RunStep]:
        """Every stored step in emit order, before the leaf/composition filter."""
        return list(self._store.get_all())

    def get_steps(self, drill_path: Iterable[str] | None = None) -> list[RunStep]:
        """The slider steps, optionally limited to a drill scope.

        A leaf root keeps only react steps; a composition root keeps all the
        others. The verdict is the root's, applied as-is at every scope.
        """
        keep_react = self._root.is_leaf_root()
        if self._slider_index is None or self._slider_index[0] != keep_react:
            self._slider_index = (keep_react, self._index_slider_steps(keep_react))
        return renumber(self._slider_index[1].get(tuple(drill_path or ()), []))

    def _index_slider_steps(self, keep_react: bool) -> dict[tuple[str, ...], list[RunStep]]:
        """The kept steps under every path prefix, in emit order: one pass, so
        reading the steps of every scope costs the steps shown, not a walk each."""
        under: dict[tuple[str, ...], list[RunStep]] = {}
        for step in self._store.get_all():
            if (step.kind == REACT) != keep_react:
                continue
            path = step.anchor.subflow_path
            for end in range(len(path) + 1):
                prefix = path[:end]
                steps = under.get(prefix)
                if steps is None:
                    under[prefix] = [step]
                else:
                    steps.append(step)
        return under


# Boundary event type -> its replay; tool.*, context.*, composition.* and
# unknown types add no step.
_REPLAY: dict[str, Callable[[RunStepRecorder, dict], None]] = {
    boundary_names.RUN_ENTRY: RunStepRecorder._replay_run_entry,
    boundary_names.RUN_EXIT: RunStepRecorder._replay_run_exit,
    boundary_names.SUBFLOW_ENTRY: RunStepRecorder._replay_subflow_entry,
    boundary_names.SUBFLOW_EXIT: RunStepRecorder._replay_subflow_exit,
    boundary_names.FORK_BRANCH: RunStepRecorder._replay_fork,
    boundary_names.DECISION_BRANCH: RunStepRecorder._replay_decision,
    boundary_names.LOOP_ITERATION: RunStepRecorder._replay_loop,
    boundary_names.LLM_START: RunStepRecorder._replay_llm_start,
    boundary_names.LLM_END: RunStepRecorder._replay_llm_end,
}


# ─── Replay helpers ────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class ForkBurst:
    """The ``fork.branch`` events of one fork, replayed as a single onFork."""

    first: dict
    children: list[str]


def coalesce_fork_bursts(events: list[dict]) -> Iterator[dict | ForkBurst]:
    """Yield the log with each fork burst folded into one :class:`ForkBurst`.

    One forward pass: a burst stays open until an event with a greater ``ts``
    arrives (a heap of open bursts ordered by ``ts``); while any burst is open
    the events after it are held back, in order, and released once every open
    burst has closed, so each burst is complete when it is yielded. The whole
    log costs O(n log b) for b bursts open at once, never a rescan.
    """
    open_bursts: dict[tuple[str, float], ForkBurst] = {}
    seen: set[tuple[str, float]] = set()
    closing: list[tuple[float, int, tuple[str, float]]] = []
    held: list[dict | ForkBurst] = []
    for index, event in enumerate(events):
        if closing:
            ts = event.get("ts")
            if is_number(ts):
                while closing and closing[0][0] < ts:
                    _, _, key = heapq.heappop(closing)
                    open_bursts.pop(key, None)
                if not closing:
                    yield from held
                    held.clear()
        if event.get("type") != boundary_names.FORK_BRANCH:
            if closing:
                held.append(event)
            else:
                yield event
            continue
        ts = event.get("ts")
        key = (event["parentSubflowId"], ts)
        if key not in seen:
            seen.add(key)
            burst = open_bursts[key] = ForkBurst(event, [event["childName"]])
            heapq.heappush(closing, (ts, index, key))
            held.append(burst)
        else:  # a later branch of a burst, or a late one (dropped) once it closed
            burst = open_bursts.get(key)
            if burst is not None:
                burst.children.append(event["childName"])
    yield from held

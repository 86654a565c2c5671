"""RunStepRecorder: the reference slider-step projection, built event by event.

A faithful port of agentfootprint's RunStepRecorder. Flow hooks (run start
and end, subflow entry and exit, fork, decision, loop) and the typed model
call events each do O(1) work and may append one step; :meth:`get_steps`
reads what was built. Replaying a saved boundary log goes through the same
hooks (:meth:`ingest_domain_event`, :meth:`ingest_domain_events`), with the
step clock pinned to the ``ts`` of the event being ingested so replays are
deterministic.

This is the *reference* projection: its known faults are kept on purpose,
because matching the JS output exactly proves the port. The lens projection
corrects them.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from recorders.run_id_observer import RunIdObserver
from recorders.run_step import (
    ACTOR_USER,
    DECIDE,
    FORK,
    ITERATION,
    MERGE,
    REACT,
    ROOT_SUBFLOW_ID,
    SEQUENTIAL,
    Anchor,
    RunStep,
    Transition,
    is_path_prefix,
    renumber,
)
from recorders.sequence_store import SequenceStore
from recorders.trackers.actor_arrows import LLM_TO_USER, TOOL_TO_LLM, ActorArrowClassifier
from recorders.trackers.answer_buffer import CandidateAnswerBuffer
from recorders.trackers.fork_tracker import ForkTracker
from recorders.trackers.root_inferrer import LEAF_PRIMITIVES, RootInferrer
from recorders.trackers.sibling_tracker import SequenceSiblingTracker

LLM_START = "agentfootprint.stream.llm_start"
LLM_END = "agentfootprint.stream.llm_end"

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


@dataclass(frozen=True, slots=True)
class BoundaryFrame:
    """An open subflow on the recorder's boundary stack."""

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
    first ``asks`` fired, and the replay clock. Delegates fork bookkeeping,
    sibling handoffs, the pending answer, root inference and actor-arrow
    classification to its trackers, and run-boundary detection to a
    RunIdObserver that clears everything when the engine run id changes.
    """

    def __init__(self, clock: Callable[[], float] = _wall_clock_ms) -> None:
        self._clock = clock
        self._pinned_ts: float | None = None
        self._store: SequenceStore[RunStep] = SequenceStore()
        self._boundary_stack: list[BoundaryFrame] = []
        self._forks = ForkTracker()
        self._siblings = SequenceSiblingTracker()
        self._answers: CandidateAnswerBuffer[BoundaryFrame] = CandidateAnswerBuffer()
        self._root = RootInferrer()
        self._arrows = ActorArrowClassifier()
        self._asks_emitted = False
        self._run_ids = RunIdObserver(self._reset_for_new_run)

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
        self._boundary_stack = []
        self._forks.clear()
        self._siblings.clear()
        self._answers.clear()
        self._root.clear()
        self._arrows.clear()
        self._asks_emitted = False

    def _now(self) -> float:
        return self._pinned_ts if self._pinned_ts is not None else self._clock()

    def _push(self, kind: str, transitions: tuple[Transition, ...], anchor: Anchor,
              label: str, ts_ms: float, meta: dict[str, Any] | None = None) -> None:
        step = RunStep(len(self._store), kind, transitions, anchor, label, ts_ms, meta)
        self._store.push(step, anchor.runtime_stage_id)

    # ── flow hooks ───────────────────────────────────────────────────

    def on_run_start(self, ctx: TraversalContext) -> None:
        self._run_ids.observe(ctx.run_id)

    def on_run_end(self, ctx: TraversalContext) -> None:
        self._run_ids.observe(ctx.run_id)
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

    def on_subflow_entry(self, subflow_id: str, ctx: TraversalContext,
                         description: str | None = None) -> None:
        if not subflow_id:
            return
        self._run_ids.observe(ctx.run_id)
        subflow_path = path_from_context(ctx.subflow_path)
        depth = len(subflow_path) - 1
        ts = self._now()
        primitive_kind = parse_primitive_kind(description)
        self._root.observe_subflow_entry(depth, primitive_kind)
        frame = BoundaryFrame(subflow_id, subflow_path, primitive_kind, depth)
        if self._forks.is_fork_child(subflow_id):
            # A branch of a tracked fork: its exit feeds the merge, no handoff.
            self._boundary_stack.append(frame)
            return
        if primitive_kind in LEAF_PRIMITIVES:
            anchor = Anchor(ctx.runtime_stage_id, subflow_path)
            previous = self._siblings.peek_previous(depth)
            if previous is not None:
                self._push(SEQUENTIAL, (Transition(previous, subflow_id, "next", "forwards"),),
                           anchor, "forwards", ts)
            elif not self._asks_emitted:
                self._push(SEQUENTIAL, (Transition(ACTOR_USER, subflow_id, "next", "asks"),),
                           anchor, "asks", ts)
                self._asks_emitted = True
        self._boundary_stack.append(frame)

    def on_subflow_exit(self, subflow_id: str, ctx: TraversalContext) -> None:
        # The exit is paired with the top of the stack, not matched by id:
        # a reference fault kept here on purpose (see the lens projection).
        self._run_ids.observe(ctx.run_id)
        ts = self._now()
        if not self._boundary_stack:
            return
        frame = self._boundary_stack.pop()
        merge = self._forks.record_child_exit(frame.subflow_id)
        if merge is not None:
            count = len(merge.branches)
            self._push(
                MERGE,
                tuple(Transition(b, ACTOR_USER, "next", last_segment(b)) for b in merge.branches),
                Anchor(ctx.runtime_stage_id, frame.subflow_path),
                f"merge ({count})",
                ts,
                {"kind": "merge", "mergedCount": count},
            )
            return
        if self._forks.is_fork_child(frame.subflow_id):
            return
        if frame.primitive_kind in LEAF_PRIMITIVES:
            self._siblings.record_exit(frame.depth, frame.subflow_id)
            self._answers.set(frame, ts, ctx.runtime_stage_id)

    def on_fork(self, parent: str, children: list[str], ctx: TraversalContext) -> None:
        self._run_ids.observe(ctx.run_id)
        subflow_path = path_from_context(ctx.subflow_path)
        ts = self._now()
        if not self._forks.register_fork(parent, ctx.runtime_stage_id, children):
            return
        self._root.observe_fork(len(subflow_path) - 1)
        self._push(
            FORK,
            tuple(Transition(ACTOR_USER, child, "fork-branch", child) for child in children),
            Anchor(ctx.runtime_stage_id, subflow_path),
            f"fork ({len(children)})",
            ts,
            {"kind": "fork", "parentSubflowId": parent},
        )

    def on_decision(self, chosen: str, ctx: TraversalContext, rationale: str | None = None) -> None:
        self._run_ids.observe(ctx.run_id)
        if last_segment(ctx.stage_id) in AGENT_INTERNAL_STAGES:
            return
        subflow_path = path_from_context(ctx.subflow_path)
        ts = self._now()
        self._root.observe_decision(len(subflow_path) - 1)
        meta: dict[str, Any] = {"kind": "decide", "chosen": chosen}
        if rationale:
            meta["rationale"] = rationale
        self._push(
            DECIDE,
            (Transition(ctx.runtime_stage_id, chosen, "decision-branch", chosen),),
            Anchor(ctx.runtime_stage_id, subflow_path),
            f"routes to {chosen}",
            ts,
            meta,
        )

    def on_loop(self, target: str, iteration: float, ctx: TraversalContext) -> None:
        self._run_ids.observe(ctx.run_id)
        subflow_path = path_from_context(ctx.subflow_path)
        ts = self._now()
        self._root.observe_loop(len(subflow_path) - 1)
        label = f"iter {js_number_text(iteration)}"
        self._push(
            ITERATION,
            (Transition(target, target, "loop-iteration", label),),
            Anchor(ctx.runtime_stage_id, subflow_path),
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
        """
        kind = event.get("type")
        if kind not in _FLOW_DISPATCH and kind not in _LLM_TYPES:
            return  # tool.*, context.*, composition.* and unknown types add no step
        path = event["subflowPath"]
        ctx = _replay_context(event, with_subflow_path=True)
        self._pinned_ts = event["ts"]
        try:
            if kind in _LLM_TYPES:
                if kind == "llm.start":
                    self.on_llm_start(event["runtimeStageId"], path[1:], event["ts"])
                else:
                    self.on_llm_end(event["runtimeStageId"], path[1:], event["ts"],
                                    event["toolCallCount"])
            else:
                _FLOW_DISPATCH[kind](self, event, ctx)
        finally:
            self._pinned_ts = None

    def ingest_domain_events(self, events: list[dict]) -> None:
        """Replay a whole boundary log with each fork burst as one fork.

        A burst is the ``fork.branch`` events sharing ``parentSubflowId`` and
        ``ts`` up to the first later event with a greater ``ts``; it becomes
        one fork at the first branch's position, as ``buildRunSteps`` does.
        """
        for item in coalesce_fork_bursts(events):
            if isinstance(item, ForkBurst):
                first = item.first
                ctx = _replay_context(first, with_subflow_path=False)
                self._pinned_ts = first["ts"]
                try:
                    self.on_fork(first["parentSubflowId"], item.children, ctx)
                finally:
                    self._pinned_ts = None
            else:
                self.ingest_domain_event(item)

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
        prefix = tuple(drill_path or ())
        return renumber([
            s for s in self._store.get_all()
            if (s.kind == REACT) == keep_react and is_path_prefix(prefix, s.anchor.subflow_path)
        ])


# ─── Replay helpers ────────────────────────────────────────────────────


def _replay_context(event: dict, with_subflow_path: bool) -> TraversalContext:
    path = event["subflowPath"]
    joined = "/".join(path)
    stage = last_segment(joined or ROOT_SUBFLOW_ID)
    inner = "/".join(path[1:]) if with_subflow_path and len(path) > 1 else None
    depth = event.get("depth")
    return TraversalContext(REPLAY_RUN_ID, stage, event["runtimeStageId"], inner,
                            depth if isinstance(depth, int) else 0)


def _replay_subflow_entry(rec: RunStepRecorder, e: dict, ctx: TraversalContext) -> None:
    rec.on_subflow_entry(e["subflowId"], ctx, e.get("description") or None)


def _replay_subflow_exit(rec: RunStepRecorder, e: dict, ctx: TraversalContext) -> None:
    rec.on_subflow_exit(e["subflowId"], ctx)


def _replay_fork(rec: RunStepRecorder, e: dict, ctx: TraversalContext) -> None:
    rec.on_fork(e["parentSubflowId"], [e["childName"]], ctx)


def _replay_decision(rec: RunStepRecorder, e: dict, ctx: TraversalContext) -> None:
    rec.on_decision(e["chosen"], ctx, e.get("rationale") or None)


def _replay_loop(rec: RunStepRecorder, e: dict, ctx: TraversalContext) -> None:
    rec.on_loop(e["target"], e["iteration"], ctx)


_FLOW_DISPATCH: dict[str, Callable[[RunStepRecorder, dict, TraversalContext], None]] = {
    "run.entry": lambda rec, e, ctx: rec.on_run_start(ctx),
    "run.exit": lambda rec, e, ctx: rec.on_run_end(ctx),
    "subflow.entry": _replay_subflow_entry,
    "subflow.exit": _replay_subflow_exit,
    "fork.branch": _replay_fork,
    "decision.branch": _replay_decision,
    "loop.iteration": _replay_loop,
}
_LLM_TYPES = frozenset({"llm.start", "llm.end"})


@dataclass(frozen=True, slots=True)
class ForkBurst:
    """The ``fork.branch`` events of one fork, replayed as a single onFork."""

    first: dict
    children: list[str]


def coalesce_fork_bursts(events: list[dict]) -> Iterator[dict | ForkBurst]:
    """Yield the log with each fork burst folded into one :class:`ForkBurst`.

    Grouping runs in one forward pass: a burst stays open until an event with
    a greater ``ts`` arrives (a heap of open bursts ordered by ``ts``), so the
    whole log costs O(n log b) for b bursts open at once, never a rescan.
    """
    children_at: dict[int, list[str]] = {}
    skip: set[int] = set()
    open_bursts: dict[tuple[str, float], int] = {}
    seen: set[tuple[str, float]] = set()
    closing: list[tuple[float, int, tuple[str, float]]] = []
    for index, event in enumerate(events):
        ts = event.get("ts")
        if _is_number(ts):
            while closing and closing[0][0] < ts:
                _, _, key = heapq.heappop(closing)
                open_bursts.pop(key, None)
        if event.get("type") != "fork.branch":
            continue
        key = (event["parentSubflowId"], ts)
        if key not in seen:
            seen.add(key)
            open_bursts[key] = index
            children_at[index] = [event["childName"]]
            heapq.heappush(closing, (ts, index, key))
        else:
            skip.add(index)
            first = open_bursts.get(key)
            if first is not None:
                children_at[first].append(event["childName"])
    for index, event in enumerate(events):
        if index in skip:
            continue
        children = children_at.get(index)
        yield ForkBurst(event, children) if children is not None else event


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def js_number_text(value: float) -> str:
    """A number as JS template strings print it (``3``, not ``3.0``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)

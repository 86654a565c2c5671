"""The lens projection: the steps a person expects, for every scope of a run.

Built in one forward pass over the boundary log, O(1) work per event (owner
lookups walk at most the nesting depth). Every step belongs to exactly one
scope, and each scope follows its own row of the contract in DESIGN.md:

================  ==========================================================
scope kind        steps
================  ==========================================================
llmcall, agent    a ``react`` step per model-call start and end
sequence          ``asks``, ``forwards`` × (N−1), ``answers``
parallel          ``fork (N)``, then ``merge (N)`` once every branch exited
conditional       ``decide`` (chosen branch, rationale), then ``answers``
loop              one ``iteration`` step per pass
================  ==========================================================

A run that crashes (its root ``run.exit`` carries ``{"error": ...}``) is said
so where it crashed, in every scope still open when it unwound: a model-call
scope's latest step (the start of the call that never ended, if one is open)
carries ``crashed`` and the ``error``; a composition gets a ``crashed`` step
from the child that was running, with the error, where it would have said
``answers`` (or merged).

``get_steps(path)`` returns the steps of the scope at ``path``: drilling into
a child applies the child's own row. The corrections to the reference
recorder are listed, with evidence, in ``docs/lens-projection.md``.
"""

from __future__ import annotations

from typing import Any, Iterable

from recorders import boundary_names
from recorders.loading import Recording
from recorders.catalogue import CONTEXT_EVALUATED
from recorders.counting import noun_for
from recorders.evidence.run_groups import resumes_of_last_run
from recorders.route_recorder import RouteRecorder, replay_route
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
    is_path_prefix,
    renumber,
)
from recorders.lens_scopes import (
    AGENT,
    CONDITIONAL,
    LEAF_KINDS,
    LLMCALL,
    LOOP,
    PARALLEL,
    ROOT_PATH,
    SEQUENCE,
    ChildRecord,
    ScopeInfo,
    ScopeRun,
    ScopeTracker,
    scope_kind_of,
)
from recorders.run_step_recorder import last_segment, parse_primitive_kind
from recorders.values import nearest_known_prefix
from recorders.trackers.actor_arrows import LLM_TO_TOOL, LLM_TO_USER, TOOL_TO_LLM

_COMPOSITION_KINDS = frozenset({SEQUENCE, PARALLEL, CONDITIONAL, LOOP})

# The step a composition ends with when the run crashed inside it (its kind and label).
CRASHED = "crashed"
# A model-call step's ``meta["crashed"]``: where the crash was, relative to the step.
CRASHED_IN_CALL = "in this model call"
CRASHED_AFTER_STEP = "after this step"


def crash_error(event: dict) -> str | None:
    """The error a ``run.exit`` reports, as text; None when the run did not crash."""
    payload = event.get("payload")
    if not isinstance(payload, dict) or payload.get("error") is None:
        return None
    error = payload["error"]
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    return error if isinstance(error, str) else repr(error)


class LensStepRecorder:
    """Owns the lens steps and the per-scope step lists; feeds a ScopeTracker.

    Owns: every step in emit order, the steps of each scope path, and the
    fork burst being gathered. Delegates scope bookkeeping (which scope is
    open, which scope an event belongs to) to ScopeTracker, and arrow
    classification to one ActorArrowClassifier per scope execution.

    Does not own the route, the typed stream or anything about rendering.
    """

    def __init__(self, resumes: int = 0) -> None:
        self.scopes = ScopeTracker()
        # How many later ``run.entry`` events continue the run (a resume after a
        # pause for a person, as the typed stream records) instead of starting one.
        self._resumes_left = resumes
        self._steps: list[RunStep] = []
        self._steps_by_scope: dict[tuple[str, ...], list[int]] = {}
        self._burst: dict[str, Any] | None = None
        self._run_started = False
        # Scopes whose context received a skill injection: skill-graph agents.
        self.skill_scopes: set[tuple[str, ...]] = set()

    # ── queries ──────────────────────────────────────────────────────

    @property
    def root_kind(self) -> str | None:
        root = self.scopes.infos.get(ROOT_PATH)
        return root.kind if root is not None else None

    def raw_steps(self) -> list[RunStep]:
        return list(self._steps)

    def scope_infos(self) -> dict[tuple[str, ...], ScopeInfo]:
        return self.scopes.infos

    def scope_kind(self, path: Iterable[str] | None) -> str | None:
        return self.scopes.infos[self._scope_path_for(tuple(path or ROOT_PATH))].kind \
            if self.scopes.infos else None

    def get_steps(self, drill_path: Iterable[str] | None = None) -> list[RunStep]:
        """The steps of the scope at ``drill_path`` (the root by default).

        A path inside a scope but not a scope itself (an internal wrapper)
        shows the enclosing scope's steps that happened under that path.
        """
        path = tuple(drill_path or ROOT_PATH)
        if not path or not self.scopes.infos:
            return []
        scope_path = self._scope_path_for(path)
        indices = self._steps_by_scope.get(scope_path, [])
        steps = [self._steps[i] for i in indices]
        if scope_path != path:
            steps = [s for s in steps if is_path_prefix(path, s.anchor.subflow_path)]
        return renumber(steps)

    def _scope_path_for(self, path: tuple[str, ...]) -> tuple[str, ...]:
        return nearest_known_prefix(path, self.scopes.infos) or ROOT_PATH

    # ── ingest ───────────────────────────────────────────────────────

    def ingest_domain_events(self, events: Iterable[dict]) -> None:
        for event in events:
            self.ingest_domain_event(event)
        self.finish()

    def finish(self) -> None:
        """Flush what is still buffered when the log ends (a cut run too)."""
        self._flush_burst()

    def ingest_domain_event(self, event: dict) -> None:
        kind = event.get("type")
        if self._burst is not None and not self._continues_burst(event):
            self._flush_burst()
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, event)

    # ── handlers ─────────────────────────────────────────────────────

    def _on_run_entry(self, event: dict) -> None:
        if self._run_started and self._resumes_left and self._root_open():
            # The run paused for a person and was resumed: the same run goes on in
            # its open scopes, and its steps before the pause stay.
            self._resumes_left -= 1
            return
        if self._run_started:
            # A second run in one log: the log holds the last run only.
            self._steps.clear()
            self._steps_by_scope.clear()
            self.skill_scopes.clear()
            self.scopes.clear()
        self._run_started = True
        self.scopes.open_root(event["runtimeStageId"])

    def _root_open(self) -> bool:
        """Whether the run is still open: no ``run.exit`` since its ``run.entry``."""
        root = self.scopes.root
        return root is not None and not root.ended

    def _on_run_exit(self, event: dict) -> None:
        root = self.scopes.ensure_root()
        error = crash_error(event)
        if error is not None:
            self._show_crash(error, event)
        self._end_scope(root, event)

    def _show_crash(self, error: str, event: dict) -> None:
        """Say the run crashed in each scope it unwound, the deepest first.

        Without this, a crashed Sequence read ``answers`` from its last child
        that finished, and nothing said where the run stopped."""
        for run in self.scopes.open_runs():
            if run.ended:
                continue
            if run.kind in LEAF_KINDS:
                self._mark_crashed_step(run, error)
            elif run.kind in _COMPOSITION_KINDS:
                self._emit_crashed(run, error, event)

    def _mark_crashed_step(self, run: ScopeRun, error: str) -> None:
        index = run.open_call_step if run.open_call_step is not None else run.last_step
        if index is None:
            return  # it crashed before its first model call: its parent says so
        where = CRASHED_IN_CALL if index == run.open_call_step else CRASHED_AFTER_STEP
        step = self._steps[index]
        self._steps[index] = step._replace(meta={**(step.meta or {}),
                                                 "crashed": where, "error": error})

    def _emit_crashed(self, run: ScopeRun, error: str, event: dict) -> None:
        run.ended = True  # no ``answers`` or merge after a crash
        running = [record for records in run.running_children.values() for record in records]
        if not running and run.last_exited is not None:
            running = [run.last_exited]  # it crashed between two children
        if not running:
            return
        self._emit(run, CRASHED,
                   tuple(Transition(r.subflow_id, ACTOR_USER, "next", CRASHED) for r in running),
                   Anchor(event["runtimeStageId"], running[-1].path), CRASHED, event["ts"],
                   {"kind": CRASHED, "error": error})

    def _on_composition_start(self, event: dict) -> None:
        kind = scope_kind_of(event.get("kind"))
        run = self.scopes.open_at(tuple(event["subflowPath"]))
        if run is None:
            run = self.scopes.ensure_root() if tuple(event["subflowPath"]) == ROOT_PATH else None
        if run is not None and kind is not None and run.info.kind is None:
            run.info.kind = kind

    def _on_composition_end(self, event: dict) -> None:
        run = self.scopes.open_at(tuple(event["subflowPath"]))
        if run is not None and run.kind in _COMPOSITION_KINDS:
            self._end_scope(run, event)

    def _on_subflow_entry(self, event: dict) -> None:
        self.scopes.ensure_root()
        path = tuple(event["subflowPath"])
        kind = scope_kind_of(event.get("primitiveKind")) or scope_kind_of(
            parse_primitive_kind(event.get("description")))
        if kind is None or event.get("isAgentInternal") is True or event.get("slotKind"):
            if kind == LLMCALL:
                # An LLMCall's own wrapper: its owner is an LLMCall leaf.
                owner = self.scopes.owner_of(path)
                if owner.kind is None:
                    owner.info.kind = LLMCALL
            return
        child, parent = self.scopes.open_child(path, event["subflowId"], kind,
                                               event.get("subflowName"), event["runtimeStageId"])
        record = ChildRecord(child.subflow_id or "", path, event["runtimeStageId"])
        parent.children.append(record)
        running = parent.running_children.get(record.subflow_id)
        if running is None:
            parent.running_children[record.subflow_id] = [record]
        else:
            running.append(record)
        self._on_child_entry(parent, record, event)

    def _on_subflow_exit(self, event: dict) -> None:
        run = self.scopes.close(event["subflowId"])
        if run is None:
            return  # an internal subflow, or an exit that never entered
        self._end_scope(run, event)
        parent = self.scopes.parent_of(run)
        if parent is None:
            return
        running = parent.running_children.get(run.subflow_id)
        if not running:
            return
        record = running.pop()  # the latest of its entries still running
        record.exit_stage = event["runtimeStageId"]
        record.exit_ts = event["ts"]
        parent.last_exited = record
        self._on_child_exit(parent, record, event)

    def _on_fork_branch(self, event: dict) -> None:
        if self._burst is None:
            self._burst = {"first": event, "children": [event["childName"]]}
        else:
            self._burst["children"].append(event["childName"])

    def _continues_burst(self, event: dict) -> bool:
        first = self._burst["first"]
        return (event.get("type") == boundary_names.FORK_BRANCH
                and event.get("parentSubflowId") == first["parentSubflowId"]
                and event.get("runtimeStageId") == first["runtimeStageId"])

    def _flush_burst(self) -> None:
        burst, self._burst = self._burst, None
        if burst is None:
            return
        first = burst["first"]
        owner = self.scopes.owner_of_stage(first["runtimeStageId"])
        if owner.kind != PARALLEL or owner.forked:
            return  # an Agent's context-assembly fork, or a repeated announcement
        children = tuple(burst["children"])
        owner.forked = True
        owner.expected_branches = children
        self._emit(owner, FORK,
                   tuple(Transition(ACTOR_USER, c, "fork-branch", c) for c in children),
                   Anchor(first["runtimeStageId"], owner.path),
                   f"fork ({len(children)})", first["ts"],
                   {"kind": "fork", "parentSubflowId": first["parentSubflowId"]})

    def _on_decision(self, event: dict) -> None:
        if event.get("isAgentInternal") is True:
            return
        owner = self.scopes.owner_of_stage(event["runtimeStageId"])
        if owner.kind != CONDITIONAL:
            return
        meta: dict[str, Any] = {"kind": "decide", "chosen": event["chosen"]}
        if event.get("rationale"):
            meta["rationale"] = event["rationale"]
        if isinstance(event.get("decider"), str):
            meta["decider"] = event["decider"]
        rid = event["runtimeStageId"]
        self._emit(owner, DECIDE,
                   (Transition(rid, event["chosen"], "decision-branch", event["chosen"]),),
                   Anchor(rid, owner.path), f"routes to {event['chosen']}", event["ts"], meta)

    def _on_llm_start(self, event: dict) -> None:
        owner = self._leaf_owner(event)
        if owner is None:
            return
        rid = event["runtimeStageId"]
        arrow = owner.arrows.classify_start()
        meta: dict[str, Any] = {"kind": "react", "actorArrow": arrow}
        if arrow == TOOL_TO_LLM:
            source = f"stage:tool:{rid}"
            meta["toolNames"] = list(owner.tools_since_call)
            if owner.failed_tools_since_call:
                meta["failedTools"] = list(owner.failed_tools_since_call)
        else:
            source = ACTOR_USER
        owner.tools_since_call.clear()
        owner.failed_tools_since_call.clear()
        owner.pending_tool_step = None
        owner.open_call_step = self._emit(
            owner, REACT, (Transition(source, f"stage:llm:{rid}", "actor-arrow", arrow),),
            Anchor(rid, tuple(event["subflowPath"])), arrow, event["ts"], meta)

    def _on_llm_end(self, event: dict) -> None:
        owner = self._leaf_owner(event)
        if owner is None:
            return
        rid = event["runtimeStageId"]
        arrow = owner.arrows.classify_end(event["toolCallCount"])
        target = ACTOR_USER if arrow == LLM_TO_USER else f"stage:tool:{rid}"
        meta: dict[str, Any] = {"kind": "react", "actorArrow": arrow}
        if arrow == LLM_TO_TOOL:
            meta["toolCallCount"] = event["toolCallCount"]
            meta["toolNames"] = []
        index = self._emit(owner, REACT,
                           (Transition(f"stage:llm:{rid}", target, "actor-arrow", arrow),),
                           Anchor(rid, tuple(event["subflowPath"])), arrow, event["ts"], meta)
        owner.pending_tool_step = index if arrow == LLM_TO_TOOL else None
        owner.open_call_step = None

    def _on_tool_start(self, event: dict) -> None:
        owner = self.scopes.owner_of(tuple(event["subflowPath"]))
        name = event["toolName"]
        owner.tools_since_call.append(name)
        if isinstance(event.get("toolCallId"), str):
            owner.tool_names_by_call[event["toolCallId"]] = name
        index = owner.pending_tool_step
        if index is not None:
            # Name the tools on the llm→tool step that asked for them.
            step = self._steps[index]
            meta = dict(step.meta or {})
            meta["toolNames"] = [*meta.get("toolNames", []), name]
            self._steps[index] = step._replace(meta=meta)

    def _on_tool_end(self, event: dict) -> None:
        if event.get("error") is not True:
            return
        owner = self.scopes.owner_of(tuple(event["subflowPath"]))
        call_id = event.get("toolCallId")
        # The failed tool's name comes from its start, matched by call id.
        owner.failed_tools_since_call.append(owner.tool_names_by_call.get(call_id, str(call_id)))

    def _on_context_injected(self, event: dict) -> None:
        if event.get("source") == "skill":
            self.skill_scopes.add(self.scopes.owner_of(tuple(event["subflowPath"])).path)

    # ── scope kinds ──────────────────────────────────────────────────

    def _leaf_owner(self, event: dict) -> ScopeRun | None:
        owner = self.scopes.owner_of(tuple(event["subflowPath"]))
        if owner.kind is None:
            owner.info.kind = AGENT  # model calls straight in a scope: an Agent's loop
        return owner if owner.kind in LEAF_KINDS else None

    def _on_child_entry(self, parent: ScopeRun, child: ChildRecord, event: dict) -> None:
        rid, ts, path = event["runtimeStageId"], event["ts"], child.path
        if parent.kind == SEQUENCE:
            previous = parent.children[-2] if len(parent.children) > 1 else None
            if previous is None:
                self._emit(parent, SEQUENTIAL,
                           (Transition(ACTOR_USER, child.subflow_id, "next", "asks"),),
                           Anchor(rid, path), "asks", ts)
            else:
                self._emit(parent, SEQUENTIAL,
                           (Transition(previous.subflow_id, child.subflow_id, "next", "forwards"),),
                           Anchor(rid, path), "forwards", ts)
        elif parent.kind == LOOP:
            index = len(parent.children)
            label = f"iter {index}"
            self._emit(parent, ITERATION,
                       (Transition(child.subflow_id, child.subflow_id, "loop-iteration", label),),
                       Anchor(rid, path), label, ts,
                       {"kind": "iteration", "index": index, "target": child.subflow_id})

    def _on_child_exit(self, parent: ScopeRun, child: ChildRecord, event: dict) -> None:
        if parent.kind != PARALLEL or parent.merged:
            return
        parent.exited_branches.append(child.subflow_id)
        expected = parent.expected_branches
        if expected and set(expected) <= set(parent.exited_branches):
            self._emit_merge(parent, expected, event)

    def _end_scope(self, run: ScopeRun, event: dict) -> None:
        if run.ended:
            return
        run.ended = True
        last = run.last_exited
        if run.kind in (SEQUENCE, CONDITIONAL) and last is not None:
            self._emit(run, SEQUENTIAL,
                       (Transition(last.subflow_id, ACTOR_USER, "next", "answers"),),
                       Anchor(last.exit_stage or "", last.path), "answers",
                       last.exit_ts if last.exit_ts is not None else event["ts"])
        elif run.kind == PARALLEL and not run.merged and run.exited_branches:
            entered = {c.subflow_id for c in run.children}
            if run.expected_branches and entered & set(run.expected_branches):
                return  # an announced branch never exited (a cut run): no merge
            # The fork's branch names never matched the subflows that ran, or
            # no fork was announced: merge the branches that did exit.
            self._emit_merge(run, tuple(dict.fromkeys(run.exited_branches)), event)

    def _emit_merge(self, run: ScopeRun, branches: tuple[str, ...], event: dict) -> None:
        run.merged = True
        count = len(branches)
        self._emit(run, MERGE,
                   tuple(Transition(b, ACTOR_USER, "next", last_segment(b)) for b in branches),
                   Anchor(event["runtimeStageId"], run.path), f"merge ({count})", event["ts"],
                   {"kind": "merge", "mergedCount": count})

    def _emit(self, run: ScopeRun, kind: str, transitions: tuple[Transition, ...],
              anchor: Anchor, label: str, ts_ms: float,
              meta: dict[str, Any] | None = None) -> int:
        """Store a step of ``run``'s scope, numbered in emit order; returns its index."""
        index = len(self._steps)
        self._steps.append(RunStep(index, kind, transitions, anchor, label, ts_ms, meta))
        run.last_step = index
        positions = self._steps_by_scope.get(run.path)
        if positions is None:
            self._steps_by_scope[run.path] = [index]
        else:
            positions.append(index)
        return index


_HANDLERS = {
    boundary_names.RUN_ENTRY: LensStepRecorder._on_run_entry,
    boundary_names.RUN_EXIT: LensStepRecorder._on_run_exit,
    boundary_names.COMPOSITION_START: LensStepRecorder._on_composition_start,
    boundary_names.COMPOSITION_END: LensStepRecorder._on_composition_end,
    boundary_names.SUBFLOW_ENTRY: LensStepRecorder._on_subflow_entry,
    boundary_names.SUBFLOW_EXIT: LensStepRecorder._on_subflow_exit,
    boundary_names.FORK_BRANCH: LensStepRecorder._on_fork_branch,
    boundary_names.DECISION_BRANCH: LensStepRecorder._on_decision,
    boundary_names.LLM_START: LensStepRecorder._on_llm_start,
    boundary_names.LLM_END: LensStepRecorder._on_llm_end,
    boundary_names.TOOL_START: LensStepRecorder._on_tool_start,
    boundary_names.TOOL_END: LensStepRecorder._on_tool_end,
    boundary_names.CONTEXT_INJECTED: LensStepRecorder._on_context_injected,
}


# ─── Assembly ──────────────────────────────────────────────────────────


def lens_run_steps(recording: Recording) -> LensStepRecorder:
    """The steps of the run the boundary log holds, every part of a run that
    paused and was resumed included (the typed stream says how many resumes:
    the boundary log has no run ids)."""
    recorder = LensStepRecorder(resumes_of_last_run(recording.typed_events))
    recorder.ingest_domain_events(recording.boundary_events)
    return recorder


def lens_route(recording: Recording) -> RouteRecorder:
    """The route with each hop landing where the resolver says the cursor moved."""
    return replay_route(recording.typed_events, follow_cursor_move=True)


def nested_skill_graphs(recording: Recording, steps: LensStepRecorder) -> tuple[str, ...]:
    """Skill-graph agents nested in a composition whose route the file does not
    carry (a composition's saved typed stream has no routing events for them),
    by scope path: the recording shows they exist, not which skills they visited."""
    if recording.typed_counts.get(CONTEXT_EVALUATED, 0):
        return ()
    return tuple(sorted("/".join(path[1:]) for path in steps.skill_scopes if path != ROOT_PATH))


def lens_notes(recording: Recording, steps: LensStepRecorder) -> list[str]:
    """What this projection cannot show for this recording, said plainly."""
    notes: list[str] = []
    if not recording.has_boundary_log:
        notes.append("no boundary log: there are no steps to show")
    if not recording.has_typed_stream:
        notes.append("no typed event stream: the skill route cannot be rebuilt")
    nested = nested_skill_graphs(recording, steps)
    if nested:
        notes.append(
            noun_for(len(nested), "skill-graph agent") + " nested in a composition ("
            + ", ".join(nested)
            + "): a composition's saved typed stream does not carry their route events, "
            "so their route cannot be shown")
    return notes

"""One test per lens correction, each failing if the correction is undone.

The reference behaviour each one replaces is documented in
docs/lens-projection.md; where a corpus recording shows the difference, the
test reads the reference output from that case's expected.json.
"""

from __future__ import annotations

from boundary_builder import BoundaryLog
from corpus_files import load_expected, recording_path
from recorders.lens_projection import LensStepRecorder
from recorders.loading import load_path, load_recording
from recorders.projections import build_projection
from recorders.route_recorder import replay_route


def lens(log: BoundaryLog) -> LensStepRecorder:
    recorder = LensStepRecorder()
    recorder.ingest_domain_events(log.events)
    return recorder


def labels(steps) -> list[str]:
    return [s.label for s in steps]


def reference_steps(case: str, drill: list[str] | None = None) -> list[dict]:
    expected = load_expected(case)["runSteps"]["replayCoalesced"]
    if drill is None:
        return expected["steps"]
    return next(d["steps"] for d in expected["drill"] if d["path"] == drill)


def agent_turn(log: BoundaryLog, agent: list[str], n: int, tools: int) -> None:
    """One ReAct iteration with the Agent's internals around the model call."""
    prefix = "/".join(agent) + "/" if agent else ""
    log.fork("selector-temp", [f"{prefix}System Prompt", f"{prefix}Messages"],
             stage=f"{prefix}context#{n}")
    log.enter(f"{prefix}sf-cache", "CacheDecision", path=[*agent, "sf-cache"], internal=True)
    log._add("decision.branch", [], f"{prefix}sf-cache/cache-gate#{n}", decider="CacheGate",
             chosen="ApplyMarkers", isAgentInternal=True)
    log.exit(f"{prefix}sf-cache", path=[*agent, "sf-cache"])
    log.llm(agent, f"{prefix}call-llm#{n}", tool_calls=tools)
    log._add("decision.branch", [], f"{prefix}sf-route#{n}", decider="Route",
             chosen="ToolCalls" if tools else "Final", isAgentInternal=True)
    if tools:
        log.tool(agent, f"{prefix}tool-calls#{n}", "lookup", f"call-{n}")
        log.loop(f"{prefix}Injection Engine", 1, stage=f"{prefix}tool-calls#{n}")


# ── 1. Agent internals are not composition signals ───────────────────

def test_an_agent_run_is_an_agent_not_a_parallel():
    log = BoundaryLog().run_entry()
    agent_turn(log, [], 1, tools=1)
    agent_turn(log, [], 2, tools=0)
    recorder = lens(log.run_exit())
    assert recorder.root_kind == "agent"
    assert labels(recorder.get_steps()) == ["user→llm", "llm→tool", "tool→llm", "llm→user"]


def test_on_the_corpus_the_reference_hides_the_agents_arrows_and_the_lens_shows_them():
    case = "agent-refund-multi-tools-error"
    reference = reference_steps(case)
    assert {s["kind"] for s in reference} == {"fork", "decide", "iteration"}
    steps = build_projection(load_path(recording_path(case)), "lens").get_steps()
    assert {s.kind for s in steps} == {"react"} and len(steps) == 10


# ── 2. The step filter is decided per scope, not once per run ─────────

def test_drilling_into_an_agent_inside_a_composition_shows_its_arrows():
    case = "conditional-routes-to-agent"
    assert labels_of(reference_steps(case, ["__root__", "billing"])) == ["asks", "answers"]
    drilled = build_projection(load_path(recording_path(case)), "lens").get_steps(["__root__", "billing"])
    assert labels(drilled) == ["user→llm", "llm→tool", "tool→llm", "llm→user"]


def labels_of(wire_steps: list[dict]) -> list[str]:
    return [s["label"] for s in wire_steps]


# ── 3. Actor arrows are classified per scope ─────────────────────────

def test_interleaved_parallel_agents_keep_their_own_arrows():
    log = BoundaryLog().run_entry().composition("Parallel").fork("Initialize", ["a", "b"], stage="seed#0")
    log.enter("a", "Agent", internal=False).enter("b", "Agent", internal=False)
    log._add("llm.start", ["a"], "a/call-llm#1")
    log._add("llm.start", ["b"], "b/call-llm#2")
    log._add("llm.end", ["a"], "a/call-llm#1", toolCallCount=1)   # a asks for a tool
    log._add("llm.end", ["b"], "b/call-llm#2", toolCallCount=0)   # b answers meanwhile
    log.tool(["a"], "a/tool-calls#3", "lookup", "c1")
    log._add("llm.start", ["a"], "a/call-llm#4")                   # a continues after its tool
    log._add("llm.end", ["a"], "a/call-llm#4", toolCallCount=0)
    recorder = lens(log.exit("a").exit("b").run_exit())
    assert labels(recorder.get_steps(["__root__", "a"])) == ["user→llm", "llm→tool", "tool→llm", "llm→user"]
    assert labels(recorder.get_steps(["__root__", "b"])) == ["user→llm", "llm→user"]


# ── 4. Forks are told apart by parent and stage, not parent and millisecond ──

def test_two_forks_in_the_same_millisecond_stay_two_forks():
    log = BoundaryLog().run_entry().composition("Loop")
    for n, stage in ((1, "body/seed#3"), (2, "body/seed#40")):
        log.enter("body", "Parallel", internal=False, stage=f"body#{n}")
        log.composition("Parallel", path=["body"], stage=stage)
        ts = 5000  # both passes fork within one millisecond
        for child in ("body/x", "body/y"):
            log._add("fork.branch", [], stage, ts=ts, parentSubflowId="body/Initialize", childName=child)
        for child in ("body/x", "body/y"):
            log.enter(child, "LLMCall", internal=False)
        for child in ("body/x", "body/y"):
            log.exit(child)
        log.composition("Parallel", path=["body"], end=True, stage=f"body/merge#{n}")
        log.exit("body", stage=f"body#{n}")
    recorder = lens(log.run_exit())
    assert labels(recorder.get_steps()) == ["iter 1", "iter 2"]
    assert labels(recorder.get_steps(["__root__", "body"])) == ["fork (2)", "merge (2)"] * 2


def test_on_the_corpus_the_reference_merges_two_agents_context_forks():
    assert "fork (6)" in labels_of(reference_steps("nested-parallel-of-agents"))
    steps = build_projection(load_path(recording_path("nested-parallel-of-agents")), "lens").get_steps()
    assert labels(steps) == ["fork (3)", "merge (3)"]


# ── 5. Exits are matched by subflow id, not by the top of a stack ─────

def test_branches_exiting_out_of_order_merge_once_with_the_parallel_as_anchor():
    log = BoundaryLog().run_entry().composition("Parallel").fork("Initialize", ["a", "b"], stage="seed#0")
    log.enter("a", "LLMCall", internal=False).enter("b", "LLMCall", internal=False)
    log.enter("b/sf-llm-call", "LLMCall", internal=True)
    log.exit("a")                       # a leaves while b's wrapper is on top of the stack
    recorder = lens(log)
    assert labels(recorder.get_steps()) == ["fork (2)"]
    log.exit("b/sf-llm-call").exit("b", stage="b#9")
    recorder = lens(log.run_exit())
    merge = recorder.get_steps()[-1]
    assert merge.label == "merge (2)"
    assert merge.anchor.subflow_path == ("__root__",) and merge.anchor.runtime_stage_id == "b#9"


def test_on_the_corpus_the_reference_anchors_the_merge_in_a_branch():
    merge = next(s for s in reference_steps("parallel-3-reviewers") if s["kind"] == "merge")
    assert merge["anchor"]["subflowPath"] == ["__root__", "legal"]
    steps = build_projection(load_path(recording_path("parallel-3-reviewers")), "lens").get_steps()
    assert steps[-1].anchor.subflow_path == ("__root__",)


# ── 6. A loop shows one iteration per pass ───────────────────────────

def test_a_loop_of_k_passes_has_k_iteration_steps():
    reference = reference_steps("loop-refine-4-iterations")
    assert sum(s["kind"] == "iteration" for s in reference) == 3  # back-edges, not passes
    projection = build_projection(load_path(recording_path("loop-refine-4-iterations")), "lens")
    assert projection.root_kind == "loop"
    assert [s.meta["index"] for s in projection.get_steps()] == [1, 2, 3, 4]


# ── 7. A sequence hands off between its own children, not between depths ──

def test_sequence_steps_connect_its_children_only():
    reference = reference_steps("nested-sequence-with-parallel")
    assert labels_of(reference) == ["asks", "fork (3)", "merge (3)", "forwards", "forwards", "answers"]
    steps = build_projection(load_path(recording_path("nested-sequence-with-parallel")), "lens").get_steps()
    assert [(t.source, t.target) for s in steps for t in s.transitions] == [
        ("actor:user", "step-plan"), ("step-plan", "step-reviewers"),
        ("step-reviewers", "step-summarise"), ("step-summarise", "actor:user")]


# ── 8. The route follows the resolver's cursor move ──────────────────

def test_a_model_pick_lands_on_the_picked_skill():
    typed = load_path(recording_path("skillgraph-rejected-cap-then-model-pick")).typed_events
    reference = replay_route(typed)
    corrected = replay_route(typed, follow_cursor_move=True)
    assert reference.get_hops()[-1].to_skill == "triage"
    assert corrected.get_hops()[-1].to_skill == "inventory"
    assert corrected.get_path() == ["triage", "inventory"]


# ── 9. A route that cannot be rebuilt is said to be missing ──────────

def test_a_skill_graph_agent_nested_in_a_composition_is_reported():
    import json

    document = json.loads(recording_path("conditional-routes-to-agent").read_bytes())
    data = document["snapshot"]["recorders"][0]["data"]
    at = next(i for i, e in enumerate(data) if e["type"] == "context.injected"
              and e["subflowPath"][:2] == ["__root__", "billing"])
    data[at] = {**data[at], "source": "skill", "slot": "system-prompt"}
    projection = build_projection(load_recording(json.dumps(document)), "lens")
    assert projection.route.get_hops() == []
    assert any("billing" in note and "route" in note for note in projection.notes)


def test_an_ordinary_composition_has_no_route_note():
    projection = build_projection(load_path(recording_path("conditional-routes-to-agent")), "lens")
    assert projection.notes == []


# ── Partial runs keep the contract ───────────────────────────────────

def test_a_branch_that_never_exits_leaves_the_fork_unmerged():
    log = BoundaryLog().run_entry().composition("Parallel").fork("Initialize", ["a", "b", "c"], stage="seed#0")
    for child in ("a", "b", "c"):
        log.enter(child, "LLMCall", internal=False)
    log.exit("a").exit("b")  # "c" crashed
    log.composition("Parallel", end=True, stage="merge#9")
    recorder = lens(log.run_exit())
    assert labels(recorder.get_steps()) == ["fork (3)"]


def test_branches_the_fork_did_not_name_still_merge_at_the_end():
    log = BoundaryLog().run_entry().composition("Parallel").fork("Initialize", ["A", "B"], stage="seed#0")
    log.enter("x", "LLMCall", internal=False).enter("y", "LLMCall", internal=False)
    log.exit("x").exit("y", stage="y#9").composition("Parallel", end=True, stage="merge#9")
    recorder = lens(log.run_exit())
    assert labels(recorder.get_steps()) == ["fork (2)", "merge (2)"]
    assert [t.source for t in recorder.get_steps()[-1].transitions] == ["x", "y"]

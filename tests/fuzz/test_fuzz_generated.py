"""Fuzz the projections with boundary logs and typed streams built from a grammar.

Mutating real files mostly trips the loader's validation; these logs are
well typed, so nearly every example reaches the recorders, with ids, paths,
timestamps and orderings drawn from small pools so that forks, merges,
stacks, siblings and route hops collide in every way.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz_support import exercise_bytes, fuzz_settings, production_recursion_limit
from recorders.balance import analyse_balance
from recorders.loading import load_recording
from recorders.projections import build_projection
from recorders.run_step import is_path_prefix

IDS = ("a", "b", "c", "a/sf-llm-call", "b/sf-llm-call", "sf-cache", "selector-temp", "body",
       "body/sf-llm-call", "p/a", "p/b", "", "__root__")
SEGMENTS = ("a", "b", "c", "sf-llm-call", "body", "p", "__root__", "")
DESCRIPTIONS = ("Agent: a", "LLMCall: x", "Sequence: s", "Parallel: p", "Conditional: c",
                "Loop: l", "CacheDecision: c", "Agent:", ":", "", "no prefix", " Loop : l")
STAGES = ("call-llm#1", "route", "a/route#2", "tool-calls#3", "context#4", "final", "merge#5",
          "__root__#0", "", "p/fork#6")
SPECIAL_NUMBERS = (0.5, -0.0, 1e308, -1e308, 2**53 + 1, 2**64, -(2**70), 10**300)
TEXTS = IDS + ("x", "é", "<b>", "\u202e", "a b", "__proto__")

BOUNDARY_TYPES = ("run.entry", "run.exit", "subflow.entry", "subflow.exit", "subflow.entry",
                  "subflow.exit", "fork.branch", "fork.branch", "decision.branch",
                  "loop.iteration", "llm.start", "llm.end", "tool.start", "tool.end",
                  "context.injected", "composition.start", "composition.end", "mystery.event")

# The logs are built from one drawn seed with random.Random: a draw per field
# would make generation, not the recorders, the cost of each example. The
# seed comes from Hypothesis, so every example is reproducible.

# The loader raises the recursion limit inside a test (to read deep files);
# Hypothesis notes that it will not reset it. Expected here, so not shown.
pytestmark = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")



def _number(rnd: random.Random) -> float:
    roll = rnd.random()
    if roll < 0.7:
        return rnd.randint(-5, 5)
    if roll < 0.85:
        return rnd.choice(SPECIAL_NUMBERS)
    return rnd.uniform(-1e6, 1e6)


def boundary_event(rnd: random.Random, ts: int) -> dict:
    kind = rnd.choice(BOUNDARY_TYPES)
    path = ["__root__", *rnd.choices(SEGMENTS, k=rnd.randint(0, 3))]
    if rnd.random() < 0.05:
        path = rnd.choices(SEGMENTS, k=rnd.randint(0, 2))  # no root segment
    event = {"type": kind, "runtimeStageId": rnd.choice(STAGES + TEXTS),
             "subflowPath": path, "depth": len(path) - 1, "ts": ts,
             "commitIdxBefore": 0, "commitIdxAfter": 0}
    maybe = lambda values: rnd.choice(values) if rnd.random() < 0.7 else None  # noqa: E731
    if kind.startswith("subflow."):
        event["subflowId"] = rnd.choice(IDS)
        event["subflowName"] = maybe(TEXTS)
        event["isAgentInternal"] = rnd.random() < 0.3
        if kind == "subflow.entry":
            event["description"] = maybe(DESCRIPTIONS)
            event["primitiveKind"] = maybe(("Agent", "LLMCall", "Parallel", "Loop"))
    elif kind == "fork.branch":
        event["parentSubflowId"] = rnd.choice(("selector-temp", "p", "a", ""))
        event["childName"] = rnd.choice(IDS)
    elif kind == "decision.branch":
        event["chosen"] = rnd.choice(TEXTS)
        event["decider"] = maybe(TEXTS)
        event["rationale"] = maybe(TEXTS)
    elif kind == "loop.iteration":
        event["target"] = rnd.choice(TEXTS)
        event["iteration"] = _number(rnd)
    elif kind == "llm.end":
        event["toolCallCount"] = _number(rnd)
    elif kind == "tool.start":
        event["toolName"] = rnd.choice(TEXTS)
        event["toolCallId"] = maybe(("k1", "k2", ""))
    elif kind == "tool.end":
        event["toolCallId"] = maybe(("k1", "k2", ""))
        event["error"] = maybe((True, False))
    return {k: v for k, v in event.items() if v is not None}


@st.composite
def boundary_log(draw) -> list[dict]:
    rnd = random.Random(draw(st.integers(0, 2**64)))
    ts = rnd.choice((0, 1_700_000_000_000, -50, 2**62))
    events = []
    for _ in range(draw(st.integers(0, 60), label="events")):
        ts += rnd.choice((0, 0, 1, 2, 1000))  # equal ts makes fork bursts
        events.append(boundary_event(rnd, ts))
    return events


ROUTING_VIA = ("route", "entry", "tree", "model", "other")
SKILLS = ("A", "B", "C", "", "__proto__")
TYPED_TYPES = ("agentfootprint.context.evaluated", "agentfootprint.context.evaluated",
               "agentfootprint.skill.rejected", "agentfootprint.stream.tool_start",
               "agentfootprint.stream.llm_start", "agentfootprint.stream.llm_end",
               "agentfootprint.agent.turn_start", "agentfootprint.unknown.kind")
ITERATIONS = ("3", "x", "", "0x1f", "1e999", "-Infinity", None, [], [2], ["4"], [1, 2], {})


def typed_event(rnd: random.Random) -> dict:
    kind = rnd.choice(TYPED_TYPES)
    meta = {"runId": rnd.choice(("r1", "r1", "r2")), "runtimeStageId": rnd.choice(STAGES),
            "wallClockMs": rnd.randint(0, 10**13),
            "subflowPath": rnd.choices(SEGMENTS, k=rnd.randint(0, 2))}
    iteration = _number(rnd) if rnd.random() < 0.6 else rnd.choice(ITERATIONS)
    if kind.endswith("context.evaluated"):
        routing = []
        for _ in range(rnd.randint(0, 3)):
            entry = {"via": rnd.choice(ROUTING_VIA), "injectionId": rnd.choice(SKILLS)}
            if rnd.random() < 0.5:
                entry["label"] = rnd.choice(TEXTS)
            routing.append(entry)
        payload = {"iteration": iteration, "routing": routing}
        if rnd.random() < 0.5:
            payload["cursorMove"] = {"by": rnd.choice(
                ("entry", "route", "model-pick", "stay", "none", "intent", "decider"))}
    elif kind.endswith("skill.rejected"):
        allowed = [rnd.choice(SKILLS) if rnd.random() < 0.8 else [None, rnd.choice(SKILLS)]
                   for _ in range(rnd.randint(0, 3))]
        payload = {"iteration": iteration,
                   "currentSkillId": rnd.choice(SKILLS + (None, 7)),
                   "requestedId": rnd.choice(SKILLS + (None,)),
                   "allowed": allowed if rnd.random() < 0.9 else None}
    elif kind.endswith("tool_start"):
        payload = {"toolName": rnd.choice(("read_skill", "lookup", ""))}
    elif kind.endswith("llm_end"):
        payload = {"toolCallCount": _number(rnd)}
    else:
        payload = rnd.choice((None, {}, {"x": 1}, [1]))
    return {"type": kind, "payload": payload, "meta": meta}


@st.composite
def typed_stream(draw) -> list[dict]:
    rnd = random.Random(draw(st.integers(0, 2**64)))
    return [typed_event(rnd) for _ in range(draw(st.integers(0, 30), label="typed events"))]


def _recording(boundary: list, typed: list, mode: str | None) -> dict:
    entry = {"name": "BoundaryEvents", "data": boundary}
    if mode:
        entry["meta"] = {"mode": mode}
    return {"snapshot": {"recorders": [entry]}, "events": typed, "structure": {}}


@fuzz_settings(max_examples=1200)
@given(boundary=boundary_log(), typed=typed_stream(),
       shape=st.sampled_from(("recording", "envelope", "bare")),
       mode=st.sampled_from((None, "full", "lean")))
def test_generated_runs_project_under_every_profile(boundary, typed, shape, mode):
    if shape == "bare":
        document = boundary
    else:
        document = _recording(boundary, typed, mode)
        if shape == "envelope":
            document = {"format": "agentfootprint.recording.v1", "recording": document,
                        "run": {"complete": False, "droppedEvents": 3}}
    recording = exercise_bytes(json.dumps(document).encode())
    # Well-typed logs are never refused by the loader, whatever their order.
    assert recording is not None
    assert recording.boundary_counts == dict(Counter(e["type"] for e in boundary))


@fuzz_settings(max_examples=500)
@given(boundary=boundary_log())
def test_reference_drill_is_the_root_filter_applied_as_is(boundary):
    """Reference semantics: getSteps(path) is getSteps() limited to anchors under path."""
    recording = load_recording(json.dumps(boundary))
    projection = build_projection(recording, "reference")
    root = projection.get_steps()
    for step in projection.steps.raw_steps():
        path = step.anchor.subflow_path
        for n in range(1, len(path) + 1):
            drilled = [s.to_wire() for s in projection.get_steps(list(path[:n]))]
            expected = [s for s in root if is_path_prefix(path[:n], s.anchor.subflow_path)]
            assert drilled == [s.with_seq(i).to_wire() for i, s in enumerate(expected)]


PAIRED_TYPES = ("run.entry", "run.exit", "subflow.entry", "subflow.exit", "llm.start", "llm.end",
                "tool.start", "tool.end", "fork.branch")
# A lighter log for the balance report, which reads only types and ids.
balance_log = st.lists(st.builds(
    lambda kind, sid, stage, call: {"type": kind, "subflowId": sid, "runtimeStageId": stage,
                                    "toolCallId": call},
    st.sampled_from(PAIRED_TYPES), st.sampled_from(IDS[:5]), st.sampled_from(STAGES[:3]),
    st.sampled_from(("k1", "k2", "", None))), max_size=60)


@fuzz_settings(max_examples=500)
@given(boundary=balance_log)
def test_balance_report_accounts_for_every_entry_and_exit(boundary):
    """open − unmatched = entries − exits, per pair; balanced exactly when nothing is open."""
    report = analyse_balance(boundary)
    kinds = Counter(e["type"] for e in boundary)
    pairs = ((report.open_subflows, report.unmatched_subflow_exits,
              "subflow.entry", "subflow.exit"),
             (report.open_llm_calls, report.unmatched_llm_ends, "llm.start", "llm.end"),
             (report.open_tool_calls, report.unmatched_tool_ends, "tool.start", "tool.end"),
             (report.open_runs, report.unmatched_run_exits, "run.entry", "run.exit"))
    for still_open, unmatched, opener, closer in pairs:
        assert len(still_open) - len(unmatched) == kinds[opener] - kinds[closer]
        assert all(boundary[e.index]["type"] == opener for e in still_open)
        assert all(boundary[e.index]["type"] == closer for e in unmatched)
    assert report.balanced == (not report.gaps())
    # The same identity holds per subflow id: pairing is by id, not by stack position.
    per_id = Counter()
    for e in boundary:
        if e["type"] in ("subflow.entry", "subflow.exit"):
            per_id[e["subflowId"]] += 1 if e["type"] == "subflow.entry" else -1
    reported = Counter(end.key for end in report.open_subflows)
    reported.subtract(Counter(end.key for end in report.unmatched_subflow_exits))
    assert {k: v for k, v in reported.items() if v} == {k: v for k, v in per_id.items() if v}


# ─── Whole compositions, shaped like real runs, then damaged ───────────

LEAVES = ("LLMCall", "Agent")
COMPOSITES = ("Sequence", "Parallel", "Conditional", "Loop")


class _Run:
    """Emits the boundary log of a random composition tree, as BoundaryRecorder would."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd, self.events, self.stage, self.ts = rnd, [], 0, 1_700_000_000_000

    def _add(self, type_: str, path: list[str], stage: str, **fields) -> None:
        self.stage += 1
        stage_id = stage if "#" in stage else f"{stage}#{self.stage}"  # "#" given: a pair's id
        self.events.append({"type": type_, "runtimeStageId": stage_id,
                            "subflowPath": ["__root__", *path], "depth": len(path),
                            "ts": 0, "commitIdxBefore": 0, "commitIdxAfter": 0, **fields})

    def _subflow(self, kind: str, path: list[str], description: str | None, internal: bool) -> None:
        sid = "/".join(path)
        fields = {"subflowId": sid, "localSubflowId": path[-1], "subflowName": path[-1],
                  "isAgentInternal": internal}
        if kind == "subflow.entry" and description is not None:
            fields["description"] = description
        self._add(kind, path, sid, **fields)

    def _prefix(self, path: list[str]) -> str:
        return "/".join(path) + "/" if path else ""

    def node(self, path: list[str], depth: int) -> list[list[dict]]:
        """The events of one node, as chunks that a Parallel parent may interleave."""
        rnd = self.rnd
        kind = rnd.choice(LEAVES if depth >= 3 or rnd.random() < 0.45 else COMPOSITES)
        before = len(self.events)
        if path:
            self._subflow("subflow.entry", path, f"{kind}: {path[-1]}", False)
        chunks = [self.events[before:]]
        del self.events[before:]
        if kind in COMPOSITES:
            chunks.append(self._capture(lambda: self._add(
                "composition.start", path, f"{self._prefix(path)}seed", kind=kind,
                compositionId=kind.lower(), name=f"{kind} {len(path)}")))
        chunks += getattr(self, f"_{kind.lower()}")(path, depth)
        if kind in COMPOSITES:
            chunks.append(self._capture(lambda: self._add(
                "composition.end", path, f"{self._prefix(path)}end", kind=kind,
                compositionId=kind.lower(), name=f"{kind} {len(path)}", status="ok",
                durationMs=1)))
        before = len(self.events)
        if path:
            self._subflow("subflow.exit", path, None, False)
        chunks.append(self.events[before:])
        del self.events[before:]
        return chunks

    def _flat(self, chunks: list[list[dict]]) -> list[list[dict]]:
        return [[e for chunk in chunks for e in chunk]]

    def _capture(self, emit) -> list[dict]:
        before = len(self.events)
        emit()
        out = self.events[before:]
        del self.events[before:]
        return out

    def _llmcall(self, path: list[str], depth: int) -> list[list[dict]]:
        inner = [*path, "sf-llm-call"]

        def emit() -> None:
            self._subflow("subflow.entry", inner, "LLMCall: invocation internals", True)
            call = f"{self._prefix(inner)}call-llm#{self.stage}"
            self._add("llm.start", inner, call, model="m")
            self._add("llm.end", inner, call, toolCallCount=0)
            self._subflow("subflow.exit", inner, None, True)
        return [self._capture(emit)]

    def _agent(self, path: list[str], depth: int) -> list[list[dict]]:
        rnd, pre = self.rnd, self._prefix(path)

        def emit() -> None:
            turns = rnd.randint(1, 3)
            for turn in range(turns):
                stage = f"{pre}context#{self.stage}"
                for child in ("System Prompt", "Messages", "Tools"):
                    self._add("fork.branch", [], stage, parentSubflowId="selector-temp",
                              childName=f"{pre}{child}")
                for slot in ("sf-system-prompt", "sf-messages", "sf-tools"):
                    self._subflow("subflow.entry", [*path, slot], "Compose slot", False)
                    self._subflow("subflow.exit", [*path, slot], None, False)
                calls = rnd.randint(1, 2) if turn < turns - 1 else 0
                call = f"{pre}call-llm#{self.stage}"
                self._add("llm.start", path, call)
                self._add("llm.end", path, call, toolCallCount=calls)
                self._add("decision.branch", [], f"{pre}sf-route", decider="route",
                          chosen="ToolCalls" if calls else "Final")
                for c in range(calls):
                    self._add("tool.start", path, f"{pre}tool-calls", toolName=f"t{c}",
                              toolCallId=f"{pre}k{turn}{c}")
                    self._add("tool.end", path, f"{pre}tool-calls", toolCallId=f"{pre}k{turn}{c}")
                if calls:
                    self._add("loop.iteration", [], f"{pre}tool-calls", target="call-llm",
                              iteration=turn + 1)
        return [self._capture(emit)]

    def _children(self, path: list[str], depth: int, n: int) -> list[list[list[dict]]]:
        return [self.node([*path, f"c{i}"], depth + 1) for i in range(n)]

    def _sequence(self, path: list[str], depth: int) -> list[list[dict]]:
        return [e for child in self._children(path, depth, self.rnd.randint(1, 3)) for e in child]

    def _parallel(self, path: list[str], depth: int) -> list[list[dict]]:
        rnd, pre = self.rnd, self._prefix(path)
        children = self._children(path, depth, rnd.randint(1, 3))
        stage = f"{pre}seed#{self.stage}"  # the branches of one fork share a stage
        fork = self._capture(lambda: [
            self._add("fork.branch", [], stage, parentSubflowId=f"{pre}Initialize",
                      childName=f"{pre}c{i}")
            for i in range(len(children))])
        # Branches interleave chunk by chunk, as concurrent branches do.
        queues = [list(c) for c in children]
        mixed: list[list[dict]] = [fork]
        while any(queues):
            queue = rnd.choice([q for q in queues if q])
            mixed.append(queue.pop(0))
        return mixed

    def _conditional(self, path: list[str], depth: int) -> list[list[dict]]:
        pre = self._prefix(path)
        decide = self._capture(lambda: self._add("decision.branch", [], f"{pre}route",
                                                 decider="route", chosen="c0",
                                                 rationale="because"))
        return [decide, *self._children(path, depth, 1)[0]]

    def _loop(self, path: list[str], depth: int) -> list[list[dict]]:
        pre, out = self._prefix(path), []
        for i in range(self.rnd.randint(1, 3)):
            out += self.node([*path, "body"], depth + 1)
            out.append(self._capture(lambda: self._add("loop.iteration", [], f"{pre}body",
                                                       target="body", iteration=i + 1)))
        return out


def composed_run(rnd: random.Random) -> list[dict]:
    run = _Run(rnd)
    run._add("run.entry", [], "__root__", isRoot=True)
    head = run.events[:]
    chunks = run.node([], 0)
    run.events = []
    run._add("run.exit", [], "__root__", isRoot=True)
    events = head + [e for chunk in chunks for e in chunk] + run.events
    # Clock in log order; a fork's branches share one ts, as the engine stamps them.
    ts, previous = 1_700_000_000_000, None
    for event in events:
        same_fork = (event["type"] == "fork.branch" and previous is not None
                     and previous["type"] == "fork.branch"
                     and previous["runtimeStageId"] == event["runtimeStageId"])
        ts += 0 if same_fork else rnd.choice((0, 1, 1, 3))
        event["ts"] = ts
        previous = event
    return events


def damage(rnd: random.Random, events: list[dict]) -> list[dict]:
    events = list(events)
    for _ in range(rnd.randint(1, 3)):
        if not events:
            break
        i = rnd.randrange(len(events))
        op = rnd.choice(("drop", "drop_id", "dup", "swap", "truncate", "front", "ts"))
        if op == "drop":
            del events[i]
        elif op == "drop_id":
            sid = events[i].get("subflowId")
            kind = rnd.choice(("subflow.entry", "subflow.exit"))
            events = [e for e in events if not (e["type"] == kind and e.get("subflowId") == sid)]
        elif op == "dup":
            events.insert(rnd.randrange(len(events) + 1), events[i])
        elif op == "swap":
            j = rnd.randrange(len(events))
            events[i], events[j] = events[j], events[i]
        elif op == "truncate":
            events = events[:i]
        elif op == "front":
            events = events[i:]
        else:
            events[i] = {**events[i], "ts": events[i]["ts"] - rnd.randint(1, 10**6)}
    return events


@fuzz_settings(max_examples=800)
@given(seed=st.integers(0, 2**64), damaged=st.booleans())
def test_composed_runs_intact_and_damaged(seed, damaged):
    rnd = random.Random(seed)
    events = composed_run(rnd)
    if not damaged:
        assert analyse_balance(events).balanced
    else:
        events = damage(rnd, events)
    assert exercise_bytes(json.dumps(events).encode()) is not None


@pytest.mark.parametrize("kind", ["Sequence", "Parallel", "Conditional", "Loop", "Agent",
                                  "LLMCall"])
def test_subflows_nested_1200_deep(kind):
    """Scopes nested deeper than the largest corpus run (1,213 levels of JSON)."""
    n, path = 1200, ["__root__"]
    events = [{"type": "run.entry", "runtimeStageId": "r#0", "subflowPath": path, "ts": 0}]
    for i in range(n):
        path = [*path, f"s{i}"]
        events.append({"type": "subflow.entry", "runtimeStageId": f"s{i}#{i}", "subflowPath": path,
                       "ts": i, "subflowId": "/".join(path[1:]), "description": f"{kind}: x",
                       "isAgentInternal": False})
    events += [{"type": "llm.start", "runtimeStageId": "c#1", "subflowPath": path, "ts": n},
               {"type": "llm.end", "runtimeStageId": "c#1", "subflowPath": path, "ts": n,
                "toolCallCount": 0}]
    for i in reversed(range(n)):
        events.append({"type": "subflow.exit", "runtimeStageId": f"x#{i}",
                       "subflowPath": path[:i + 2], "ts": n + 1,
                       "subflowId": "/".join(path[1:i + 2])})
    events.append({"type": "run.exit", "runtimeStageId": "r#0", "subflowPath": ["__root__"],
                   "ts": n + 2})
    assert analyse_balance(events).balanced
    with production_recursion_limit():
        assert exercise_bytes(json.dumps(events).encode(), max_drills=12) is not None

"""Each tracker on its own: what it owns, in small behaviours."""

from recorders.run_id_observer import RunIdObserver
from recorders.sequence_store import SequenceStore
from recorders.trackers.actor_arrows import ActorArrowClassifier
from recorders.trackers.answer_buffer import CandidateAnswerBuffer
from recorders.trackers.fork_tracker import ForkTracker
from recorders.trackers.root_inferrer import RootInferrer
from recorders.trackers.sibling_tracker import SequenceSiblingTracker


# ── ForkTracker ──────────────────────────────────────────────────────

def test_fork_is_fresh_once_per_parent_and_stage():
    forks = ForkTracker()
    assert forks.register_fork("p", "p#1", ["a", "b"]) is True
    assert forks.register_fork("p", "p#1", ["a", "b"]) is False
    assert forks.register_fork("p", "p#9", ["c"]) is True


def test_merge_is_ready_only_when_every_branch_exited():
    forks = ForkTracker()
    forks.register_fork("p", "p#1", ["a", "b", "c"])
    assert forks.record_child_exit("b") is None
    assert forks.record_child_exit("a") is None
    merge = forks.record_child_exit("c")
    assert merge is not None and merge.branches == ("a", "b", "c")


def test_a_repeated_branch_exit_counts_once():
    forks = ForkTracker()
    forks.register_fork("p", "p#1", ["a", "b"])
    assert forks.record_child_exit("a") is None
    assert forks.record_child_exit("a") is None
    assert forks.record_child_exit("b") is not None


def test_exit_of_a_subflow_that_is_no_branch_is_ignored():
    forks = ForkTracker()
    forks.register_fork("p", "p#1", ["a"])
    assert forks.is_fork_child("a") and not forks.is_fork_child("z")
    assert forks.record_child_exit("z") is None


def test_fork_tracker_clear_forgets_keys_and_branches():
    forks = ForkTracker()
    forks.register_fork("p", "p#1", ["a"])
    forks.clear()
    assert not forks.is_fork_child("a")
    assert forks.register_fork("p", "p#1", ["a"]) is True


# ── SequenceSiblingTracker ───────────────────────────────────────────

def test_sibling_tracker_remembers_last_exit_per_depth():
    siblings = SequenceSiblingTracker()
    assert siblings.peek_previous(0) is None
    siblings.record_exit(0, "first")
    siblings.record_exit(1, "inner")
    siblings.record_exit(0, "second")
    assert siblings.peek_previous(0) == "second"
    assert siblings.peek_previous(1) == "inner"
    siblings.clear()
    assert siblings.peek_previous(0) is None


# ── CandidateAnswerBuffer ────────────────────────────────────────────

def test_answer_buffer_keeps_the_last_candidate_and_flush_empties_it():
    buffer: CandidateAnswerBuffer[str] = CandidateAnswerBuffer()
    assert buffer.flush() is None
    buffer.set("first", 1, "a#1")
    buffer.set("second", 2, "b#2")
    candidate = buffer.flush()
    assert (candidate.frame, candidate.ts_ms, candidate.runtime_stage_id) == ("second", 2, "b#2")
    assert buffer.flush() is None


# ── ActorArrowClassifier ─────────────────────────────────────────────

def test_arrows_follow_tool_requests():
    arrows = ActorArrowClassifier()
    assert arrows.classify_start() == "user→llm"
    assert arrows.classify_end(2) == "llm→tool"
    assert arrows.classify_start() == "tool→llm"
    assert arrows.classify_end(0) == "llm→user"
    assert arrows.classify_start() == "user→llm"


def test_start_consumes_the_pending_tool_flag():
    arrows = ActorArrowClassifier()
    arrows.classify_end(1)
    assert arrows.classify_start() == "tool→llm"
    assert arrows.classify_start() == "user→llm"


# ── RootInferrer ─────────────────────────────────────────────────────

def test_no_signal_means_leaf_for_filtering():
    root = RootInferrer()
    assert root.kind is None and root.is_leaf_root()


def test_single_shallowest_leaf_is_a_leaf_root():
    root = RootInferrer()
    root.observe_subflow_entry(0, "Agent")
    root.observe_subflow_entry(1, "LLMCall")
    assert root.kind == "leaf"


def test_two_leaves_at_the_shallowest_depth_make_an_implicit_sequence():
    root = RootInferrer()
    root.observe_subflow_entry(0, "LLMCall")
    root.observe_subflow_entry(0, "LLMCall")
    assert root.kind == "sequence"


def test_composition_kind_at_the_shallowest_depth_names_the_root():
    root = RootInferrer()
    root.observe_subflow_entry(1, "Sequence")
    assert root.kind == "sequence"
    root.observe_subflow_entry(0, "Conditional")
    assert root.kind == "conditional"


def test_a_parallel_conditional_or_loop_root_is_never_replaced():
    root = RootInferrer()
    root.observe_subflow_entry(1, "Loop")
    root.observe_subflow_entry(0, "Sequence")
    assert root.kind == "loop"


def test_fork_at_depth_zero_locks_parallel_against_later_signals():
    root = RootInferrer()
    root.observe_fork(0)
    root.observe_subflow_entry(0, "Sequence")
    root.observe_decision(0)
    assert root.kind == "parallel" and not root.is_leaf_root()


def test_signals_below_depth_zero_do_not_lock():
    root = RootInferrer()
    root.observe_fork(1)
    root.observe_decision(2)
    root.observe_loop(1)
    assert root.kind is None


def test_a_decisive_signal_needs_an_undecided_root():
    root = RootInferrer()
    root.observe_subflow_entry(0, "LLMCall")
    root.observe_loop(0)
    assert root.kind == "leaf"


def test_unknown_primitives_are_ignored():
    root = RootInferrer()
    root.observe_subflow_entry(0, "CacheDecision")
    root.observe_subflow_entry(0, None)
    assert root.kind is None


# ── RunIdObserver and SequenceStore ──────────────────────────────────

def test_run_id_observer_fires_only_on_a_different_id():
    fired = []
    observer = RunIdObserver(lambda: fired.append(True))
    observer.observe("r1")
    observer.observe(None)
    observer.observe("")
    observer.observe("r1")
    assert fired == []
    observer.observe("r2")
    assert fired == [True]
    observer.reset()
    observer.observe("r3")
    assert fired == [True]


def test_sequence_store_keeps_order_and_indexes_by_stage():
    store: SequenceStore[str] = SequenceStore()
    store.push("a", "s#1")
    store.push("b", "s#2")
    store.push("c", "s#1")
    assert store.get_all() == ["a", "b", "c"]
    assert store.entries_for_stage("s#1") == ["a", "c"]
    store.clear()
    assert len(store) == 0 and store.entries_for_stage("s#1") == []

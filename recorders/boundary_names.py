"""The BoundaryRecorder's DomainEvent type names, one constant each.

Owns: the vocabulary of the boundary log (the ``type`` of each event
footprintjs's BoundaryRecorder writes), so no other module spells ``"run.entry"``
or ``"llm.start"`` of its own, and the set of them all.

Does not own: the typed stream's ``agentfootprint.…`` names
(:mod:`recorders.catalogue`), reading or replaying boundary events.

Several names here share their last words with a typed name (``llm.start``
against the catalogue's ``LLM_START``, ``agentfootprint.stream.llm_start``), so
code reads them through the module, ``boundary_names.LLM_START``, never as a
bare import that could be taken for the typed one.
"""

# The run as a whole.
RUN_ENTRY = "run.entry"
RUN_EXIT = "run.exit"
# A subflow (an agent, a slot, a composition's child) entered and left.
SUBFLOW_ENTRY = "subflow.entry"
SUBFLOW_EXIT = "subflow.exit"
# Control flow: a fork's branches, a decider's choice, a loop's back edge.
FORK_BRANCH = "fork.branch"
DECISION_BRANCH = "decision.branch"
LOOP_ITERATION = "loop.iteration"
# A model call and a tool call, as the boundary sees them.
LLM_START = "llm.start"
LLM_END = "llm.end"
TOOL_START = "tool.start"
TOOL_END = "tool.end"
# Something put into the model's context.
CONTEXT_INJECTED = "context.injected"
# A composition (Sequence, Parallel, Conditional, Loop) started and ended.
COMPOSITION_START = "composition.start"
COMPOSITION_END = "composition.end"

ALL_NAMES: frozenset[str] = frozenset({
    RUN_ENTRY, RUN_EXIT,
    SUBFLOW_ENTRY, SUBFLOW_EXIT,
    FORK_BRANCH, DECISION_BRANCH, LOOP_ITERATION,
    LLM_START, LLM_END, TOOL_START, TOOL_END,
    CONTEXT_INJECTED,
    COMPOSITION_START, COMPOSITION_END,
})

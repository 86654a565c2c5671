"""Where an evidence link leads, and how a model call is named on screen.

A link from the served context, the backtrack chain or a search hit leads to
a position in the step list on screen (:class:`Nav`); when no step shows the
call exactly, it says why and offers the nearest step before it.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from recorders.evidence import EvidenceIndex, ModelCall, StepMap
from recorders.evidence.run_groups import run_grouping
from recorders.evidence.records import CONSUMER_SCOPE

# Why a record of a part of the file the steps do not describe has no step.
# A run paused for a person and resumed is one run; both projections replay
# every part of the boundary log, so this is said only of a step list that
# does not reach back to the part before the pause (a boundary log that holds
# the part after the resume only).
BEFORE_THE_PAUSE = ("it happened before the pause, and these steps show only the run after it "
                    "was resumed")
# Why an event of no earlier part, timed before the first step, has no step;
# after a resume the first step shown is the resumed part's, not the run's.
BEFORE_THE_FIRST_STEP = "it happened before the run's first step"
BEFORE_THE_RESUMED_STEPS = ("it happened before the first step the file shows: the steps begin "
                            "after the run was resumed")
# id(index) → (the run ids of the shown run's group, whether the shown run is a resumed part)
_GROUPS: dict[int, tuple[frozenset[Any], bool]] = {}


@dataclass(frozen=True)
class Nav:
    """Where a link leads: a step position (or None, with the reason)."""

    step: int | None
    exact: bool
    call_id: int | None = None
    tool_id: int | None = None
    why_no_step: str | None = None
    # Not exact, and the step comes after it (the run's first step, for what
    # happened before every step) rather than before it.
    before: bool = False


def call_title(call: ModelCall) -> str:
    """Numbers and fixed words only (safe for any label)."""
    title = f"Model call {call.id + 1}"
    if call.scope:
        title += f" · call {call.ordinal_in_scope} of its scope"
    else:
        title += f" · call {call.ordinal_in_scope} at the root"
    if call.iteration is not None:
        title += f" · iteration {call.iteration}"
    return title


def call_in_words(call: ModelCall) -> str:
    """A model call named inside a sentence ("… before model call 3"): numbers and fixed
    words only; :func:`call_title` is the label form."""
    words = f"model call {call.id + 1}"
    if call.scope:
        words += f" (call {call.ordinal_in_scope} of its scope)"
    return words


def unshown_part(index: EvidenceIndex, run_id: Any, what: str,
                 step_map: StepMap | None = None, at: Any = None) -> str | None:
    """Why a record of ``run_id`` at time ``at`` (``what`` names it: "this
    tool call") has no step because the steps describe another part of the
    file: the part of a resumed run before its pause, or an earlier run. None
    when the steps describe its part (or it belongs to no run), and for the
    part before a pause when ``step_map``'s steps reach back to ``at`` (both
    projections replay every part of the boundary log). Without ``step_map``
    the part before a pause is said so: what the file's state (the snapshot,
    the last part's) does not hold is :meth:`EvidenceIndex.before_the_resume`."""
    if run_id in (None, CONSUMER_SCOPE):
        return None
    before_the_resume = index.before_the_resume(run_id)
    if not before_the_resume and index.in_shown_run(run_id):
        return None
    if before_the_resume or (isinstance(run_id, str) and run_id in _shown_group(index)[0]):
        if step_map is None or not _reaches_back(index, step_map, run_id):
            return BEFORE_THE_PAUSE
        timed = isinstance(at, (int, float)) and not isinstance(at, bool)
        if timed and step_map.step_at_time(at) is None:
            return BEFORE_THE_FIRST_STEP
        return None
    return f"{what} belongs to an earlier run, which has no steps"


def _reaches_back(index: EvidenceIndex, step_map: StepMap, run_id: str) -> bool:
    """Whether ``step_map``'s steps reach back to the part of the run of
    ``run_id``: a step at or before that part's first model call."""
    first = min((c.ts_start for c in index.calls if c.run_id == run_id
                 and c.ts_start is not None), default=None)
    return first is not None and step_map.step_at_time(first) is not None


def before_the_steps(index: EvidenceIndex, step_map: StepMap | None = None) -> str:
    """Why a record timed before the first step has none: before the run's
    first step, or, when ``step_map``'s steps are a resumed part's only,
    before the first step the file shows."""
    group, resumed = _shown_group(index)
    if not resumed:
        return BEFORE_THE_FIRST_STEP
    earlier = [r for r in group if r != index.shown_run]
    if step_map is not None and any(_reaches_back(index, step_map, r) for r in earlier):
        return BEFORE_THE_FIRST_STEP
    return BEFORE_THE_RESUMED_STEPS


def _shown_group(index: EvidenceIndex) -> tuple[frozenset[Any], bool]:
    """The run ids of the run the steps show (a resume adds one), and whether
    the steps' run id is a part after a resume; built once per index."""
    key = id(index)
    found = _GROUPS.get(key)
    if found is None:
        groups, resumed = run_grouping(index.stages.typed_events)
        ours = [g for g in groups if index.shown_run in g]
        found = _GROUPS[key] = (frozenset(ours[-1]) if ours else frozenset(),
                                index.shown_run in resumed)
        weakref.finalize(index, _GROUPS.pop, key, None)
    return found


def nav_for_call(index: EvidenceIndex, step_map: StepMap | None, call_id: int,
                 end: bool = False) -> Nav:
    if step_map is None:
        return Nav(None, False, call_id=call_id, why_no_step="no step list given")
    exact = step_map.end_step(call_id) if end else step_map.start_step(call_id)
    if exact is not None:
        return Nav(exact, True, call_id=call_id)
    call = index.calls[call_id]
    unshown = unshown_part(index, call.run_id, "this call", step_map, call.ts_start)
    if unshown is not None:
        return Nav(None, False, call_id=call_id, why_no_step=unshown)
    if call.in_boundary_log is False:
        return Nav(None, False, call_id=call_id,
                   why_no_step="this call is not in the boundary log (an earlier run), "
                               "so no step shows it")
    near = step_map.nearest_step(call_id)
    if near is None:
        return Nav(None, False, call_id=call_id, why_no_step=before_the_steps(index, step_map))
    return Nav(near, False, call_id=call_id,
               why_no_step="the step list does not show model calls here; nearest step before it")


def nav_for_tool(index: EvidenceIndex, step_map: StepMap | None, tool_id: int) -> Nav:
    if step_map is None:
        return Nav(None, False, tool_id=tool_id, why_no_step="no step list given")
    tool = index.tool_calls[tool_id]
    unshown = unshown_part(index, tool.run_id, "this tool call", step_map, tool.ts_start)
    if unshown is not None:
        return Nav(None, False, tool_id=tool_id, call_id=tool.requested_by, why_no_step=unshown)
    if tool.requested_by is not None and index.calls[tool.requested_by].in_boundary_log is False:
        return Nav(None, False, tool_id=tool_id, call_id=tool.requested_by,
                   why_no_step="this tool call belongs to an earlier run, which has no steps")
    step, exact = step_map.step_for_tool(tool_id)
    return Nav(step, exact, tool_id=tool_id, call_id=tool.requested_by,
               why_no_step=None if exact else
               ("nearest step before the tool call" if step is not None else
                before_the_steps(index, step_map)))

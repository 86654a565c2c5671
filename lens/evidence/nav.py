"""Where an evidence link leads, and how a model call is named on screen.

A link from the served context, the backtrack chain or a search hit leads to
a position in the step list on screen (:class:`Nav`); when no step shows the
call exactly, it says why and offers the nearest step before it.
"""

from __future__ import annotations

from dataclasses import dataclass

from recorders.evidence import EvidenceIndex, ModelCall, StepMap


@dataclass(frozen=True)
class Nav:
    """Where a link leads: a step position (or None, with the reason)."""

    step: int | None
    exact: bool
    call_id: int | None = None
    tool_id: int | None = None
    why_no_step: str | None = None


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


def nav_for_call(index: EvidenceIndex, step_map: StepMap | None, call_id: int,
                 end: bool = False) -> Nav:
    if step_map is None:
        return Nav(None, False, call_id=call_id, why_no_step="no step list given")
    exact = step_map.end_step(call_id) if end else step_map.start_step(call_id)
    if exact is not None:
        return Nav(exact, True, call_id=call_id)
    call = index.calls[call_id]
    if call.in_boundary_log is False:
        return Nav(None, False, call_id=call_id,
                   why_no_step="this call is not in the boundary log (an earlier run), "
                               "so no step shows it")
    near = step_map.nearest_step(call_id)
    if near is None:
        return Nav(None, False, call_id=call_id, why_no_step="no step at or before this call")
    return Nav(near, False, call_id=call_id,
               why_no_step="the step list does not show model calls here; nearest step before it")


def nav_for_tool(index: EvidenceIndex, step_map: StepMap | None, tool_id: int) -> Nav:
    if step_map is None:
        return Nav(None, False, tool_id=tool_id, why_no_step="no step list given")
    tool = index.tool_calls[tool_id]
    if tool.requested_by is not None and index.calls[tool.requested_by].in_boundary_log is False:
        return Nav(None, False, tool_id=tool_id, call_id=tool.requested_by,
                   why_no_step="this tool call belongs to an earlier run, which has no steps")
    step, exact = step_map.step_for_tool(tool_id)
    return Nav(step, exact, tool_id=tool_id, call_id=tool.requested_by,
               why_no_step=None if exact else
               ("nearest step before the tool call" if step is not None else
                "no step at or before this tool call"))

"""The backtrack chain as a Markdown report a person can keep or share.

Every recording value is put in a code span or a fenced block whose fence is
longer than any backtick run inside it, and this module's own words go
through :func:`lens.text.markdown_literal`, so nothing in the report can
become live Markdown or HTML. Each link cites the step where it can be seen.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Sequence

from recorders.evidence import EvidenceIndex
from recorders.run_step import RunStep
from recorders.values import json_text
from lens.evidence.backtrack import BacktrackChain
from lens.evidence.causes import LikelyCause
from lens.evidence.nav import Nav, call_title
from lens.text import DisplayText, markdown_code_span, markdown_literal, value_text, visible

if TYPE_CHECKING:
    from lens.cause_lineage import CameFrom

# Characters of a value written into the report: a file, not a screen, so it
# keeps more than the screen's clip limit.
REPORT_LIMIT = 4_000


def md_code_span(value: Any) -> str:
    """Inline recording text as a code span no content can break out of."""
    return markdown_code_span(json_text(value))


def md_fenced(value: Any, limit: int = REPORT_LIMIT) -> str:
    """A fenced block (``text``) with a fence longer than any backtick run inside;
    ``value`` is a recorded value or its :class:`~lens.text.DisplayText`."""
    if isinstance(value, DisplayText):
        start, length = value.start(limit), value.length
    else:
        full = value_text(value)
        start, length = full[:limit], len(full)
    text = visible(start)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    block = f"{fence}text\n{text}\n{fence}"
    if length > limit:
        block += f"\n\n_({length:,} characters; the first {limit:,} are shown.)_"
    return block


# Where a step position is shown: (1-based number in its scope, steps in that
# scope, the scope's name). The name is recording text; the report quotes it.
StepPlaceOf = Callable[[int], "tuple[int, int, str] | None"]


def _step_cite(nav: Nav | None, steps: Sequence[RunStep] | None,
               step_place: StepPlaceOf | None = None) -> str:
    if nav is None:
        return ""
    if nav.step is None:
        return f"no step ({nav.why_no_step})" if nav.why_no_step else "no step"
    seq: int = nav.step
    kind = label = None
    if steps is not None and 0 <= nav.step < len(steps):
        step = steps[nav.step]
        seq, kind, label = step.seq, step.kind, step.label
    place = step_place(nav.step) if step_place is not None else None
    if place is not None:
        number, count, scope = place
        text = f"step {number} of {count} in scope {md_code_span(scope) if scope else 'root'}"
    else:
        text = f"step {seq}"
    if kind is not None:
        text += f" ({kind} {md_code_span(label)})"
    if not nav.exact:
        text += " — nearest step; the step list does not show this call"
    return text


def backtrack_report(index: EvidenceIndex, chain: BacktrackChain, *, recording_id: str,
                     steps: Sequence[RunStep] | None = None, profile: str | None = None,
                     step_place: StepPlaceOf | None = None,
                     causes: Sequence[LikelyCause] = (),
                     came_from: Sequence[CameFrom | None] = ()) -> str:
    """The likely causes and the chain as Markdown: every recording value
    escaped, steps cited (as ``step_place`` names them when given: number,
    count and scope). ``came_from``, beside ``causes``: where each cause's
    answer came from (:mod:`lens.cause_lineage`'s line), None for a cause
    resting on no answer."""
    out: list[str] = ["# Backtrack report", ""]
    out.append(f"- Recording: {md_code_span(recording_id)}")
    if profile:
        out.append(f"- Step projection: {md_code_span(profile)}")
    if chain.target_call_id is not None:
        target = index.calls[chain.target_call_id]
        out.append(f"- Target: {call_title(target)}, runtimeStageId "
                   f"{md_code_span(target.runtime_stage_id)}")
    out.append(f"- Links: {len(chain.links)}" + (" (cut short)" if chain.truncated else ""))
    out.append("- Each link cites the step where it can be seen. Links marked *inferred* are "
               "matched by identical text because the recording carries no id for them.")
    out.append("")
    if chain.notes:
        out.append("## What the recording does not carry")
        out.append("")
        for note in chain.notes:
            out.append(f"- {markdown_literal(note)}")
        out.append("")
    if causes:
        out.append("## Likely causes")
        out.append("")
        for number, cause in enumerate(causes, 1):
            line = (f"**{number}.** {'**ERROR** ' if cause.is_error else ''}"
                    f"{markdown_literal(cause.kind)}: {md_code_span(cause.headline)}")
            cite = _step_cite(cause.nav, steps, step_place)
            if cite:
                line += f" — {cite}"
            out.append(line)
            out.append("")
            out.append(md_code_span(cause.why))
            out.append("")
            came = came_from[number - 1] if number <= len(came_from) else None
            if came is not None:
                # Our words around recorded stage names: escaped, never live Markdown.
                out.append(markdown_literal(came.words))
                out.append("")
            if cause.detail is not None:
                out.append(md_fenced(cause.detail))
                out.append("")
    out.append("## Chain")
    out.append("")
    for link in chain.links:
        arrows = "↳ " * min(link.depth, 8) + (f"(depth {link.depth}) " if link.depth > 8 else "")
        line = f"**{link.number}.** {arrows}{markdown_literal(link.relation)}: {md_code_span(link.title)}"
        if link.error:
            line += " — **ERROR**"
        cite = _step_cite(link.nav, steps, step_place)
        if cite:
            line += f" — {cite}"
        if link.inferred:
            line += f" — *inferred: {markdown_literal(link.inferred)}*"
        out.append(line)
        out.append("")
        if link.text is not None:
            out.append(md_fenced(link.text))
            out.append("")
    return "\n".join(out).rstrip() + "\n"



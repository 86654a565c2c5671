"""The run header: what was loaded, and the summary figures.

Figures come from the evidence index (built once), never from a new pass
over the events: model calls, tool calls and how many failed, tokens in and
out, wall-clock duration, and the skills the route visited. They count the
run its facts name (:class:`lens.run_facts.RunFacts`: the last run of the
file, both parts of one paused and resumed), as the outcome's sentence does,
from the same records the step detail and the served-context panel show.
The steps show every part of a run paused and resumed (the boundary log
holds them all); when a step list does not reach back to the part before
the pause, :func:`steps_note` says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Sequence

from recorders import catalogue
from lens.wording import plural
from recorders.evidence import EvidenceIndex, run_id
from recorders.loading import Recording
from recorders.read.registry import kind_label
from recorders.run_step import RunStep
from recorders.values import finite_or_none, is_number
from lens.text import format_ms, grouped

if TYPE_CHECKING:
    from lens.run_facts import RunFacts


@dataclass(frozen=True)
class RunSummary:
    model_calls: int
    tool_calls: int
    failed_tool_calls: int
    tokens_in: float | None  # None when no call reported usage
    tokens_out: float | None
    duration_ms: float | None
    skills_visited: tuple[str, ...]
    calls_in_steps: int = 0  # of ``model_calls``, those of the part the lens steps show
    resumes: int = 0  # times the run paused for a person and was resumed
    first_call_ms: float | None = None  # when the run's first model call started


def summarise(evidence: EvidenceIndex, skill_path: list[str],
              run_info: dict | None = None, facts: "RunFacts | None" = None) -> RunSummary:
    """The figures of the run ``facts`` name (its run ids, a resume's
    included); without them, of the run the steps show."""
    run_ids = facts.run_ids if facts is not None else ()
    calls = evidence.calls_of_run(run_ids)
    tools = evidence.tools_of_run(run_ids)
    tokens = [call.tokens for call in calls]
    ins = [tokens_in for tokens_in, _ in tokens if tokens_in is not None]
    outs = [tokens_out for _, tokens_out in tokens if tokens_out is not None]
    return RunSummary(
        model_calls=len(calls),
        tool_calls=len(tools),
        failed_tool_calls=sum(1 for t in tools if t.failed),
        tokens_in=sum(ins) if ins else None,
        tokens_out=sum(outs) if outs else None,
        duration_ms=_duration(evidence, run_info),
        skills_visited=tuple(skill_path),
        calls_in_steps=len(evidence.shown_calls()) if run_ids else len(calls),
        resumes=facts.outcome.resumes if facts is not None else 0,
        first_call_ms=min((c.ts_start for c in calls if c.ts_start is not None), default=None),
    )


def _duration(evidence: EvidenceIndex, run_info: dict | None) -> float | None:
    stages = evidence.stages
    if stages.run_started_ms is not None and stages.run_ended_ms is not None:
        return stages.run_ended_ms - stages.run_started_ms
    started = _parse_iso(run_info.get("startedAt")) if run_info else None
    ended = _parse_iso(run_info.get("endedAt")) if run_info else None
    if started is not None and ended is not None:
        return (ended - started).total_seconds() * 1000
    stamps = list(stages.first_ts.values())
    return max(stamps) - min(stamps) if len(stamps) > 1 else None


def run_facts(recording: Recording, evidence: EvidenceIndex) -> list[tuple[str, str]]:
    """(label, value) pairs for the header; values may be recording text."""
    facts: list[tuple[str, str]] = [("format", _format(recording))]
    producer = recording.producer or {}
    versions = [f"{name.removesuffix('Version')} {value}" for name, value in producer.items()
                if isinstance(value, str) or is_number(value)]
    facts.append(("producer", ", ".join(versions) if versions else "not recorded"))
    facts.append(("run id", run_id(recording)))
    run = recording.run_info or {}
    facts.append(("started", _time_text(run.get("startedAt"), evidence.stages.run_started_ms)))
    facts.append(("ended", _time_text(run.get("endedAt"), evidence.stages.run_ended_ms)))
    facts.append(("complete", _complete(recording, evidence)))
    facts.append(("boundary detail", recording.boundary_mode or "not recorded"))
    facts.append(("events", f"{len(recording.typed_events)} typed · "
                            f"{len(recording.boundary_events)} boundary"))
    return facts


def _format(recording: Recording) -> str:
    kind = kind_label(recording.source_kind)
    if recording.envelope_format:
        return f"{kind} {recording.envelope_format}"
    return kind


def _complete(recording: Recording, evidence: EvidenceIndex) -> str:
    if recording.complete is True:
        return "yes"
    if recording.complete is False:
        return "no (complete: false)"
    if evidence.stages.run_ended_ms is not None:
        return "run.exit recorded (no envelope flag)"
    return "not recorded"


def _time_text(iso: Any, epoch_ms: float | None) -> str:
    if isinstance(iso, str) and iso:
        return iso
    if epoch_ms is not None:
        try:
            stamp = datetime.fromtimestamp(epoch_ms / 1000, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return f"{epoch_ms} ms"
        return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z") + " (from events)"
    return "not recorded"


def _parse_iso(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def format_duration(summary: RunSummary) -> str:
    return format_ms(summary.duration_ms)


def figures_line(summary: RunSummary) -> str:
    """The run bar's figures: ``1 model call · 3 tool calls (1 failed) · 1.48 s``."""
    failed = f" ({summary.failed_tool_calls} failed)" if summary.failed_tool_calls else ""
    return (f"{plural(summary.model_calls, 'model call')} · "
            f"{plural(summary.tool_calls, 'tool call')}{failed} · {format_duration(summary)}")


def steps_note(summary: RunSummary, steps: Sequence[RunStep] = ()) -> str | None:
    """What the steps on screen (``steps``, the root's) leave out of the
    figures, when they do: the part of a paused and resumed run before its
    resume. None when they show every model call counted, or reach back to
    the run's first call (both projections replay every part of the boundary
    log, so this is said only of a log that lacks the part before the pause)."""
    if not summary.resumes or summary.calls_in_steps >= summary.model_calls:
        return None
    first = summary.first_call_ms
    if first is not None and any(s.ts_ms is not None and s.ts_ms <= first for s in steps):
        return None
    last = "its last resume" if summary.resumes > 1 else "the resume"
    return (f"The run paused for a person and was resumed: the steps show only the part "
            f"after {last} ({summary.calls_in_steps} of its "
            f"{plural(summary.model_calls, 'model call')}).")


def format_count(value: float | None) -> str:
    """``12,841``; a dash when the recording reported no such number. Any
    JSON number, an integer past float range included, is shown whole."""
    if value is None:
        return "—"
    return grouped(value)


def timing_notes(evidence: EvidenceIndex, run_info: dict | None = None) -> list[str]:
    """Durations and counts no run can have, for the health line: negative or
    not finite (``inf`` comes from subtracting times near float range), or
    past float range (a chart cannot place them)."""
    notes: list[str] = []
    run_ms = _duration(evidence, run_info)
    if _impossible(run_ms):
        notes.append(f"the run's duration is {_why(run_ms)} ({format_ms(run_ms)}): "
                     "its start and end times cannot both be right")
    for noun, records in (("model call", evidence.shown_calls()),
                          ("tool call", evidence.shown_tools())):
        odd = [record for record in records
               if _impossible(record.duration_ms) or _impossible(getattr(record, "wall_ms", None))]
        if odd:
            first = odd[0]
            value = first.duration_ms if _impossible(first.duration_ms) else first.wall_ms  # a call only
            verb = "has" if len(odd) == 1 else "have"
            notes.append(f"{plural(len(odd), noun)} {verb} a duration that is {_why(value)} "
                         f"(the first: {format_ms(value)}); durations and the timeline "
                         "are not reliable for them")
    return notes


def _impossible(value: Any) -> bool:
    if not is_number(value):
        return False
    number = finite_or_none(value)
    return number is None or number < 0


def _why(value: Any) -> str:
    number = finite_or_none(value)
    if number is not None:
        return "negative"
    if isinstance(value, float):
        return "not finite"
    return "beyond float range"


# What agentfootprint 9.62 passes to the recording from inside a composition
# (../shared/recordings/families/README.md, found while recording): every
# other typed event its agents fire is lost. Prefixes of the short type name.
_PASSED_IN_COMPOSITIONS = ("composition.", "agent.", "stream.",
                           catalogue.short_name(catalogue.CONTEXT_INJECTED),
                           catalogue.short_name(catalogue.CONTEXT_SLOT_COMPOSED))
_PASSED_IN_PARALLEL = ("fallback.", "error.")  # a Parallel passes these as well


def unrecorded_in_composition(typed_counts: dict[str, int]) -> str | None:
    """One plain sentence naming the families whose events cannot be in this
    file because its agents ran inside a composition (a Sequence, Parallel,
    Conditional or Loop), so that their absence does not read as "nothing
    happened"; None when the run is no composition.

    ``typed_counts`` is the recording's count of each typed event type. A
    family is named when the framework drops every one of its types inside a
    composition and the file holds none of them (an application's own events
    reach the file by another door)."""
    if not typed_counts.get(catalogue.COMPOSITION_ENTER):
        return None
    parallel = bool(typed_counts.get(catalogue.COMPOSITION_FORK_START))
    passed = _PASSED_IN_COMPOSITIONS + (_PASSED_IN_PARALLEL if parallel else ())
    present = {entry.family for name in typed_counts
               if (entry := catalogue.event_type(name)) is not None}
    lost = [family for family in catalogue.FAMILIES
            if family not in present and not any(
                entry.short.startswith(passed) for entry in catalogue.types_in_family(family))]
    if not lost:
        return None
    return ("This run is a composition: the framework records only its agents' model and tool "
            "streams, agent events, injected context and the composition's own events"
            + (", and a Parallel's fallbacks and errors" if parallel else "")
            + f". Events of these families are not recorded inside it, so the file cannot "
              f"show whether they happened: {', '.join(lost)}.")

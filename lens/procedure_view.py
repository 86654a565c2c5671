"""A skill's declared procedure, as the run walked it: which steps were done, which skipped.

A skill may declare a procedure of numbered steps, each with its tool and a
note; the framework says each step done (``skill.step_advanced``) and each
step the model declined (``skill.step_skipped``, with its reason and whether
the procedure moved on or held). A run can walk such a procedure with no
skill graph at all (the model read the skill itself), so "Why this skill?"
shows the procedure beside, or instead of, the route.

Numbering: ``step_advanced``'s ``step.index`` is the position *after*
advancing (the step done is the one before it; its ``tool`` and ``note`` are
the done step's), ``step_skipped``'s is the skipped step's own
(``../shared/recordings/families/README.md``). Steps the events never name
are listed as not recorded, never guessed.

Owns: reading those events (of one run's ids) into :class:`Procedure` rows.
Does not own: the route (:mod:`lens.route_view`) or drawing (``lens_ui/route_panel.py``).
Recording text (skill ids, tools, notes, reasons) is kept as recorded;
a panel shows it as text only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection

from recorders.catalogue import SKILL_STEP_ADVANCED, SKILL_STEP_SKIPPED
from recorders.evidence import EvidenceIndex
from recorders.values import is_number
from lens.evidence.nav import call_in_words
from lens.text import one_line
from lens.wording import and_words, plural

DONE, SKIPPED, NOT_RECORDED = "done", "skipped", "not recorded"
NAME_CHARS = 80
NOTE_CHARS = 200
MAX_STEPS = 100  # steps listed of one procedure; a larger declared total is said, not listed
PROCEDURE_COLUMNS = ["step", "tool", "what happened", "model call", "note"]


@dataclass(frozen=True)
class ProcedureStep:
    number: int  # its place in the declared procedure, from 1
    tool: str  # recorded text ("" when not recorded)
    note: str  # recorded text
    status: str  # DONE, SKIPPED or NOT_RECORDED
    said: str  # what happened, in words (a skip quotes its reason)
    when: str  # the model call whose tool call did or skipped it, in words ("" when not known)

    def as_record(self, total: int | None) -> dict[str, object]:
        place = f"{self.number} of {total}" if total else str(self.number)
        return dict(zip(PROCEDURE_COLUMNS, (place, self.tool, self.said, self.when, self.note)))


@dataclass(frozen=True)
class Procedure:
    skill: str  # recorded text
    total: int | None  # declared steps, when recorded
    steps: tuple[ProcedureStep, ...]
    completed: bool  # the framework marked the procedure complete
    summary: str  # one sentence (names recorded text)

    def records(self) -> list[dict[str, object]]:
        return [step.as_record(self.total) for step in self.steps]


def skill_procedures(index: EvidenceIndex, run_ids: Collection[Any] = ()) -> tuple[Procedure, ...]:
    """Each skill procedure the run of ``run_ids`` (every run's events when
    empty) walked, in order of its first event."""
    wanted = tuple(run_ids)
    tools = {tool.tool_call_id: tool for tool in index.tool_calls
             if isinstance(tool.tool_call_id, str)}
    found: dict[str, _Walk] = {}
    for event in index.stages.typed_events:
        if not isinstance(event, dict) or event.get("type") not in (SKILL_STEP_ADVANCED,
                                                                    SKILL_STEP_SKIPPED):
            continue
        meta = event.get("meta")
        if wanted and not (isinstance(meta, dict) and meta.get("runId") in wanted):
            continue
        payload = event.get("payload")
        if not isinstance(payload, dict) or not isinstance(payload.get("skillId"), str):
            continue
        walk = found.setdefault(payload["skillId"], _Walk())
        walk.see(event["type"], payload, _when(index, tools.get(payload.get("toolCallId"))))
    return tuple(walk.procedure(skill) for skill, walk in found.items())


def _when(index: EvidenceIndex, tool: Any) -> str:
    if tool is None or tool.requested_by is None or not 0 <= tool.requested_by < len(index.calls):
        return ""
    return call_in_words(index.calls[tool.requested_by])


class _Walk:
    """One skill's procedure as its events come."""

    def __init__(self) -> None:
        self.total: int | None = None
        self.steps: dict[int, ProcedureStep] = {}
        self.completed = False

    def see(self, kind: str, payload: dict, when: str) -> None:
        step = payload.get("step")
        step = step if isinstance(step, dict) else {}
        index, total = step.get("index"), step.get("total")
        if _whole(total) and 0 < total:
            self.total = int(total)
        if not _whole(index):
            return
        tool, note = _text(step.get("tool"), NAME_CHARS), _text(step.get("note"), NOTE_CHARS)
        if kind == SKILL_STEP_ADVANCED:
            number = int(index) - 1  # the position after advancing: the step before it is done
            said = "done"
            if payload.get("completed") is True:
                self.completed = True
        else:
            number = int(index)
            reason = _text(payload.get("reason"), NOTE_CHARS)
            policy = payload.get("policy")
            said = "skipped by the model" + (f": “{reason}”" if reason else "") + (
                "; the procedure moved on" if policy == "advance" else
                "; the procedure held at it" if policy == "hold" else "")
        if number < 1:
            return
        self.steps[number] = ProcedureStep(number, tool, note,
                                           DONE if kind == SKILL_STEP_ADVANCED else SKIPPED,
                                           said, when)

    def procedure(self, skill: str) -> Procedure:
        last = max([*self.steps, self.total or 0])
        listed = min(last, MAX_STEPS)
        steps = tuple(self.steps.get(n) or ProcedureStep(n, "", "", NOT_RECORDED,
                                                         "no event says what became of it", "")
                      for n in range(1, listed + 1))
        return Procedure(skill, self.total, steps, self.completed,
                         _summary(skill, self.total, steps, self.completed))


def _summary(skill: str, total: int | None, steps: tuple[ProcedureStep, ...],
             completed: bool) -> str:
    name = one_line(skill, NAME_CHARS)
    declared = f" of {plural(total, 'step')}" if total else ""
    done = sum(1 for s in steps if s.status == DONE)
    skipped = [s for s in steps if s.status == SKIPPED]
    unknown = sum(1 for s in steps if s.status == NOT_RECORDED)
    parts = [f"{done} done"]
    names = and_words([s.tool or f"step {s.number}" for s in skipped])
    if skipped:
        parts.append(f"{len(skipped)} skipped ({names})")
    if unknown:
        parts.append(f"{unknown} not recorded")
    sentence = f"The skill {name} declares a procedure{declared}: {and_words(parts)}."
    if completed:
        sentence += (f" The framework marked it complete although {names} "
                     f"{'was' if len(skipped) == 1 else 'were'} skipped."
                     if skipped else " The framework marked it complete.")
    return sentence


def _whole(value: Any) -> bool:
    return is_number(value) and not isinstance(value, bool) and float(value).is_integer() \
        and abs(value) < 1e9


def _text(value: Any, limit: int) -> str:
    return one_line(value, limit) if isinstance(value, str) else ""

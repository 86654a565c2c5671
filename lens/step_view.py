"""What the run page computes for one step: one call per slider move.

:func:`step_view` gathers, for step ``index`` of the scope at ``path``, the
label, the plain-words headline, the step detail and the actor-arrow chart.
The app's slider region draws exactly this (``lens_ui/stepper.py``), and the
slider benchmark times exactly this, so neither keeps a copy of the other.

What this owns: which pieces make up a step's view. What it does not: caching
(the app keeps diagrams per scope), widgets, or how each piece is built.
"""

from __future__ import annotations

from functools import cached_property

from typing import Sequence

from recorders.run_step import RunStep
from lens.evidence.causes import LikelyCause, verdicts_told
from lens.arrows import ArrowDiagram
from lens.diagram_chart import DiagramChart, actor_chart
from lens.plain_words import Sentence, step_sentence
from lens.run import OpenRun
from lens.scopes import Scope
from lens.step_detail import StepDetail, describe_step, step_caption


class StepView:
    """Step ``index`` of ``scope`` as the page shows it. Each part is built when
    first read and kept: the page draws the label before it asks for the
    headline, the detail and the chart, so the label reaches the browser
    without waiting for them."""

    def __init__(self, run: OpenRun, profile: str, scope: Scope, index: int,
                 diagram: ArrowDiagram | None, said_here: Sequence[LikelyCause] = ()) -> None:
        self.scope = scope
        self.said_here = tuple(said_here)
        self.index = index
        self.step: RunStep = scope.steps[index]
        self._run = run
        self._profile = profile
        self._diagram = diagram

    def build_rest(self) -> None:
        """Build the headline, the detail and the chart now. A part that fails
        is left unbuilt: reading it raises again, where the page draws it."""
        for part in ("headline", "detail", "chart"):
            try:
                getattr(self, part)
            except Exception:  # noqa: BLE001 (raised again when the part is read)
                continue

    @cached_property
    def caption(self) -> str:
        """``step 6 of 10 · llm→tool · issue_refund``"""
        return step_caption(self.step, self.index, len(self.scope.steps), self._run.evidence)

    @cached_property
    def headline(self) -> Sentence:
        """What happened, in plain words, and the verdicts filed here."""
        evidence = self._run.evidence
        return step_sentence(self.step, evidence, verdicts_told(evidence, self.said_here))

    @cached_property
    def detail(self) -> StepDetail:
        """The facts, texts and tools of the step."""
        return describe_step(self.step, self._run.evidence)

    @cached_property
    def chart(self) -> DiagramChart:
        """The scope's actors, this step's arrows lit."""
        shown = self._diagram
        if shown is None:
            shown = self._run.diagram(self._profile, self.scope.path)
        return actor_chart(shown, self.index)


def step_view(run: OpenRun, profile: str, scope: Scope, index: int,
              diagram: ArrowDiagram | None = None,
              said_here: Sequence[LikelyCause] = ()) -> StepView:
    """The view of step ``index`` of ``scope`` (which must have steps) under
    ``profile``; ``diagram`` is the scope's, if the caller keeps one;
    ``said_here`` the likely causes linked to this step (its headline names
    their framework verdicts)."""
    return StepView(run, profile, scope, index, diagram, said_here)

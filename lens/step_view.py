"""What the run page computes for one step: one call per slider move.

:func:`step_view` gathers, for step ``index`` of the scope at ``path``, the
label, the plain-words headline, the step detail and the actor-arrow figure.
The app's slider region draws exactly this (``lens_ui/stepper.py``), and the
slider benchmark times exactly this, so neither keeps a copy of the other.

What this owns: which pieces make up a step's view. What it does not: caching
(the app keeps diagrams per scope), widgets, or how each piece is built.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from recorders.run_step import RunStep
from lens.arrows import ArrowDiagram
from lens.figures import actor_figure
from lens.plain_words import Sentence, step_sentence
from lens.run import OpenRun
from lens.scopes import Scope
from lens.step_detail import StepDetail, describe_step, step_caption


@dataclass(frozen=True)
class StepView:
    scope: Scope
    index: int
    step: RunStep
    caption: str          # "step 6 of 10 · llm→tool · issue_refund"
    headline: Sentence    # what happened, in plain words
    detail: StepDetail    # the facts, texts and tools of the step
    figure: go.Figure     # the scope's actors, this step's arrows lit


def step_view(run: OpenRun, profile: str, scope: Scope, index: int,
              diagram: ArrowDiagram | None = None) -> StepView:
    """The view of step ``index`` of ``scope`` (which must have steps) under
    ``profile``; ``diagram`` is the scope's, if the caller keeps one."""
    step = scope.steps[index]
    evidence = run.evidence
    shown = diagram if diagram is not None else run.diagram(profile, scope.path)
    return StepView(scope, index, step,
                    caption=step_caption(step, index, len(scope.steps), evidence),
                    headline=step_sentence(step, evidence),
                    detail=describe_step(step, evidence),
                    figure=actor_figure(shown, index, title=""))

"""How each compared run ended, as its run facts say it (:mod:`lens.run_facts`).

The run page, the archive's rows, the exported page and the command line read
one :class:`lens.run_facts.RunFacts`; a comparison reads the same, so a run
that the run page calls stopped is not "complete" beside its twin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RunEnding:
    status: str            # how the run ended: one of lens.evidence.outcome.ENDINGS
    sentence: str          # the run page's sentence for it (recording text: show as text)
    answer: str | None     # the whole answer the run returned (recording text), None: none


def run_ending(run: Any) -> RunEnding:
    """How the open run ``run`` ended (its ``facts.outcome``)."""
    outcome = run.facts.outcome
    return RunEnding(outcome.ended, outcome.sentence, outcome.answer)

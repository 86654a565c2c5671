"""Compare two runs of an agent: where they part, and what the model was served differently.

A pure function of two :class:`lens.run.OpenRun` (no Streamlit):
:func:`compare_runs` returns a :class:`RunComparison`; :func:`comparison_to_wire`
turns it into the JSON the command line prints and :func:`comparison_text` into a
short report for people.
"""

from lens.compare.comparison import (EventSide, FirstDifference, RunComparison,
                                     ServedContextDifference, compare_runs)
from lens.compare.report import comparison_text, comparison_to_wire

__all__ = ["compare_runs", "comparison_to_wire", "comparison_text", "RunComparison",
           "FirstDifference", "EventSide", "ServedContextDifference"]

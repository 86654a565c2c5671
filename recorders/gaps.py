"""Gap: something a readable recording does not carry, said plainly."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Gap:
    """One line of the health report: a short code and a sentence for people."""

    code: str
    message: str

"""The view's position as a link: ``?run=<sample>&step=7&drill=__root__/a&profile=lens``.

A link is untrusted input. :func:`parse_link` only reads it into typed
fields; the app then checks each against what exists (the sample allow-list,
the scopes of the projection, the step count) and says when it could not
honour a part, rather than guessing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

RUN, STEP, DRILL, PROFILE = "run", "step", "drill", "profile"
LINK_KEYS = (RUN, STEP, DRILL, PROFILE)
_MAX_TEXT = 1_000  # longer values cannot be a sample name or a real drill path


@dataclass(frozen=True)
class Link:
    run: str | None = None
    step: int | None = None  # 1-based, as people count
    drill: str | None = None
    profile: str | None = None
    bad_step: bool = False  # a step was given but is not a positive whole number


def parse_link(params: Mapping[str, object]) -> Link:
    step_text = _single(params.get(STEP))
    step: int | None = None
    bad_step = False
    if step_text is not None:
        if step_text.isdigit() and 0 < len(step_text) <= 9 and int(step_text) >= 1:
            step = int(step_text)
        else:
            bad_step = True
    return Link(run=_single(params.get(RUN)), step=step, drill=_single(params.get(DRILL)),
                profile=_single(params.get(PROFILE)), bad_step=bad_step)


def link_params(run: str | None, step: int | None, drill: str | None,
                profile: str) -> dict[str, str]:
    """The query parameters of a view; absent parts are left out.

    ``run`` is given only for samples: an upload has no name a link could open.
    """
    params = {RUN: run, STEP: None if step is None else str(step), DRILL: drill, PROFILE: profile}
    return {key: value for key, value in params.items() if value is not None}


def _single(value: object) -> str | None:
    if isinstance(value, list):
        value = value[-1] if value else None
    if not isinstance(value, str) or not value or len(value) > _MAX_TEXT:
        return None
    return value

"""The view's position as a link: ``?run=<sample>&step=7&drill=__root__/a&profile=lens``,
``?upload=<sha256>&step=7…`` for an uploaded run, or ``?archive=<folder>/<path>…``
for a run file of an archive folder the server was started with.

A link is untrusted input. :func:`parse_link` only reads it into typed
fields, strictly: a step is 1 to 9 ASCII digits (``²`` and ``①`` are not
digits here), an upload is named by the 64 hex digits of its sha256, an
archive run by a folder label and a plain relative path (no ``..``, ``.`` or
empty part, no leading ``/``, no backslash or control character), no value
may be longer than :data:`MAX_VALUE_CHARS`, and a parameter may be given once.
What it cannot read is dropped and named in :attr:`Link.problems` (app-written
sentences that never quote the link). The app then checks each field against
what exists (the sample allow-list, the uploads the server holds, the
archive folders and their index, the scopes
of the projection, the step count) and says when it could not honour a part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping

RUN, UPLOAD, STEP, DRILL, PROFILE = "run", "upload", "step", "drill", "profile"
ARCHIVE = "archive"
LINK_KEYS = (RUN, UPLOAD, ARCHIVE, STEP, DRILL, PROFILE)
MAX_VALUE_CHARS = 1_000  # longer values cannot be a sample name or a real drill path
MAX_STEP_DIGITS = 9
_STEP = re.compile(r"[0-9]{1,%d}" % MAX_STEP_DIGITS)
_DIGEST = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Link:
    run: str | None = None
    upload: str | None = None  # sha256 hex of an uploaded file
    archive: str | None = None  # "<folder label>/<path relative to the folder>"
    step: int | None = None  # 1-based, as people count
    drill: str | None = None
    profile: str | None = None
    problems: tuple[str, ...] = ()  # what could not be read, one sentence each

    @property
    def bad_step(self) -> bool:
        return any(problem.startswith("The link's step") for problem in self.problems)


def parse_link(params: Mapping[str, object]) -> Link:
    """Read query parameters (each a string or a list of the values given)."""
    problems: list[str] = []
    values = {key: _single(key, params.get(key), problems) for key in LINK_KEYS}
    step: int | None = None
    if values[STEP] is not None:
        if _STEP.fullmatch(values[STEP]) and int(values[STEP]) >= 1:
            step = int(values[STEP])
        else:
            problems.append("The link's step is not a whole number from 1 to "
                            f"{10 ** MAX_STEP_DIGITS - 1:,}; showing the first step.")
    upload = values[UPLOAD]
    if upload is not None and not _DIGEST.fullmatch(upload):
        problems.append("The link's upload is not the 64-hex-digit digest of a file; ignored it.")
        upload = None
    archive = values[ARCHIVE]
    if archive is not None and not is_archive_path(archive):
        problems.append("The link's archive run is not a folder name and a plain path inside "
                        "that folder; ignored it.")
        archive = None
    return Link(run=values[RUN], upload=upload, archive=archive, step=step,
                drill=values[DRILL], profile=values[PROFILE], problems=tuple(problems))


def is_archive_path(value: str) -> bool:
    """``<folder label>/<relative path>`` with nothing that could climb out of
    the folder or be read two ways: every part non-empty, none ``.`` or
    ``..``, no backslash, no control character."""
    if "\\" in value or any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        return False
    label, _, path = value.partition("/")
    parts = path.split("/")
    return bool(label.strip()) and bool(path) and all(p not in ("", ".", "..") for p in parts)


def link_params(run: str | None, step: int | None, drill: str | None,
                profile: str, upload: str | None = None,
                archive: str | None = None) -> dict[str, str]:
    """The query parameters of a view; absent parts are left out.

    A sample is named by ``run``; an upload by ``upload``, its digest; an
    archive run by ``archive``, its folder label and path.
    """
    params = {RUN: run, UPLOAD: upload, ARCHIVE: archive,
              STEP: None if step is None else str(step),
              DRILL: drill, PROFILE: profile}
    return {key: value for key, value in params.items() if value is not None}


def _single(key: str, value: object, problems: list[str]) -> str | None:
    given = _as_list(value)
    if not given:
        return None
    if len(given) > 1:
        problems.append(f"The link gives {key} {len(given)} times; ignored it.")
        return None
    text = given[0]
    if len(text) > MAX_VALUE_CHARS:
        problems.append(f"The link's {key} is longer than {MAX_VALUE_CHARS:,} characters; "
                        "ignored it.")
        return None
    return text or None


def _as_list(value: object) -> list[str]:
    if value is None:
        return []
    items: Iterable[object] = value if isinstance(value, (list, tuple)) else [value]
    return [item if isinstance(item, str) else str(item) for item in items]

"""The view's position as a link: ``?run=<sample>&step=7&drill=__root__/a&profile=lens``,
``?upload=<sha256>&step=7…`` for an uploaded run, ``?archive=<folder>/<path>…``
for a run file of an archive folder the server was started with, or
``?follow=<folder>/<path>`` for a file of the follow folder. A file that holds
several runs (an event stream with several ``meta.runId``, a bug report with
several conversations) names the one shown with ``?runid=`` (its id, or
``#<n>``, its place in the file, when ids do not tell its runs apart).

The Compare page names each side by a reference, ``<source>:<value>``
(``sample:<name>``, ``upload:<sha256>``, ``archive:<folder>/<path>``,
``follow:<folder>/<path>``), with ``#runid=<selector>`` after it for a run
other than a file's only one (:func:`parse_ref`, :func:`make_ref`).

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
ARCHIVE, FOLLOW, RUN_ID = "archive", "follow", "runid"
# The parameters that say where the run comes from, one per kind of source.
SOURCE_KEYS = (RUN, UPLOAD, ARCHIVE, FOLLOW)
LINK_KEYS = (RUN, UPLOAD, ARCHIVE, FOLLOW, RUN_ID, STEP, DRILL, PROFILE)
REF_SEPARATOR = "#runid="  # between a comparison reference's file and its run in the file
MAX_VALUE_CHARS = 1_000  # longer values cannot be a sample name or a real drill path
MAX_STEP_DIGITS = 9
_STEP = re.compile(r"[0-9]{1,%d}" % MAX_STEP_DIGITS)
_DIGEST = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Link:
    run: str | None = None
    upload: str | None = None  # sha256 hex of an uploaded file
    archive: str | None = None  # "<folder label>/<path relative to the folder>"
    follow: str | None = None  # "<folder label>/<path relative to the follow folder>"
    run_id: str | None = None  # which run of a file with several (see run_selectors)
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
    follow = values[FOLLOW]
    if follow is not None and not is_archive_path(follow):
        problems.append("The link's followed file is not a folder name and a plain path "
                        "inside that folder; ignored it.")
        follow = None
    run_id = values[RUN_ID]
    if run_id is not None and _has_control(run_id):
        problems.append("The link's run id holds a control character; ignored it.")
        run_id = None
    return Link(run=values[RUN], upload=upload, archive=archive, follow=follow, run_id=run_id,
                step=step, drill=values[DRILL], profile=values[PROFILE],
                problems=tuple(problems))


def is_archive_path(value: str) -> bool:
    """``<folder label>/<relative path>`` with nothing that could climb out of
    the folder or be read two ways: every part non-empty, none ``.`` or
    ``..``, no backslash, no control character."""
    if "\\" in value or _has_control(value):
        return False
    label, _, path = value.partition("/")
    parts = path.split("/")
    return bool(label.strip()) and bool(path) and all(p not in ("", ".", "..") for p in parts)


def link_params(run: str | None, step: int | None, drill: str | None,
                profile: str, upload: str | None = None,
                archive: str | None = None, follow: str | None = None,
                run_id: str | None = None) -> dict[str, str]:
    """The query parameters of a view; absent parts are left out.

    A sample is named by ``run``; an upload by ``upload``, its digest; an
    archive run by ``archive``, its folder label and path; a file of the
    follow folder by ``follow``; the run of a file with several by ``run_id``.
    """
    params = {RUN: run, UPLOAD: upload, ARCHIVE: archive, FOLLOW: follow, RUN_ID: run_id,
              STEP: None if step is None else str(step),
              DRILL: drill, PROFILE: profile}
    return {key: value for key, value in params.items() if value is not None}


def source_of(link: Link) -> tuple[str, str] | None:
    """The link's source parameter and value, the first of :data:`SOURCE_KEYS`
    it gives in this order of precedence: upload, archive, follow, run."""
    for key, value in ((UPLOAD, link.upload), (ARCHIVE, link.archive),
                       (FOLLOW, link.follow), (RUN, link.run)):
        if value is not None:
            return key, value
    return None


# ─── which run of a file with several ─────────────────────────────────


def run_selectors(run_ids: list[str | None]) -> list[str | None]:
    """How a link names each run of a file, in file order: None for a file's
    only run; each run's own id when every run has one and no two share it;
    else ``#<n>``, its place in the file counted from 1."""
    if len(run_ids) <= 1:
        return [None] * len(run_ids)
    usable = all(isinstance(r, str) and r and not r.startswith("#") and not _has_control(r)
                 and REF_SEPARATOR not in r and len(r) <= MAX_VALUE_CHARS for r in run_ids)
    if usable and len(set(run_ids)) == len(run_ids):
        return list(run_ids)
    return [f"#{n}" for n in range(1, len(run_ids) + 1)]


def pick_run(run_ids: list[str | None], selector: str | None) -> int | None:
    """The index of the run ``selector`` names among a file's runs (see
    :func:`run_selectors`); 0 when none is named; None when it names none of them."""
    if selector is None:
        return 0
    selectors = run_selectors(run_ids)
    return selectors.index(selector) if selector in selectors else None


# ─── comparison references ─────────────────────────────────────────────


def make_ref(kind: str, value: str, run_selector: str | None = None) -> str:
    """``<kind>:<value>``, and ``#runid=<selector>`` for a run of a file with several."""
    ref = f"{kind}:{value}"
    return ref if run_selector is None else ref + REF_SEPARATOR + run_selector


def parse_ref(ref: object) -> tuple[str, str, str | None] | None:
    """(kind, value, run selector) of a comparison reference; None when it is
    not one (no kind, an empty value, too long, a control character)."""
    if not isinstance(ref, str) or len(ref) > 2 * MAX_VALUE_CHARS or _has_control(ref):
        return None
    kind, colon, rest = ref.partition(":")
    if not colon or not kind or not rest:
        return None
    value, separator, selector = rest.rpartition(REF_SEPARATOR)
    if not separator:
        return kind, rest, None
    if not value or not selector:
        return None
    return kind, value, selector


def _has_control(value: str) -> bool:
    return any(ord(ch) < 32 or ord(ch) == 127 for ch in value)


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

"""The integrity disposition ledger, read into one record and one line.

Owns: reading one ``integrity.disposition`` payload (each check's account at a
run's end: how often it ran, found, did not apply or could not run) into an
:class:`IntegrityLedger` whose ``summary`` says it in one line, e.g. "3 of 4
checks ran; unsupported-claim found 1".

Does not own: the findings themselves (each ``integrity.context_error`` is a
:class:`recorders.evidence.records.Finding` like any other verdict), or how a
view shows the line.

A *check* is a row (check, seam): 9.62 runs one check at several seams
(``invariant-violation`` at ``wire`` and at ``compose``), so a check name that
appears on several rows is labelled with its seam. Rows count every
re-detection (the README of the family corpus), while the framework files each
defect once per run as an ``integrity.context_error``: "found" counts those
events of the row's check and seam (:func:`defect_key`), so a defect seen on
five passes is found once. A row that counts findings the recording holds no
event for says how often its check detected ("detected 5 times"), which is
what the row counts. Canaries (``synthetic``, dev posture) are self-tests:
their counts and their findings are left out.
"""

from __future__ import annotations

from typing import Any, Mapping

from recorders.evidence.records import IntegrityLedger, RunId
from recorders.values import number_or_none, str_or_none

DefectKey = tuple[str | None, str | None]  # (check, seam), as a row and a finding name them


def defect_key(context_error: Any) -> DefectKey | None:
    """The (check, seam) that filed an ``integrity.context_error`` payload;
    None for a canary's self-test (``synthetic``), which is no defect."""
    if not isinstance(context_error, dict) or context_error.get("synthetic") is True:
        return None
    return str_or_none(context_error.get("kind")), str_or_none(context_error.get("seam"))


def integrity_ledger(payload: dict, event_index: int, run_id: RunId,
                     defects: Mapping[DefectKey, int] | None = None) -> IntegrityLedger:
    """The ledger of one ``integrity.disposition`` payload (malformed rows are
    skipped); ``defects`` counts the run's ``integrity.context_error`` events
    by :func:`defect_key`."""
    rows = payload.get("rows")
    rows = tuple(row for row in rows if isinstance(row, dict)) if isinstance(rows, list) else ()
    names = [str_or_none(row.get("check")) or "unnamed check" for row in rows]
    repeated = {name for name in names if names.count(name) > 1}
    ran = 0
    found: list[tuple[str, int]] = []
    detected: list[tuple[str, int]] = []
    not_applicable: list[str] = []
    unreachable: list[str] = []
    for name, row in zip(names, rows):
        seam = str_or_none(row.get("seam"))
        label = f"{name} ({seam})" if name in repeated and seam else name
        checked, detections = _count(row, "checked"), _count(row, "findings")
        if checked:
            ran += 1
        filed = (defects or {}).get((str_or_none(row.get("check")), seam), 0)
        if filed:
            found.append((label, filed))
        elif detections:
            detected.append((label, detections))
        if not checked and _count(row, "notApplicable"):
            not_applicable.append(label)
        if _count(row, "unreachable"):
            unreachable.append(label)
    return IntegrityLedger(
        summary=_summary(ran, len(rows), found, detected, not_applicable, unreachable),
        posture=str_or_none(payload.get("posture")), ran=ran, total=len(rows),
        found=tuple(found), detected=tuple(detected), not_applicable=tuple(not_applicable),
        unreachable=tuple(unreachable), rows=rows, event_index=event_index, run_id=run_id)


def _count(row: dict, name: str) -> int:
    value = number_or_none(row.get(name))
    return int(value) if value is not None and value > 0 else 0


def _summary(ran: int, total: int, found: list[tuple[str, int]],
             detected: list[tuple[str, int]], not_applicable: list[str],
             unreachable: list[str]) -> str:
    if not total:
        return "no integrity check reported"
    parts = [f"{ran} of {total} check{'s' if total != 1 else ''} ran"]
    if found or detected:
        parts.append(", ".join([f"{label} found {count}" for label, count in found]
                               + [f"{label} detected {_times(count)}"
                                  for label, count in detected]))
    elif ran:
        parts.append("none found anything")
    if not_applicable:
        parts.append(f"not applicable: {', '.join(not_applicable)}")
    if unreachable:
        parts.append(f"could not run: {', '.join(unreachable)}")
    return "; ".join(parts)



def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"

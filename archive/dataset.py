"""A labelled dataset: the runs a person labelled, one JSON line each.

``archive export DIR --label LABEL -o OUT.jsonl`` writes, for every run whose
current content carries the label: its file, run id, agent, user message and
final answer (from the index), every label on it with its note, its likely
causes (the index's ``causes``), and what its last model call was served,
slot by slot (read from the file itself, under the folder, as the Archive
page reads it). A file whose content changed since it was labelled is not
exported (its labels stay with the old content): the count says so.

With a :class:`lens.share.redaction.Redactor`, every text of every line is
masked with one plan, so a value gets the same mask on every line.

What this owns: the line's shape and gathering it. What it does not: which
runs carry a label (:mod:`archive.labels`) or masking rules.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any, Iterable

import duckdb

from archive.labels import LabelStore, clean_label
from archive.query import DEFAULT_LIMITS, QueryLimits, json_value, select

# One served piece's text is cut here in a line (said with "truncated": true).
MAX_PIECE_CHARS = 50_000

_RUNS = ('SELECT file, run_id, agent, user_message, final_answer, started_at, complete, sha256 '
         'FROM "runs" WHERE sha256 = ? ORDER BY file')
_CAUSES = ('SELECT kind, severity, subject, headline, why, step_path, step_index '
           'FROM "causes" WHERE file = ? ORDER BY rank')


def dataset_lines(con: duckdb.DuckDBPyConnection, folder: str | os.PathLike, label: str,
                  limits: QueryLimits = DEFAULT_LIMITS) -> tuple[list[dict[str, Any]], list[str]]:
    """(one dict per labelled run, notes about runs left out)."""
    label = clean_label(label)
    labels = LabelStore(con, writable=False)
    lines: list[dict[str, Any]] = []
    notes: list[str] = []
    for sha in labels.labelled(label):
        runs = select(con, _RUNS, [sha], limits=limits)
        if not runs:
            earlier = [row["file"] for row in labels.labels_of(sha)]
            notes.append(f"{', '.join(sorted(set(f for f in earlier if f))) or 'a run'}: labelled "
                         f"{label!r} in an earlier content of the file; not exported")
            continue
        for run in runs:
            lines.append(_line(con, folder, run, labels.labels_of(sha), limits, notes))
    return lines, notes


def _line(con: duckdb.DuckDBPyConnection, folder: str | os.PathLike, run: dict[str, Any],
          labels: list[dict[str, Any]], limits: QueryLimits, notes: list[str]) -> dict[str, Any]:
    causes = [{"kind": c["kind"], "severity": c["severity"], "subject": c["subject"],
               "headline": c["headline"], "why": c["why"],
               "step": None if c["step_path"] is None else
               {"path": c["step_path"], "index": c["step_index"]}}
              for c in select(con, _CAUSES, [run["file"]], limits=limits)]
    return {
        "file": run["file"], "runId": run["run_id"], "agent": run["agent"],
        "userMessage": run["user_message"], "finalAnswer": run["final_answer"],
        "startedAt": run["started_at"], "complete": run["complete"], "sha256": run["sha256"],
        "labels": [{"label": row["label"], "note": row["note"],
                    "step": None if row["step_index"] is None else
                    {"path": json_value(row["step_path"]), "index": row["step_index"]},
                    "labelledAt": json_value(row["labelled_at"])} for row in labels],
        "causes": causes,
        "servedContext": _served_context(folder, run["file"], run["sha256"], notes),
    }


def _served_context(folder: str | os.PathLike, file: str, sha256: str,
                    notes: list[str]) -> dict[str, Any] | None:
    """What the run's last model call was served, slot by slot; None (said in
    ``notes``) when the file cannot be read now or changed since indexing."""
    # Imported here: only an export opens runs.
    from archive.indexed_run import CHANGED, IndexedRunProblem, open_indexed_run
    from lens.compare.evidence_adapter import served_pieces

    try:
        run = open_indexed_run(folder, file, sha256)
    except IndexedRunProblem as problem:
        notes.append(f"{file}: changed since it was indexed; served context left out "
                     "(re-index the folder)" if problem.kind == CHANGED else
                     f"{file}: served context left out: {problem}")
        return None
    call = run.evidence.final_call()
    if call is None:
        return None
    slots = served_pieces(run.evidence, call.start_event_index) or {}
    return {"call": call.id, "model": call.model, "provider": call.provider,
            "slots": {slot: [_piece(p) for p in pieces] for slot, pieces in slots.items()}}


def _piece(piece: Any) -> dict[str, Any]:
    text = piece.content
    cut = text is not None and len(text) > MAX_PIECE_CHARS
    shown: dict[str, Any] = {"role": piece.role, "source": piece.source,
                             "text": text[:MAX_PIECE_CHARS] if cut else text}
    if cut:
        shown["truncated"] = True
    return shown


def redact_lines(lines: list[dict[str, Any]], redactor: Any) -> tuple[list[dict[str, Any]], Any]:
    """The lines masked by a :class:`lens.share.redaction.Redactor` with one
    plan (a value gets the same mask on every line), and the plan's report."""
    plan = redactor.plan(lines, root=False)
    places: Counter = Counter()
    redacted = []
    for line in lines:
        line, report = plan.apply(line, root=False)
        redacted.append(line)
        places.update(report.places)
    return redacted, plan.report(places)


def jsonl_line(line: dict[str, Any]) -> str:
    """One compact JSON line (U+2028/9 escaped so a line is a line for every reader)."""
    text = json.dumps(line, ensure_ascii=False, separators=(",", ":"), default=str)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n"


def write_jsonl(lines: Iterable[dict[str, Any]], out: str | os.PathLike) -> int:
    """Write one compact JSON object per line (UTF-8; U+2028/9 escaped so a
    line is a line for every reader); how many lines."""
    count = 0
    with open(out, "w", encoding="utf-8", newline="\n") as handle:
        for line in lines:
            handle.write(jsonl_line(line))
            count += 1
    return count

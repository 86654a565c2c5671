"""One run file in, its archive rows out: the pure core of the index.

:func:`index_file` reads a file's bytes with the recorders' loader and walks
the typed stream once, producing the rows of every table in
:mod:`archive.schema` for that file. It touches no disk, no database and no
global state, so the embedded index and the Dask engine map the very same
function over a folder, and a test can call it on bytes.

A file is one of three things (:class:`FileOutcome.status`):

- ``run``: read, with its rows;
- ``unreadable``: it looks like a run (or cannot even be parsed) and the loader
  refused it; ``problem`` is the loader's one-line reason. A file looks like a
  run when its ``format`` (or its header's) names an agentfootprint format, or
  it has a recording's, audit bundle's, Trace's or artifact entry's shape;
- ``not-a-run``: well-formed JSON that is not a recording (a manifest, a
  package file): skipped quietly.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Sequence

from archive.limits import INDEXING_PER_BYTE, FileLimits, MemoryGate, file_limits
from archive.storable import fit_tables
from recorders import boundary_names
from recorders.errors import ExpansionRefused, RecordingError
from recorders.read import names
from recorders.read.not_runs import NotARun
from recorders.read.registry import claimed_kind
from recorders.loading import NOTHING_WRITTEN, first_run, load_file
from recorders.precheck import precheck
from recorders import evidence
from recorders.evidence import usage_tokens
from recorders.catalogue import ERROR_FATAL
from recorders.loading import Recording, parse_json, unpack
from lens.evidence.causes import likely_causes
from lens.evidence.signature import signature
from lens.run import OpenRun
from lens.run_facts import runs_held
from lens.scopes import ROOT

RUN, UNREADABLE, NOT_A_RUN = "run", "unreadable", "not-a-run"
UNSTORABLE_GAP = "not-stored-as-recorded"  # a value past its column's type (archive.storable)
SHORT_TEXT_CHARS = 500
CAUSES_PROFILE = "lens"  # the projection the run page opens on, whose steps causes link to


@dataclass
class FileOutcome:
    """What indexing one file gave: its status and, for a run, its rows by table."""

    file: str
    size_bytes: int
    sha256: str
    status: str  # RUN | UNREADABLE | NOT_A_RUN
    problem: str | None = None
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def index_file(file: str, data: bytes, sha256: str | None = None,
               limits: FileLimits | None = None, admit: MemoryGate | None = None) -> FileOutcome:
    """Index the bytes of the file at relative path ``file`` (plain or gzipped);
    ``sha256`` is their digest when the caller has it already. Gzip expands to
    at most ``limits.max_indexed_bytes`` (by default, the limits in force), and
    the parse runs inside ``admit(bytes it may need)`` when given (whatever it
    raises, such as :class:`archive.limits.NoRoomNow`, goes to the caller)."""
    digest = sha256 or file_digest(data)
    outcome = FileOutcome(file, len(data), digest, RUN)
    limits = limits or file_limits()
    try:
        # Unpacked once, in pieces held to the limit: a gzip bomb is refused
        # before the limit's worth is exceeded, and not inflated a second time
        # to see what the file looks like.
        plain = unpack(data, limits.max_indexed_bytes)
    except ExpansionRefused:
        outcome.status, outcome.problem = UNREADABLE, limits.refusal("it expands to")
        return outcome
    except RecordingError as error:  # empty, or gzip that cannot be read
        empty = str(error) == "the file is empty"  # as an event stream is before its first flush
        outcome.status, outcome.problem = UNREADABLE, NOTHING_WRITTEN if empty else one_line(
            str(error))
        return outcome
    # The parse and the rows hold several times the JSON at their peak: the
    # caller's gate (a server's memory budget) admits them, or raises. A zip is
    # asked for by what its entries inflate to, not by its compressed size.
    try:
        expanded = precheck(plain, limits.max_indexed_bytes)
    except RecordingError:
        expanded = len(plain)  # refused below, by the loader's own words
    with admit(int(expanded * INDEXING_PER_BYTE)) if admit else nullcontext():
        try:
            # Every kind of run file, zips bounded by the same limit. A file with
            # several runs (an event stream, a bug report) is indexed by its first,
            # and a gap row says how many it holds: rows are keyed by file.
            loaded = load_file(plain, limit=limits.max_indexed_bytes)
            recording = first_run(loaded)
        except NotARun as error:  # a checkpoint, a thinking trace: named, not indexed
            outcome.status, outcome.problem = NOT_A_RUN, one_line(str(error))
            return outcome
        except RecordingError as error:
            outcome.status = UNREADABLE if _looks_like_a_run(plain) else NOT_A_RUN
            outcome.problem = one_line(str(error)) if outcome.status == UNREADABLE else None
            return outcome
        except RecursionError:
            outcome.status, outcome.problem = UNREADABLE, "the recording is nested too deeply"
            return outcome
        del plain  # the rows are built from the recording alone
        if (recording.source_kind == names.BOUNDARY_LIST and recording.boundary_events
                and set(recording.boundary_counts) <= set(recording.unknown_boundary_types)):
            # A list of {"type": ...} objects none of whose types agentfootprint writes.
            outcome.status = NOT_A_RUN
            return outcome
        if not recording.typed_events and not recording.boundary_events:
            if recording.source_kind == names.BOUNDARY_LIST:
                outcome.status = NOT_A_RUN  # an empty JSON list: nothing says it is a run
                return outcome
            if recording.source_kind != names.ENVELOPE:  # an envelope still names its run
                outcome.status = UNREADABLE
                outcome.problem = "the recording holds no events: there is no run to index"
                return outcome
        try:
            tables = run_rows(recording, file, len(data), digest,
                              runs_in_file=runs_held(loaded.runs))
        except RecursionError:
            outcome.status, outcome.problem = UNREADABLE, "the recording is nested too deeply"
            return outcome
        except Exception as error:  # one odd file must not end the pass over a folder
            outcome.status = UNREADABLE
            outcome.problem = one_line(f"Lens could not index this run ({type(error).__name__}: "
                                        f"{str(error)[:200]})")
            return outcome
        _note_unstorable(tables, fit_tables(tables))
        outcome.tables = tables
        return outcome


def _note_unstorable(tables: dict[str, list[dict[str, Any]]], notes: list[str]) -> None:
    """Each value stored otherwise than recorded becomes one of the run's gaps."""
    if not notes:
        return
    [run] = tables["runs"]
    tables["gaps"].extend({"file": run["file"], "run_id": run["run_id"],
                           "code": UNSTORABLE_GAP, "message": note} for note in notes)
    run["gap_count"] = len(tables["gaps"])


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run_rows(recording: Recording, file: str, size_bytes: int, sha256: str,
             runs_in_file: int | None = None) -> dict[str, list[dict[str, Any]]]:
    """Rows of every run table for one loaded recording.

    Model calls, tool calls and likely causes come from the open run (its
    evidence index, the one reader of the typed stream, and the lens
    projection the causes link to), and the run's identity, first message,
    answer and ending from its :class:`lens.run_facts.RunFacts`: the archive,
    the run page, the command line and the exported page name a run and say
    how it ended the same way. Its session, wall-clock times and crash text
    come from one light pass over the events' meta and ``error.fatal``, which
    the facts do not keep. ``runs_in_file``: how many distinct runs the file
    holds (the rows describe one)."""
    run = OpenRun(recording, runs_in_file=runs_in_file)
    run_id = run.run_id
    facts = run.facts
    walk = _TypedWalk()
    for event in recording.typed_events:
        handler = walk.handlers.get(event.get("type"))
        if handler is not None:
            handler(event.get("payload"), event.get("meta"))
        walk.see_meta(event.get("meta"))
    # The row's run only (a resume's parts included): a file may hold earlier runs too.
    model_calls = _model_call_rows(run.evidence, file, run_id, facts.run_ids)
    tool_calls = _tool_call_rows(run.evidence, file, run_id, facts.run_ids)
    entry, exit_ = _root_boundaries(recording.boundary_events)
    route = run.projection(CAUSES_PROFILE).route
    hops = _hop_rows(route, file, run_id)
    gaps = [{"file": file, "run_id": run_id, "code": g.code, "message": g.message}
            for g in recording.gaps]
    run_info = recording.run_info or {}
    started = (_iso_time(run_info.get("startedAt")) or _ms_time(_field(entry, "ts"))
               or _ms_time(facts.started_ms) or _ms_time(walk.first_ms))
    ended = (_iso_time(run_info.get("endedAt")) or _ms_time(_field(exit_, "ts"))
             or _ms_time(walk.last_ms))
    complete = recording.complete
    producer = recording.producer or {}
    exit_payload = _field(exit_, "payload")
    row = {
        "file": file,
        "run_id": run_id,
        "agent": facts.agent,
        "session_id": _text(run_info.get("sessionId")) or walk.session_id,
        "complete": complete,
        "lean": recording.is_lean,
        "model_calls": len(model_calls),
        "tool_calls": len(tool_calls),
        "failed_tool_calls": sum(1 for t in tool_calls if t["error"]),
        "input_tokens": int(sum(c["input_tokens"] or 0 for c in model_calls)),
        "output_tokens": int(sum(c["output_tokens"] or 0 for c in model_calls)),
        "started_at": started,
        "ended_at": ended,
        "duration_ms": ((ended - started).total_seconds() * 1000
                        if started is not None and ended is not None else None),
        "final_answer": facts.final_answer,
        "user_message": (facts.first_message
                         or _text(_field(_field(entry, "payload"), "message"))),
        "ended": facts.outcome.ended,
        "outcome": facts.outcome.sentence or None,
        "runs_in_file": facts.runs_in_file,
        "error": (_text(_field(exit_payload, "error")) or walk.fatal_error
                  if complete is not True else None),
        "skills": route.get_path(),
        "models": list(dict.fromkeys(c["model"] for c in model_calls if c["model"])),
        "source_kind": recording.source_kind,
        "agentfootprint_version": _text(producer.get("agentfootprintVersion")),
        "footprintjs_version": _text(producer.get("footprintjsVersion")),
        "gap_count": len(gaps),
        "size_bytes": size_bytes,
        "sha256": sha256,
    }
    return {"runs": [row], "model_calls": model_calls, "tool_calls": tool_calls,
            "route_hops": hops, "gaps": gaps, "causes": _cause_rows(run, file, run_id)}


def _model_call_rows(index: evidence.EvidenceIndex, file: str, run_id: str,
                     run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """One row per ``stream.llm_start`` of the run of ``run_ids`` (an index
    built from the boundary log has none)."""
    if index.source != evidence.SOURCE_TYPED:
        return []
    rows = []
    for call in index.calls_of_run(run_ids):
        tokens_in, tokens_out = usage_tokens(call.usage) if call.ended else (None, None)
        rows.append({
            "file": file, "run_id": run_id, "call_index": call.id,
            "runtime_stage_id": call.runtime_stage_id,
            "composition_path": _path_text(call.composition_path),
            "iteration": call.iteration, "provider": call.provider, "model": call.model,
            "input_tokens": _int(tokens_in), "output_tokens": _int(tokens_out),
            "stop_reason": call.stop_reason, "tool_call_count": _int(call.tool_call_count),
            "duration_ms": _number(call.duration_ms), "ended": call.ended,
            "started_at": _ms_time(call.ts_start), "output_text": short_text(call.output),
        })
    return rows


def _tool_call_rows(index: evidence.EvidenceIndex, file: str, run_id: str,
                    run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """One row per ``stream.tool_start`` of the run of ``run_ids`` (an end
    without its start is no call)."""
    if index.source != evidence.SOURCE_TYPED:
        return []
    started = [tool for tool in index.tools_of_run(run_ids)
               if tool.start_event_index is not None]
    return [{
        "file": file, "run_id": run_id, "call_index": number,
        "tool_call_id": tool.tool_call_id, "tool_name": tool.name,
        "runtime_stage_id": tool.runtime_stage_id, "error": tool.error is True,
        "ended": tool.ended, "duration_ms": _number(tool.duration_ms),
        "started_at": _ms_time(tool.ts_start), "args_text": short_text(tool.args),
        "result_text": short_text(tool.result) if tool.ended else None,
    } for number, tool in enumerate(started)]


def _cause_rows(run: OpenRun, file: str, run_id: str) -> list[dict[str, Any]]:
    """The run's likely causes as the run page lists them (root scope of the
    lens projection), each with its signature and the step that shows it."""
    route = run.projection(CAUSES_PROFILE).route
    causes = likely_causes(run.evidence, run.step_map(CAUSES_PROFILE, ROOT),
                           hops=route.get_hops(), trips=route.get_trips(),
                           gaps=run.recording.gaps)
    rows = []
    for rank, cause in enumerate(causes):
        place = None
        if cause.nav is not None and cause.nav.step is not None:
            place = run.place(CAUSES_PROFILE, ROOT, cause.nav.step)
        rows.append({
            "file": file, "run_id": run_id, "rank": rank, "kind": cause.kind,
            "severity": cause.severity, "subject": cause.subject,
            "signature": signature(cause).text, "headline": cause.headline, "why": cause.why,
            "step_path": None if place is None else list(place.path),
            "step_index": None if place is None else place.index,
            "event_index": cause.events[0] if cause.events else None,
        })
    return rows


class _TypedWalk:
    """One light pass over the typed stream for what the run's facts do not
    keep: the session, the first and last wall clock, and how a crash was
    reported. Calls and causes are the evidence index's, the run's identity,
    answer and ending its facts' (:func:`run_rows`)."""

    def __init__(self) -> None:
        self.fatal_error: str | None = None
        self.session_id: str | None = None
        self.first_ms: float | None = None
        self.last_ms: float | None = None
        self.handlers = {ERROR_FATAL: self._error_fatal}

    def see_meta(self, meta: Any) -> None:
        if not isinstance(meta, dict):
            return
        ms = meta.get("wallClockMs")
        if _is_number(ms):
            if self.first_ms is None:
                self.first_ms = ms
            self.last_ms = ms
        if self.session_id is None and isinstance(meta.get("sessionId"), str):
            self.session_id = meta["sessionId"]

    def _error_fatal(self, payload: Any, meta: Any) -> None:
        if self.fatal_error is None:
            self.fatal_error = _text(_obj(payload).get("error"))


def _root_boundaries(events: list[dict]) -> tuple[dict | None, dict | None]:
    """The root's ``run.entry`` and ``run.exit`` (the first entry, the last exit)."""
    entry = exit_ = None
    for event in events:
        kind = event.get("type")
        if kind == boundary_names.RUN_ENTRY and entry is None:
            entry = event
        elif kind == boundary_names.RUN_EXIT:
            exit_ = event
    return entry, exit_


def _hop_rows(route, file: str, run_id: str) -> list[dict[str, Any]]:
    hops = [(hop, False) for hop in route.get_hops()]
    hops += [(hop, True) for hop in route.get_rejections()]
    hops.sort(key=lambda pair: pair[0].iteration)  # stable: a rejection follows its hop
    return [{
        "file": file, "run_id": run_id, "hop_index": index, "iteration": _number(hop.iteration),
        "from_skill": hop.from_skill, "to_skill": hop.to_skill or _text(hop.requested_skill),
        "outcome": hop.outcome, "why": hop.why, "edge_label": hop.edge_label,
        "last_tool": hop.last_tool, "rejected": rejected,
        "runtime_stage_id": hop.runtime_stage_id,
    } for index, (hop, rejected) in enumerate(hops)]


def _looks_like_a_run(data: bytes) -> bool:
    """Whether a file the loader refused should be reported rather than skipped:
    anything that is not well-formed JSON, or JSON that says it is one of the
    kinds Lens reads (the registry's to tell)."""
    try:
        document = parse_json(data)
    except (RecordingError, RecursionError):
        return True
    return claimed_kind(document) is not None


# ─── small readers ─────────────────────────────────────────────────────


def short_text(value: Any, limit: int = SHORT_TEXT_CHARS) -> str | None:
    """A value as text for a table cell: strings as they are, anything else as
    compact JSON; cut to ``limit`` characters with an ellipsis."""
    if value is None:
        return None
    if not isinstance(value, str):
        try:
            value = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError):
            value = repr(type(value).__name__)
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _path_text(value: Any) -> str | None:
    if not isinstance(value, (list, tuple)):
        return None
    return "/".join(str(part) for part in value)


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else None


def _obj(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value: Any) -> int | float | None:
    # Kept as recorded: the column's cast makes it a float, and one past the
    # largest float is stored as null and named by archive.storable.
    return value if _is_number(value) else None


def _int(value: Any) -> int | None:
    if not _is_number(value):
        return None
    try:
        return int(value)
    except (OverflowError, ValueError):  # inf / nan never reach here; huge floats might
        return None


def _ms_time(ms: Any) -> datetime | None:
    if not _is_number(ms):
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return None


def _iso_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
        if stamp.tzinfo is not None:
            stamp = stamp.astimezone(timezone.utc).replace(tzinfo=None)
    except (ValueError, OverflowError):  # not a time, or its offset moves it out of range
        return None
    return stamp


def one_line(message: str) -> str:
    return " ".join(message.split()) or "the file could not be read"

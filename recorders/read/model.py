"""What the readers of ``recorders/read/`` make: a :class:`Recording` per run,
a :class:`LoadedFile` per file, and the :class:`NestedReader` a reader is handed
to read a document inside its file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from recorders.gaps import Gap
from recorders.values import is_number


@dataclass
class Recording:
    """One run as a reader found it, its events checked: the events (the parsed
    JSON objects themselves), what the file says about the run, and the gaps.
    It holds no view of the run: projections and evidence are built from it."""

    source_kind: str  # the file's kind: LoadedFile.kind, one of recorders/read/names.py
    typed_events: list[dict]
    boundary_events: list[dict]
    has_typed_stream: bool
    has_boundary_log: bool
    boundary_mode: str | None = None
    envelope_format: str | None = None
    producer: dict | None = None
    run_info: dict | None = None
    privacy: dict | None = None
    configuration: Any = None
    snapshot: dict | None = None
    structure: Any = None
    typed_counts: dict[str, int] = field(default_factory=dict)
    boundary_counts: dict[str, int] = field(default_factory=dict)
    typed_run_ids: list[str] = field(default_factory=list)
    unknown_typed_types: dict[str, int] = field(default_factory=dict)
    unknown_boundary_types: dict[str, int] = field(default_factory=dict)
    # Typed events that carry no meta at all, by type: kept, with nothing to place them by.
    typed_without_meta: dict[str, int] = field(default_factory=dict)
    gaps: list[Gap] = field(default_factory=list)
    # Snapshot members read and not kept (UNREAD_SNAPSHOT_KEYS found in the file), sorted.
    dropped_snapshot_keys: tuple[str, ...] = ()
    source_chars: int = 0  # characters of JSON text it was loaded from (0: built from objects)
    # An audit bundle's hash-chain check (recorders/audit.AuditCheck; not imported
    # here: the chain check reads event streams, whose reader makes Recordings).
    audit: Any = None

    @property
    def is_lean(self) -> bool:
        return self.boundary_mode == "lean"

    @property
    def complete(self) -> bool | None:
        """The envelope's ``run.complete``; None when the file does not say."""
        if self.run_info is None:
            return None
        value = self.run_info.get("complete")
        return value if isinstance(value, bool) else None

    @property
    def dropped_events(self) -> int | None:
        if self.run_info is None:
            return None
        value = self.run_info.get("droppedEvents")
        return value if is_number(value) else None

    @property
    def snapshot_run_id(self) -> str | None:
        if isinstance(self.snapshot, dict) and isinstance(self.snapshot.get("runId"), str):
            return self.snapshot["runId"]
        return None


@dataclass
class LoadedFile:
    """Every run one file holds, and what the file says as a whole; what each
    run holds is its :class:`Recording`'s."""

    kind: str  # the file's sourceKind, sniffed from its bytes (recorders/read/names.py)
    runs: list[Recording]  # in file order; [] only for an event stream with nothing written yet
    report: dict | None = None  # a bug report's title, stepsToReproduce, expected, actual, ...
    audit: Any = None  # an audit bundle's chain check (recorders/audit.py)
    notes: list[str] = field(default_factory=list)  # plain sentences about the file


@dataclass(frozen=True)
class NestedReader:
    """What one load of a file lends its kind's reader for the documents inside
    it (an artifact's payload, a bug report's entries): the loader's own parse
    and interpretation, and the load's settings. It owns no state; the loader
    makes one per load, so the readers never import the loader."""

    document_run: Callable[[bytes | str, bool], Recording]  # a whole JSON text's run (fast?)
    interpret: Callable[[Any], Recording]  # a parsed document's run
    parse: Callable[[bytes], Any]  # JSON bytes parsed as they are (None when blank)
    fast: bool = True
    limit: int = 0  # what a zip's entries may expand to, in bytes

"""The evidence index: what each model call was served, said and asked for.

Built once per recording by :func:`build_evidence_index` (one forward pass,
:mod:`.build`) into frozen records (:mod:`.records`): :class:`ModelCall`,
:class:`ToolCall`, the served context slot by slot, turns and search
entries, plus which events carry each stage (:mod:`.stages`). A
:class:`StepMap` (:mod:`.step_map`) ties the calls to the positions of one
step list. Display (truncation, escaping) is the views' job (``lens``).
"""

from recorders.evidence.build import (build_evidence_index, build_from_events, recorded_run_id,
                                      run_id)
from recorders.evidence.run_groups import resumed_run_ids, run_groups
from recorders.evidence.records import (
    MESSAGES,
    SLOTS,
    SOURCE_BOUNDARY,
    SOURCE_NONE,
    SOURCE_TYPED,
    SYSTEM_PROMPT,
    TOOLS,
    USAGE_INPUT_KEYS,
    USAGE_OUTPUT_KEYS,
    ContextNote,
    EvidenceIndex,
    Eviction,
    Finding,
    IntegrityLedger,
    MemoryServed,
    ModelCall,
    Piece,
    SearchEntry,
    SlotComposition,
    ToolCall,
    Turn,
    usage_tokens,
)
from recorders.evidence.stages import StageEvents
from recorders.evidence.step_map import StepMap

__all__ = [
    "MESSAGES", "SLOTS", "SOURCE_BOUNDARY", "SOURCE_NONE", "SOURCE_TYPED", "SYSTEM_PROMPT",
    "TOOLS", "USAGE_INPUT_KEYS", "USAGE_OUTPUT_KEYS", "ContextNote", "EvidenceIndex",
    "Eviction", "Finding", "IntegrityLedger", "MemoryServed", "ModelCall", "Piece",
    "SearchEntry", "SlotComposition", "StageEvents",
    "StepMap", "ToolCall", "Turn", "build_evidence_index", "build_from_events",
    "recorded_run_id", "resumed_run_ids", "run_groups", "run_id",
    "usage_tokens",
]

"""The names of the file kinds Lens reads: a run's ``source_kind``, a loaded file's ``kind``.

These strings are written into the archive's ``source_kind`` column and
shown by ``info``, so they never change; code compares with these names,
never with the bare strings.
"""

RECORDING = "recording"  # {snapshot, events, structure} from recordRun(...).toRecording()
ENVELOPE = "envelope"  # agentfootprint.recording.v1 around a recording
PACKED = "packed"  # agentfootprint.recording.packed.v1: a recording with shared values
BOUNDARY_LIST = "boundary-list"  # a bare DomainEvent[] list
EVENT_STREAM = "event-stream"  # fileObservability's NDJSON (or one typed event)
TRACE = "trace"  # localObservability's Trace
BUG_REPORT = "bug-report"  # exportBugReport's zip
ARTIFACT_RECORDING = "artifact-recording"  # a fileArtifacts entry of kind recording/run
AUDIT_BUNDLE = "audit-bundle"  # auditExport()'s hash-chained records

# What an artifact-store entry or a bug report's conversation may hold: a recording itself.
RECORDING_KINDS = frozenset({RECORDING, ENVELOPE, PACKED})

"""The attribute names (and the few fixed values) the OTLP export writes.

Owns: every key :mod:`lens.share.otlp` puts on a span, a span event or the
resource, grouped by the convention that defines it, so a tracing tool's name
is spelled once and the export's vocabulary can be read in one place:

- the OpenTelemetry GenAI semantic conventions (``gen_ai.*``), which tracing
  tools read for agents, model calls and tool calls;
- OpenTelemetry's general conventions (``error.type``, resource keys);
- OpenInference (``openinference.span.kind``, ``tool.name``), which Phoenix
  reads to draw its span kinds;
- agentfootprint's own OpenTelemetry adapter (``otelObservability``, 9.62),
  whose names the export copies so a recorded run and a live one look alike.

A constant is named after its key (``gen_ai.tool.call.id`` is
``GEN_AI_TOOL_CALL_ID``, ``agentfootprint.scope.name`` is
``AGENTFOOTPRINT_SCOPE_NAME``); a fixed value is named after what it is a
value of (``OPERATION_CHAT``, ``ERROR_TYPE_OTHER``).

Does not own: building spans, their values, the OTLP/JSON wire shape (all
:mod:`lens.share.otlp`), or the typed event names used as span event names
(:mod:`recorders.catalogue`).
"""

# ─── OpenTelemetry GenAI semantic conventions ──────────────────────────
GEN_AI_OPERATION_NAME = "gen_ai.operation.name"
# Well-known values of gen_ai.operation.name; each also heads its span's name
# ("chat <model>", "invoke_agent <name>", "execute_tool <name>").
OPERATION_CHAT = "chat"
OPERATION_INVOKE_AGENT = "invoke_agent"
OPERATION_EXECUTE_TOOL = "execute_tool"

GEN_AI_AGENT_NAME = "gen_ai.agent.name"
GEN_AI_REQUEST_MODEL = "gen_ai.request.model"
GEN_AI_PROVIDER_NAME = "gen_ai.provider.name"
GEN_AI_SYSTEM = "gen_ai.system"  # the older name of gen_ai.provider.name, still read by some tools
GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens"
GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = "gen_ai.usage.cache_read.input_tokens"
GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
GEN_AI_RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons"
GEN_AI_TOOL_NAME = "gen_ai.tool.name"
GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id"
# Contents: opt-in in the conventions (the export's ``content=True``).
GEN_AI_SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages"
GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages"
GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
GEN_AI_TOOL_CALL_RESULT = "gen_ai.tool.call.result"

# ─── OpenTelemetry general conventions ─────────────────────────────────
ERROR_TYPE = "error.type"
ERROR_TYPE_OTHER = "_OTHER"  # the conventions' value when no better error class is known
# Resource attributes.
SERVICE_NAME = "service.name"
TELEMETRY_SDK_NAME = "telemetry.sdk.name"

# ─── OpenInference ─────────────────────────────────────────────────────
OPENINFERENCE_SPAN_KIND = "openinference.span.kind"
OPENINFERENCE_CHAIN = "CHAIN"  # OpenInference's kind for a span that holds other steps
TOOL_NAME = "tool.name"

# ─── agentfootprint's OpenTelemetry adapter (its own namespace) ────────
ITERATION_NUMBER = "iteration.number"  # on an iteration span, as the adapter writes it
AGENTFOOTPRINT_VERSION = "agentfootprint.version"  # resource
AGENTFOOTPRINT_RUN_ID = "agentfootprint.run.id"  # resource and run spans
AGENTFOOTPRINT_RUN_RESUMED_AS = "agentfootprint.run.resumed_as"
AGENTFOOTPRINT_SCOPE_KIND = "agentfootprint.scope.kind"
AGENTFOOTPRINT_SCOPE_NAME = "agentfootprint.scope.name"
AGENTFOOTPRINT_SCOPE_PATH = "agentfootprint.scope.path"
AGENTFOOTPRINT_TURN_INDEX = "agentfootprint.turn.index"
AGENTFOOTPRINT_LOOP_ITERATION = "agentfootprint.loop.iteration"
AGENTFOOTPRINT_ITERATION_INDEX = "agentfootprint.iteration.index"
AGENTFOOTPRINT_RUNTIME_STAGE_ID = "agentfootprint.runtime_stage.id"
AGENTFOOTPRINT_TOOL_CALL_COUNT = "agentfootprint.tool_call.count"
AGENTFOOTPRINT_CALL_ENDED = "agentfootprint.call.ended"
AGENTFOOTPRINT_TOOL_ENDED = "agentfootprint.tool.ended"
AGENTFOOTPRINT_TOOL_ARGS_KEYS = "agentfootprint.tool.args.keys"
AGENTFOOTPRINT_TOOL_RESULT_TYPE = "agentfootprint.tool.result.type"
# Times the export had to make up: clamped into OTLP's range, or not recorded.
AGENTFOOTPRINT_TIME_CLAMPED = "agentfootprint.time.clamped"
AGENTFOOTPRINT_TIME_UNRECORDED = "agentfootprint.time.unrecorded"
# On a verdict's span event: the catalogue's kind, family and meaning, the
# event's explaining fields (one attribute each) and the contents left out.
AGENTFOOTPRINT_FINDING_KIND = "agentfootprint.finding.kind"
AGENTFOOTPRINT_FINDING_FAMILY = "agentfootprint.finding.family"
AGENTFOOTPRINT_FINDING_MEANING = "agentfootprint.finding.meaning"
AGENTFOOTPRINT_FINDING_WITHHELD = "agentfootprint.finding.withheld"
# One per explaining field: the event's name domain (``tools``), the field in snake case.
AGENTFOOTPRINT_EXPLAINING_FIELD = "agentfootprint.{domain}.{field}"
# On an integrity ledger's span event.
AGENTFOOTPRINT_INTEGRITY_SUMMARY = "agentfootprint.integrity.summary"
AGENTFOOTPRINT_INTEGRITY_CHECKS_RAN = "agentfootprint.integrity.checks_ran"
AGENTFOOTPRINT_INTEGRITY_CHECKS_TOTAL = "agentfootprint.integrity.checks_total"
AGENTFOOTPRINT_INTEGRITY_POSTURE = "agentfootprint.integrity.posture"
# The service name when the run's root span has no scope name.
DEFAULT_SERVICE_NAME = "agentfootprint"

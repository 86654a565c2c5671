"""The archive's tables: every column's name, SQL type and meaning, in one place.

DuckDB's tables, the Parquet datasets and the column reference in docs/archive.md are
all made from :data:`TABLES`, so they cannot drift apart. Every row of every
table carries ``file`` (the run file's path relative to the archive folder,
``/``-separated), the key that ties a run's rows together; ``run_id`` is the
run's own id, which copies of a file share.
"""

from __future__ import annotations

from dataclasses import dataclass

# The tables' layout and the rules that fill them (what is a run, what a value
# becomes). An index written under another version is rebuilt, not trusted:
# a file whose bytes did not change would otherwise keep an older verdict.
# 2: envelopes with no events are runs; values past a column's type are fitted.
# 3: each run's likely causes, with their signatures (the `causes` table).
# 4: a run's agent, first message, answer and ending are its run facts' (as the
#    run page and the command line give them): `ended`, `outcome`, `runs_in_file`.
SCHEMA_VERSION = 4


@dataclass(frozen=True)
class Column:
    name: str
    sql_type: str  # a DuckDB type: VARCHAR, BOOLEAN, INTEGER, BIGINT, DOUBLE, TIMESTAMP, VARCHAR[]
    doc: str


@dataclass(frozen=True)
class Table:
    name: str
    doc: str
    columns: tuple[Column, ...]

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def create_sql(self) -> str:
        body = ", ".join(f'"{c.name}" {c.sql_type}' for c in self.columns)
        return f'CREATE TABLE IF NOT EXISTS "{self.name}" ({body})'


_FILE = Column("file", "VARCHAR", "path of the run file relative to the archive folder")
_RUN_ID = Column("run_id", "VARCHAR", "the run's id (envelope `run.runId`, else the typed "
                 "stream's, else the engine's), as the run page shows it")

RUNS = Table("runs", "one row per readable run file", (
    _FILE, _RUN_ID,
    Column("agent", "VARCHAR", "the envelope's `configuration.agentId`, else the id the "
           "root names itself by in its first events (a composition's id, a configured "
           "agent's `agentId`), else the agent its first typed event runs under"),
    Column("session_id", "VARCHAR", "the run's `sessionId` (envelope or event meta), when "
           "recorded"),
    Column("complete", "BOOLEAN", "the envelope's `run.complete`; null when the file does "
           "not say"),
    Column("lean", "BOOLEAN", "recorded with `boundaryDetail: 'lean'` (no payloads in the "
           "boundary log)"),
    Column("model_calls", "INTEGER", "count of `stream.llm_start` events"),
    Column("tool_calls", "INTEGER", "count of `stream.tool_start` events"),
    Column("failed_tool_calls", "INTEGER", "count of `stream.tool_end` events with "
           "`error: true`"),
    Column("input_tokens", "BIGINT", "sum of the input counts of `stream.llm_end` usage "
           "(0 when no call reported usage)"),
    Column("output_tokens", "BIGINT", "sum of the output counts of `stream.llm_end` usage"),
    Column("started_at", "TIMESTAMP", "UTC start: the envelope's `run.startedAt`, else "
           "`run.entry`, else the first typed event"),
    Column("ended_at", "TIMESTAMP", "UTC end: the envelope's `run.endedAt`, else `run.exit`, "
           "else the last typed event"),
    Column("duration_ms", "DOUBLE", "`ended_at` minus `started_at` in milliseconds"),
    Column("final_answer", "VARCHAR", "the answer the run returned, as the run page shows "
           "it: the root's `run.exit` text, else the root agent's last `agent.turn_end` "
           "content (each branch's, said so, for a root Parallel), else the final model "
           "call's answer; null when it returned none"),
    Column("user_message", "VARCHAR", "the first `agent.turn_start` prompt, else the "
           "root's `run.entry` message"),
    Column("ended", "VARCHAR", "how the run ended, in one word: `answered`, `stopped` (a "
           "limit cut it short), `crashed`, `paused` (it waits on a person) or `unfinished`"),
    Column("outcome", "VARCHAR", "how the run ended, in the sentence the run page leads "
           "with"),
    Column("runs_in_file", "INTEGER", "how many distinct runs the file holds (the row "
           "describes the first recording's shown run)"),
    Column("error", "VARCHAR", "how a crashed run ended: the root's `run.exit` error, else "
           "the `error.fatal` text; null for a run that did not crash"),
    Column("skills", "VARCHAR[]", "the skill route's path (skills visited, in order); "
           "empty without a skill graph"),
    Column("models", "VARCHAR[]", "the distinct models the run called, in first-call order"),
    Column("source_kind", "VARCHAR", "the file's kind: `recording`, `envelope`, "
           "`boundary-list`, `event-stream`, `trace`, `bug-report`, `artifact-recording`, "
           "`audit-bundle` or `packed`"),
    Column("agentfootprint_version", "VARCHAR", "producer: agentfootprint's version"),
    Column("footprintjs_version", "VARCHAR", "producer: footprintjs's version"),
    Column("gap_count", "INTEGER", "how many facts the recording does not carry (rows in "
           "`gaps`)"),
    Column("size_bytes", "BIGINT", "size of the file as stored (gzipped size for `.json.gz`)"),
    Column("sha256", "VARCHAR", "sha256 of the file's bytes as stored"),
))

MODEL_CALLS = Table("model_calls", "one row per model call (`stream.llm_start`)", (
    _FILE, _RUN_ID,
    Column("call_index", "INTEGER", "0-based order of the call in the run"),
    Column("runtime_stage_id", "VARCHAR", "the call's `runtimeStageId`"),
    Column("composition_path", "VARCHAR", "where the call ran, e.g. `Sequence:notes/"
           "LLMCall:draft`"),
    Column("iteration", "INTEGER", "the agent loop's iteration, when recorded"),
    Column("provider", "VARCHAR", "the provider named at the call's start"),
    Column("model", "VARCHAR", "the model named at the call's start"),
    Column("input_tokens", "BIGINT", "input tokens of the call's usage (null without "
           "`stream.llm_end`)"),
    Column("output_tokens", "BIGINT", "output tokens of the call's usage"),
    Column("stop_reason", "VARCHAR", "the stop reason at the call's end"),
    Column("tool_call_count", "INTEGER", "how many tools the answer asked for"),
    Column("duration_ms", "DOUBLE", "the call's recorded duration"),
    Column("ended", "BOOLEAN", "whether the call's `stream.llm_end` is in the file"),
    Column("started_at", "TIMESTAMP", "UTC wall clock at the call's start"),
    Column("output_text", "VARCHAR", "the start of the model's output text (500 characters "
           "at most)"),
))

TOOL_CALLS = Table("tool_calls", "one row per tool call (`stream.tool_start`)", (
    _FILE, _RUN_ID,
    Column("call_index", "INTEGER", "0-based order of the tool call in the run"),
    Column("tool_call_id", "VARCHAR", "the provider's tool-call id"),
    Column("tool_name", "VARCHAR", "the tool's name"),
    Column("runtime_stage_id", "VARCHAR", "the tool call's `runtimeStageId`"),
    Column("error", "BOOLEAN", "the tool's end was recorded with `error: true`"),
    Column("ended", "BOOLEAN", "whether the call's `stream.tool_end` is in the file"),
    Column("duration_ms", "DOUBLE", "the call's recorded duration"),
    Column("started_at", "TIMESTAMP", "UTC wall clock at the call's start"),
    Column("args_text", "VARCHAR", "the arguments as compact JSON (500 characters at most)"),
    Column("result_text", "VARCHAR", "the result (the error text for a failed call), 500 "
           "characters at most"),
))

ROUTE_HOPS = Table("route_hops", "one row per hop of the skill route, rejections included", (
    _FILE, _RUN_ID,
    Column("hop_index", "INTEGER", "0-based order of the hop"),
    Column("iteration", "DOUBLE", "the agent loop's iteration of the hop"),
    Column("from_skill", "VARCHAR", "the skill the graph left (null on entry)"),
    Column("to_skill", "VARCHAR", "the skill the graph moved to (or was asked to)"),
    Column("outcome", "VARCHAR", "entry, stay, route, model-pick, rejected, …"),
    Column("why", "VARCHAR", "the hop's cause in one line"),
    Column("edge_label", "VARCHAR", "the graph edge's caption, when the hop took one"),
    Column("last_tool", "VARCHAR", "the tool whose result decided the hop"),
    Column("rejected", "BOOLEAN", "the move was asked for and refused"),
    Column("runtime_stage_id", "VARCHAR", "the hop's `runtimeStageId`"),
))

GAPS = Table("gaps", "one row per fact a run file does not carry", (
    _FILE, _RUN_ID,
    Column("code", "VARCHAR", "a short code, e.g. `lean`, `incomplete`, `dropped`, "
           "`unknown-types`, `not-stored-as-recorded` (a value past its column's type: "
           "stored as null, or with U+FFFD for half a surrogate pair)"),
    Column("message", "VARCHAR", "the same, said for people"),
))

CAUSES = Table("causes", "one row per likely cause of a run, as the run page lists them", (
    _FILE, _RUN_ID,
    Column("rank", "INTEGER", "0-based place in the run's list, most likely first"),
    Column("kind", "VARCHAR", "our words: `failed tool`, `provider error`, … or the "
           "framework's verdict type, e.g. `permission.check`"),
    Column("severity", "VARCHAR", "`error` or `warning`"),
    Column("subject", "VARCHAR", "what it is about, as recorded: the tool, provider, skill, "
           "check target, slot…; null when nothing names one"),
    Column("signature", "VARCHAR", "its text with ids, digests, times and numbers replaced by "
           "`#`: runs that failed the same way share kind, subject and signature"),
    Column("headline", "VARCHAR", "the cause in one line, as the run page shows it"),
    Column("why", "VARCHAR", "why it may explain the answer, in one line"),
    Column("step_path", "VARCHAR[]", "the scope of the step that shows it (lens projection, "
           "`__root__` first), null when no step does"),
    Column("step_index", "INTEGER", "0-based index of that step in its scope"),
    Column("event_index", "INTEGER", "the first typed event it rests on (position in the "
           "recording's `events`)"),
))

FILES = Table("files", "bookkeeping: every file the last index looked at, read or not", (
    _FILE,
    Column("size_bytes", "BIGINT", "size when last read"),
    Column("mtime_ns", "BIGINT", "modification time when last read (nanoseconds)"),
    Column("sha256", "VARCHAR", "sha256 of the bytes when last read"),
    Column("status", "VARCHAR", "`run`, `unreadable` or `not-a-run`"),
    Column("problem", "VARCHAR", "for an unreadable file: the loader's one-line reason; "
           "for a file agentfootprint writes that is not a run (a checkpoint), what it is"),
))

RUN_TABLES: tuple[Table, ...] = (RUNS, MODEL_CALLS, TOOL_CALLS, ROUTE_HOPS, GAPS, CAUSES)
TABLES: tuple[Table, ...] = RUN_TABLES + (FILES,)
TABLE_BY_NAME = {t.name: t for t in TABLES}

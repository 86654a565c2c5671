"""Hand-built typed events, shaped like agentfootprint 9.62's (see tests/corpus/README.md).

Each helper returns one event ``{type, payload, meta}``. ``scope`` is the
model call's subflow path (no ``__root__``); context events fire one level
deeper (``sf-messages`` ...), as they do in the real recordings.
"""

from __future__ import annotations

from typing import Any

P = "agentfootprint."
_SLOT_SUBFLOW = {"system-prompt": "sf-system-prompt", "messages": "sf-messages",
                 "tools": "sf-tools"}


def event(kind: str, payload: Any = None, *, rid: str = "x#0", path: tuple = (),
          ts: float = 0, run: str = "run-1") -> dict:
    return {"type": P + kind, "payload": {} if payload is None else payload,
            "meta": {"runtimeStageId": rid, "subflowPath": list(path), "wallClockMs": ts,
                     "runOffsetMs": 0, "compositionPath": [], "runId": run}}


def inject(slot: str, content: str, *, source: str, scope: tuple = (), ts: float = 0,
           run: str = "run-1", role: str | None = None, source_id: str | None = None,
           reason: str = "r", position: int | None = None, **extra: Any) -> dict:
    payload: dict[str, Any] = {"slot": slot, "source": source, "reason": reason,
                               "rawContent": content, "contentSummary": content[:80],
                               "contentHash": f"h{abs(hash((slot, source, content))) % 10**8}"}
    if role is not None:
        payload["asRole"] = role
    if source_id is not None:
        payload["sourceId"] = source_id
    if position is not None:
        payload["position"] = position
    payload.update(extra)
    sub = _SLOT_SUBFLOW.get(slot, "sf-" + slot)
    return event("context.injected", payload, rid=f"{'/'.join(scope + (sub,))}/compose#1",
                 path=scope + (sub,), ts=ts, run=run)


def composed(slot: str, *, scope: tuple = (), ts: float = 0, run: str = "run-1",
             cap: int = 100, used: int = 10, dropped: list | None = None) -> dict:
    dropped = dropped or []
    sub = _SLOT_SUBFLOW.get(slot, "sf-" + slot)
    return event("context.slot_composed",
                 {"slot": slot, "iteration": 1,
                  "budget": {"cap": cap, "used": used, "headroomChars": cap - used},
                  "sourceBreakdown": {}, "droppedCount": len(dropped),
                  "droppedSummaries": dropped},
                 rid=f"{sub}/compose#1", path=scope + (sub,), ts=ts, run=run)


def llm_start(rid: str, *, scope: tuple = (), ts: float = 0, run: str = "run-1",
              messages: int = 1, tools: int = 0, tool_list: list | None = None,
              model: str = "m") -> dict:
    payload = {"iteration": 1, "provider": "p", "model": model, "systemPromptChars": 0,
               "messagesCount": messages, "toolsCount": tools}
    if tool_list is not None:
        payload["tools"] = tool_list
    return event("stream.llm_start", payload, rid=rid, path=scope, ts=ts, run=run)


def llm_end(rid: str, content: str, *, scope: tuple = (), ts: float = 0, run: str = "run-1",
            tool_calls: int = 0) -> dict:
    return event("stream.llm_end",
                 {"iteration": 1, "content": content, "toolCallCount": tool_calls,
                  "usage": {"input": 10, "output": 5},
                  "stopReason": "tool_use" if tool_calls else "stop", "durationMs": 7},
                 rid=rid, path=scope, ts=ts, run=run)


def tool_start(name: str, call_id: str, args: Any, *, scope: tuple = (), ts: float = 0,
               run: str = "run-1", rid: str = "tool-calls#1") -> dict:
    return event("stream.tool_start", {"toolName": name, "toolCallId": call_id, "args": args},
                 rid=rid, path=scope, ts=ts, run=run)


def tool_end(call_id: str, result: Any, *, error: bool = False, scope: tuple = (),
             ts: float = 0, run: str = "run-1", rid: str = "tool-calls#1") -> dict:
    payload: dict[str, Any] = {"toolCallId": call_id, "result": result, "durationMs": 1}
    if error:
        payload["error"] = True
    return event("stream.tool_end", payload, rid=rid, path=scope, ts=ts, run=run)


def turn_start(prompt: str, *, scope: tuple = (), ts: float = 0, run: str = "run-1") -> dict:
    return event("agent.turn_start", {"turnIndex": 0, "userPrompt": prompt},
                 rid="seed#0", path=scope, ts=ts, run=run)


def agent_run(*, run: str = "run-1", scope: tuple = (), t0: float = 1000) -> list[dict]:
    """A two-call agent turn: the model asks for ``lookup`` (which fails), then answers."""
    s = dict(scope=scope, run=run)
    return [
        turn_start("refund A-1", ts=t0, **s),
        inject("system-prompt", "You refund orders.", source="base", ts=t0 + 1, **s),
        composed("system-prompt", ts=t0 + 1, **s),
        inject("messages", "refund A-1", source="user", role="user", position=0,
               ts=t0 + 2, **s),
        composed("messages", ts=t0 + 2, **s),
        inject("tools", "lookup: Look an order up", source="registry", source_id="lookup",
               position=0, ts=t0 + 3, **s),
        composed("tools", ts=t0 + 3, **s),
        llm_start(_rid(scope, "call-llm#10"), ts=t0 + 4, tools=1, **s),
        llm_end(_rid(scope, "call-llm#10"), "Looking it up.", ts=t0 + 5, tool_calls=1, **s),
        tool_start("lookup", "c1", {"orderId": "A-1"}, ts=t0 + 6,
                   rid=_rid(scope, "tool-calls#11"), **s),
        tool_end("c1", "Timeout", error=True, ts=t0 + 7, rid=_rid(scope, "tool-calls#11"), **s),
        inject("system-prompt", "You refund orders.", source="base", ts=t0 + 8, **s),
        composed("system-prompt", ts=t0 + 8, **s),
        inject("messages", "refund A-1", source="user", role="user", position=0,
               ts=t0 + 9, **s),
        inject("messages", "Looking it up.", source="assistant", role="assistant", position=1,
               ts=t0 + 9, **s),
        inject("messages", "Timeout", source="tool-result", role="tool", source_id="c1",
               position=2, ts=t0 + 9, **s),
        composed("messages", ts=t0 + 9, **s),
        inject("tools", "lookup: Look an order up", source="registry", source_id="lookup",
               position=0, ts=t0 + 10, **s),
        composed("tools", ts=t0 + 10, **s),
        llm_start(_rid(scope, "call-llm#20"), ts=t0 + 11, messages=3, tools=1, **s),
        llm_end(_rid(scope, "call-llm#20"), "Sorry, the lookup timed out.", ts=t0 + 12, **s),
    ]


def _rid(scope: tuple, local: str) -> str:
    return "/".join(scope + (local,))
